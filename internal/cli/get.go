package cli

import (
	"context"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type getTaskOptions struct {
	f             *factory
	withClient    withClientFunc
	url, id       string
	history       int
	withArtifacts bool
	save          string
}

func newGetTaskCmd(f *factory, runF func(context.Context, *getTaskOptions) error) *cobra.Command {
	o := &getTaskOptions{f: f, withClient: f.withClient, history: -1}
	cmd := &cobra.Command{
		Use:   "task <url> <task-id>",
		Short: "Show a task's status, and its history and artifacts when asked",
		Example: `  a2a get task localhost:8080 <task-id>
  a2a get task localhost:8080 <task-id> --history 10
  a2a get task localhost:8080 <task-id> --with-artifacts -o json`,
		Args: exactArgs("<url>", "<task-id>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url, o.id = args[0], args[1]
			if cmd.Flags().Changed("history") && o.history < 0 {
				return &client.UsageError{Msg: "--history must not be negative", Cmd: cmd.CommandPath()}
			}
			if o.save != "" {
				o.withArtifacts = true
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runGetTask(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVar(&o.history, "history", -1, "include up to n history messages")
	cmd.Flags().BoolVar(&o.withArtifacts, "with-artifacts", false, "include artifacts (always with -o raw)")
	cmd.Flags().StringVar(&o.save, "save", "", "write file parts of the task's artifacts into `dir` (implies --with-artifacts)")
	cmd.Flags().BoolVar(&f.opts.fail, "fail", false, "exit 6 when the task failed, was rejected or canceled; 7 when it needs input or auth")
	return cmd
}

func runGetTask(ctx context.Context, o *getTaskOptions) error {
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		req := &a2a.GetTaskRequest{ID: a2a.TaskID(o.id), Tenant: o.f.opts.Tenant}
		if o.history >= 0 {
			h := o.history
			req.HistoryLength = &h
		}
		task, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) { return c.GetTask(ctx, req) })
		if err != nil {
			return err
		}
		if err := follow.SaveFiles(o.f.io.Err, o.save, task.Artifacts); err != nil {
			return err
		}
		if !o.withArtifacts && o.f.opts.output != string(output.Raw) { // raw output is the artifacts
			task.Artifacts = nil
		}
		if o.history == 0 {
			task.History = nil
		}
		if err := o.f.printer().Task(task); err != nil {
			return err
		}
		return o.f.outcome(o.url, task)
	})
}
