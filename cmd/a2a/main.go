// Command a2a is a command-line client and toolbox for the A2A (Agent2Agent) protocol.
package main

import (
	"context"
	"os"

	"github.com/a2acli/a2a/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.SystemStreams()))
}
