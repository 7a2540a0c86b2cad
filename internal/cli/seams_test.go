package cli

import (
	"context"
	"errors"
	"testing"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
)

// TestVerbsUseWithClient runs each verb with its withClient seam swapped (through runF): the verb reaches the agent
// named by its <url> through the seam and nothing else, and returns what connecting returned.
func TestVerbsUseWithClient(t *testing.T) {
	t.Parallel()
	boom := errors.New("no agent here")
	tests := []struct {
		name string
		cmd  func(f *factory, stub withClientFunc) *cobra.Command
		args []string
	}{
		{"send", func(f *factory, stub withClientFunc) *cobra.Command {
			return newSendCmd(f, func(ctx context.Context, o *sendOptions) error { o.withClient = stub; return runSend(ctx, o) })
		}, []string{"agent:1", "hi"}},
		{"send --stream", func(f *factory, stub withClientFunc) *cobra.Command {
			return newSendCmd(f, func(ctx context.Context, o *sendOptions) error { o.withClient = stub; return runSend(ctx, o) })
		}, []string{"agent:1", "hi", "--stream"}},
		{"get task", func(f *factory, stub withClientFunc) *cobra.Command {
			return newGetTaskCmd(f, func(ctx context.Context, o *getTaskOptions) error { o.withClient = stub; return runGetTask(ctx, o) })
		}, []string{"agent:1", "t1"}},
		{"cancel", func(f *factory, stub withClientFunc) *cobra.Command {
			return newCancelCmd(f, func(ctx context.Context, o *cancelOptions) error { o.withClient = stub; return runCancel(ctx, o) })
		}, []string{"agent:1", "t1"}},
		{"list tasks", func(f *factory, stub withClientFunc) *cobra.Command {
			return newListTasksCmd(f, func(ctx context.Context, o *listTasksOptions) error { o.withClient = stub; return runListTasks(ctx, o) })
		}, []string{"agent:1"}},
		{"subscribe", func(f *factory, stub withClientFunc) *cobra.Command {
			return newSubscribeCmd(f, func(ctx context.Context, o *subscribeOptions) error { o.withClient = stub; return runSubscribe(ctx, o) })
		}, []string{"agent:1", "t1"}},
		{"list commands", func(f *factory, stub withClientFunc) *cobra.Command {
			return newListCommandsCmd(f, func(ctx context.Context, o *listCommandsOptions) error {
				o.withClient = stub
				return runListCommands(ctx, o)
			})
		}, []string{"agent:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _, _, _ := TestStreams()
			f := &factory{io: s, opts: &globalOptions{output: "text"}, log: &client.Log{}}
			var reached []string
			stub := func(_ context.Context, url string, _ func(context.Context, *client.Conn) error) error {
				reached = append(reached, url)
				return boom
			}
			cmd := tt.cmd(f, stub)
			cmd.SetArgs(tt.args)
			cmd.SetOut(s.Err)
			cmd.SetErr(s.Err)
			if err := cmd.Execute(); !errors.Is(err, boom) {
				t.Fatalf("err = %v, want the seam's error", err)
			}
			if len(reached) != 1 || reached[0] != "agent:1" {
				t.Fatalf("reached %q through the seam, want [agent:1]", reached)
			}
		})
	}
}
