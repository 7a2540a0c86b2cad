package cli

import (
	"io"

	"github.com/a2acli/a2a/internal/client"
	"github.com/spf13/cobra"
)

// CommandTree returns a2a's command tree, for generating documentation (cmd/a2a-man, `make man`); it is not run.
// The man page generator lives beside it rather than in this package so that the a2a binary does not carry it.
func CommandTree() *cobra.Command {
	s, _, _, _ := TestStreams()
	f := &factory{io: s, opts: &globalOptions{}, log: &client.Log{W: io.Discard}}
	root := newRootCmd(f)
	fillEnvironmentHelp(root)
	root.DisableAutoGenTag = true
	return root
}

// Version is a2a's version as `a2a version` prints it.
func Version() string { return buildInfo().Version }
