// Command a2a-man writes a2a's command reference from the command tree: man pages (section 1, one per command) and
// the same pages in Markdown (make docs writes docs/man and docs/reference; TestGeneratedDocsAreCurrent fails
// when those differ from the commands).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/a2acli/a2a/internal/cli"
)

func main() {
	man := flag.String("man", "", "write the man pages into `dir`")
	md := flag.String("md", "", "write the Markdown reference into `dir`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: a2a-man [-man DIR] [-md DIR]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 || *man == "" && *md == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := write(*man, *md); err != nil {
		fmt.Fprintln(os.Stderr, "a2a-man:", err)
		os.Exit(1)
	}
}

// write writes the man pages into manDir and the Markdown reference into mdDir; an empty name skips that one.
// What was there before is removed first, so a command that is gone leaves no page behind.
func write(manDir, mdDir string) error {
	if manDir != "" {
		if err := clean(manDir, ".1"); err != nil {
			return err
		}
		hdr := func() *doc.GenManHeader {
			return &doc.GenManHeader{Title: "A2A", Section: "1", Source: "a2a " + cli.Version(), Manual: "a2a manual"}
		}
		root := cli.CommandTree()
		if err := doc.GenManTree(root, hdr(), manDir); err != nil {
			return err
		}
		if err := topics(root, manDir, "-", ".1", func(c *cobra.Command, f *os.File) error { return doc.GenMan(c, hdr(), f) }); err != nil {
			return err
		}
	}
	if mdDir != "" {
		if err := clean(mdDir, ".md"); err != nil {
			return err
		}
		root := cli.CommandTree()
		if err := doc.GenMarkdownTree(root, mdDir); err != nil {
			return err
		}
		return topics(root, mdDir, "_", ".md", func(c *cobra.Command, f *os.File) error { return doc.GenMarkdown(c, f) })
	}
	return nil
}

// topics writes a page for each of root's help topics (`a2a help environment`), which the generators skip.
func topics(root *cobra.Command, dir, sep, ext string, gen func(*cobra.Command, *os.File) error) error {
	for _, c := range root.Commands() {
		if !c.IsAdditionalHelpTopicCommand() {
			continue
		}
		f, err := os.Create(filepath.Join(dir, root.Name()+sep+c.Name()+ext))
		if err != nil {
			return err
		}
		err = gen(c, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// clean makes dir and removes its files named *ext.
func clean(dir, ext string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil {
		return err
	}
	for _, f := range old {
		if !strings.HasSuffix(f, ext) {
			continue
		}
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return nil
}
