package cli

import (
	"context"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
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
	// wait (task get --wait, --watch) polls until the task ends or stops for input, every pollInterval.
	wait         bool
	pollInterval time.Duration
}

func newGetTaskCmd(f *factory, runF func(context.Context, *getTaskOptions) error) *cobra.Command {
	o := &getTaskOptions{f: f, withClient: f.withClient, history: -1}
	cmd := &cobra.Command{
		Use:   "task <url> <task-id>",
		Short: "Show a task's status and artifacts, and its history when asked",
		Long: `Show a task: its id, context id and state, and its artifacts (always: --with-artifacts is accepted and
changes nothing). --history N adds up to N history messages. --wait asks again every --poll-interval (backing off)
until the task ends or stops for input; --timeout bounds that whole wait (exit 5).`,
		Example: `  a2a get task localhost:8080 <task-id>
  a2a get task localhost:8080 <task-id> --history 10
  a2a get task localhost:8080 <task-id> --with-artifacts -o json
  a2a get task localhost:8080 <task-id> --wait --timeout 10m`,
		Args: exactArgs("<url>", "<task-id>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url, o.id = args[0], args[1]
			if cmd.Flags().Changed("history") && o.history < 0 {
				return &client.UsageError{Msg: "--history must not be negative", Cmd: cmd.CommandPath()}
			}
			if o.pollInterval <= 0 {
				return &client.UsageError{Msg: "--poll-interval must be positive", Cmd: cmd.CommandPath()}
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runGetTask(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVar(&o.history, "history", -1, "include up to n history messages")
	cmd.Flags().BoolVar(&o.withArtifacts, "with-artifacts", false, "include artifacts (they always are: kept for scripts that pass it)")
	cmd.Flags().StringVar(&o.save, "save", "", "write file parts of the task's artifacts into `dir`")
	cmd.Flags().BoolVar(&o.wait, "wait", false, "poll until the task ends or stops for input (--timeout bounds the wait)")
	cmd.Flags().BoolVar(&o.wait, "watch", false, "alias of --wait (a2a-cli spelling)")
	cmd.Flags().DurationVar(&o.pollInterval, "poll-interval", follow.DefaultPollInterval, "time between GetTask calls under --wait (backs off up to 8×)")
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
		var task *a2a.Task
		var err error
		if o.wait {
			task, err = waitSettled(ctx, o.f, c, req, o.pollInterval) // canonical_cmds.go
		} else {
			task, err = client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) { return c.GetTask(ctx, req) })
		}
		if err != nil {
			return err
		}
		if err := follow.SaveFiles(o.f.io.Err, o.save, task.Artifacts); err != nil {
			return err
		}
		if o.history == 0 {
			task.History = nil
		}
		if !o.f.failReplacesResult(task) {
			if err := o.f.printer().Task(task); err != nil {
				return err
			}
		}
		return o.f.outcome(o.url, task)
	})
}
