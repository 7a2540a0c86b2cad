package cli

import (
	"context"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type cancelOptions struct {
	f          *factory
	withClient withClientFunc
	url, id    string
}

func newCancelCmd(f *factory, runF func(context.Context, *cancelOptions) error) *cobra.Command {
	o := &cancelOptions{f: f, withClient: f.withClient}
	return &cobra.Command{
		Use:     "cancel <url> <task-id>",
		Short:   "Cancel a task and print its updated status",
		Example: `  a2a cancel localhost:8080 <task-id>`,
		Args:    exactArgs("<url>", "<task-id>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url, o.id = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runCancel(cmd.Context(), o)
		},
	}
}

func runCancel(ctx context.Context, o *cancelOptions) error {
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		task, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
			return c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(o.id), Tenant: o.f.opts.Tenant})
		})
		if err != nil {
			return err
		}
		return o.f.printer().Task(task)
	})
}
