// Command a2a-man writes a2a's man pages (section 1, one per command) into the directory it is given (make man).
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra/doc"

	"github.com/a2acli/a2a/internal/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: a2a-man DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "a2a-man:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hdr := &doc.GenManHeader{Title: "A2A", Section: "1", Source: "a2a " + cli.Version(), Manual: "a2a manual"}
	return doc.GenManTree(cli.CommandTree(), hdr, dir)
}
