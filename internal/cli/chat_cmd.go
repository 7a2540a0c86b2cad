package cli

import (
	"context"
	"fmt"

	"github.com/a2acli/a2a/internal/chat"
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// chat is the cobra verb and the terminal around a chat.Session: raw mode, the input line, the window size, and a
// factory whose streams all go through the terminal writer.

type chatOptions struct {
	f         *factory
	url       string
	contextID string
	taskID    string
	dt        devtoolOptions
}

func newChatCmd(f *factory, runF func(context.Context, *chatOptions) error) *cobra.Command {
	o := &chatOptions{f: f}
	cmd := &cobra.Command{
		Use:   "chat <url>",
		Short: "Talk to an agent interactively on a terminal",
		Long: `An interactive session with an agent on a terminal: each line you type is a message; the context and the task
carry over between turns. Replies render as send --stream does, coding agents included: permission prompts are
asked inline. Line editing and history (arrow keys) work. Ctrl-C cancels the running turn, a second Ctrl-C (or
Ctrl-D, or /quit) leaves. Without a terminal (a pipe, a script) it sends what stdin holds once, as send does.

` + chat.Help,
		Example: `  a2a chat localhost:8080
  a2a chat localhost:41242 --workspace .`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if !f.io.InTTY || !f.io.OutTTY {
				if f.io.InTTY {
					// Reading the terminal would block on interactive input the replies cannot show.
					return client.WithHint(&client.UsageError{Msg: "chat needs a terminal on stdout (in a pipe it sends what stdin holds, once)", Cmd: cmd.CommandPath()},
						"use 'a2a send' in scripts and pipes")
				}
				return runChatOnce(cmd.Context(), o) // canonical_cmds.go: the a2a-cli specification's degraded mode
			}
			if err := o.dt.check(o.taskID); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runChat(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.contextID, "context", "", "continue a conversation: start in this context")
	cmd.Flags().StringVar(&o.taskID, "task", "", "continue an existing task")
	addDevtoolFlags(cmd, &o.dt, false)
	return cmd
}

func runChat(ctx context.Context, o *chatOptions) error {
	in, ok := o.f.io.In.(coder.FDReader)
	if !ok {
		return client.Usagef("chat needs a terminal on stdin")
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return fmt.Errorf("terminal raw mode: %w", err)
	}
	defer term.Restore(int(in.Fd()), state) //nolint:errcheck // nothing better to do on the way out
	ci := coder.NewChatInput(in, o.f.io.Out)
	go ci.Loop()
	defer close(ci.Want)
	if o.f.io.Width > 0 {
		ci.Term.SetSize(o.f.io.Width, 0) //nolint:errcheck // only the width matters to line editing
	}
	defer coder.FollowResize(int(in.Fd()), ci.Term)()
	// Everything goes through the terminal writer: it turns \n into \r\n (raw mode) and keeps the input line intact.
	cf := *o.f
	cf.io = &Streams{In: in, Out: ci.Term, Err: ci.Term, InTTY: true, OutTTY: true, ErrTTY: true, Getenv: o.f.io.Getenv, Width: o.f.io.Width}
	cf.log = &client.Log{W: ci.Term, Enabled: o.f.log != nil && o.f.log.Enabled}
	cf.inChat = true
	cf.term = nil // the chat draws no spinner: its terminal writer owns the screen
	cf.dial = nil // the chat's own dialer logs and warns through the terminal writer
	cs := &chat.Session{
		URL: o.url, In: ci, Err: cf.io.Err, Log: cf.log, Tenant: cf.opts.Tenant,
		TaskID: a2a.TaskID(o.taskID), ContextID: o.contextID,
		Prepare: o.dt.applySettings,
		NewTurn: func(c *client.Conn) (*follow.Turn, *output.Printer) {
			p := cf.printer()
			return cf.newTurn(c, o.url, &o.dt, p), p
		},
	}
	return cf.withClient(ctx, o.url, cs.Run)
}
