package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type listTasksOptions struct {
	f          *factory
	withClient withClientFunc
	url        string
	req        a2a.ListTasksRequest
	status     string
	since      string
	history    int
	all        bool
	fields     bool // task list (the a2a-cli grammar): Label: value lines in text, not the table
}

// stateNames are the short task states the CLI accepts and prints.
var stateNames = map[string]a2a.TaskState{
	"submitted":      a2a.TaskStateSubmitted,
	"working":        a2a.TaskStateWorking,
	"completed":      a2a.TaskStateCompleted,
	"failed":         a2a.TaskStateFailed,
	"canceled":       a2a.TaskStateCanceled,
	"cancelled":      a2a.TaskStateCanceled,
	"rejected":       a2a.TaskStateRejected,
	"input-required": a2a.TaskStateInputRequired,
	"auth-required":  a2a.TaskStateAuthRequired,
}

func parseState(s string) (a2a.TaskState, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	if st, ok := stateNames[k]; ok {
		return st, nil
	}
	for _, st := range stateNames {
		if strings.EqualFold(string(st), s) {
			return st, nil
		}
	}
	return "", client.Usagef("invalid --status %q: want submitted, working, completed, failed, canceled, rejected, input-required or auth-required", s)
}

func newListTasksCmd(f *factory, runF func(context.Context, *listTasksOptions) error) *cobra.Command {
	o := &listTasksOptions{f: f, withClient: f.withClient, history: -1}
	cmd := &cobra.Command{
		Use:   "tasks <url>",
		Short: "List an agent's tasks",
		Example: `  a2a list tasks localhost:8080
  a2a list tasks localhost:8080 --context <ctx-id>
  a2a list tasks localhost:8080 --status working
  a2a list tasks localhost:8080 --limit 50
  a2a list tasks localhost:8080 --since 2026-01-02T15:04:05Z --all -o json | jq -r '.tasks[].id'`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if err := o.validate(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runListTasks(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.req.ContextID, "context", "", "only tasks of this context id")
	fl.StringVar(&o.status, "status", "", "only tasks in this state: submitted, working, completed, failed, canceled, rejected, input-required, auth-required")
	fl.IntVar(&o.req.PageSize, "limit", 0, "page size (1-100)")
	fl.StringVar(&o.req.PageToken, "page-token", "", "page token from a previous response")
	fl.IntVar(&o.history, "history", -1, "include up to n history messages per task")
	fl.StringVar(&o.since, "since", "", "only tasks with status updates after this time (RFC 3339)")
	fl.BoolVar(&o.req.IncludeArtifacts, "with-artifacts", false, "include artifacts")
	fl.BoolVar(&o.all, "all", false, "follow page tokens and list every page")
	_ = cmd.RegisterFlagCompletionFunc("status", fixedCompletion("submitted", "working", "completed", "failed", "canceled", "rejected", "input-required", "auth-required")) // cannot fail: the flag exists
	return cmd
}

func (o *listTasksOptions) validate(cmd *cobra.Command) error {
	usage := func(format string, args ...any) error {
		return &client.UsageError{Msg: fmt.Sprintf(format, args...), Cmd: cmd.CommandPath()}
	}
	if o.status != "" {
		st, err := parseState(o.status)
		if err != nil {
			return &client.UsageError{Msg: err.Error(), Cmd: cmd.CommandPath()}
		}
		o.req.Status = st
	}
	if cmd.Flags().Changed("limit") && (o.req.PageSize < 1 || o.req.PageSize > 100) {
		return usage("invalid --limit %d: want 1 to 100", o.req.PageSize)
	}
	if cmd.Flags().Changed("history") {
		if o.history < 0 {
			return usage("--history must not be negative")
		}
		h := o.history
		o.req.HistoryLength = &h
	}
	if o.since != "" {
		t, err := time.Parse(time.RFC3339, o.since)
		if err != nil {
			return usage("invalid --since %q: want an RFC 3339 time such as 2026-01-02T15:04:05Z", o.since)
		}
		o.req.StatusTimestampAfter = &t
	}
	return nil
}

func runListTasks(ctx context.Context, o *listTasksOptions) error {
	o.req.Tenant = o.f.opts.Tenant
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		var all *a2a.ListTasksResponse
		seen := map[string]bool{}
		for {
			req := o.req
			resp, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.ListTasksResponse, error) { return c.ListTasks(ctx, &req) })
			if err != nil {
				return err
			}
			if all == nil {
				all = resp
			} else {
				all.Tasks = append(all.Tasks, resp.Tasks...)
				all.NextPageToken = resp.NextPageToken
			}
			if !o.all || resp.NextPageToken == "" || seen[resp.NextPageToken] {
				break
			}
			seen[resp.NextPageToken] = true
			o.req.PageToken = resp.NextPageToken
		}
		if o.all {
			all.NextPageToken = ""
			all.PageSize = len(all.Tasks)
		}
		if o.f.opts.canon.jsonl {
			p := o.f.printer() // -o jsonl: one Task per line
			for _, t := range all.Tasks {
				if err := p.Task(t); err != nil {
					return err
				}
			}
			return nil
		}
		if o.fields {
			return o.f.printer().TaskListFields(all)
		}
		return o.f.printer().TaskList(all)
	})
}
