package cli

import (
	"context"
	"net/url"
	"strconv"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

// The four push-config verbs: create, get, list and delete a task's push notification configs
// (v1.0 *TaskPushNotificationConfig*, v0.3 tasks/pushNotificationConfig/*, on every transport).

type pushConfigOptions struct {
	f           *factory
	withClient  withClientFunc
	url, taskID string
	configID    string
	webhook     string
	token       string
	authScheme  string
	credentials string
}

// pushNoun is the "create" or "delete" verb with its push-config noun ("get" and "list" have theirs beside their
// other nouns, in verbs.go).
func pushNoun(f *factory, verb, short string) *cobra.Command {
	c := &cobra.Command{Use: verb, Short: short, RunE: nounArgs}
	c.AddCommand(newPushConfigCmd(f, verb, nil))
	return c
}

func newPushConfigCmd(f *factory, verb string, runF func(context.Context, string, *pushConfigOptions) error) *cobra.Command {
	o := &pushConfigOptions{f: f, withClient: f.withClient}
	cmd := &cobra.Command{Use: "push-config <url> <task-id> <config-id>"}
	args := []string{"<url>", "<task-id>", "<config-id>"}
	switch verb {
	case "create":
		cmd.Use = "push-config <url> <task-id> --webhook URL"
		cmd.Short = "Ask the agent to POST a task's updates to a webhook"
		cmd.Example = `  a2a listen --port 9000 &
  a2a create push-config localhost:8080 <task-id> --webhook http://127.0.0.1:9000/ --token s3cret`
		args = args[:2]
	case "get":
		cmd.Short = "Show one of a task's push notification configs"
		cmd.Example = `  a2a get push-config localhost:8080 <task-id> <config-id>`
	case "list":
		cmd.Use = "push-configs <url> <task-id>"
		cmd.Short = "List a task's push notification configs"
		cmd.Example = `  a2a list push-configs localhost:8080 <task-id> -o json | jq -r '.configs[].id'`
		args = args[:2]
	case "delete":
		cmd.Short = "Delete one of a task's push notification configs"
		cmd.Example = `  a2a delete push-config localhost:8080 <task-id> <config-id>`
	}
	cmd.Args = exactArgs(args...)
	cmd.RunE = func(cmd *cobra.Command, a []string) error {
		o.url, o.taskID = a[0], a[1]
		if len(a) > 2 {
			o.configID = a[2]
		}
		if verb == "create" {
			if err := o.checkCreate(cmd); err != nil {
				return err
			}
		}
		if runF != nil {
			return runF(cmd.Context(), verb, o)
		}
		return runPushConfig(cmd.Context(), verb, o)
	}
	if verb == "create" {
		fl := cmd.Flags()
		fl.StringVar(&o.webhook, "webhook", "", "the URL the agent POSTs notifications to (required)")
		fl.StringVar(&o.token, "token", "", "a token the agent sends back in X-A2A-Notification-Token")
		fl.StringVar(&o.configID, "id", "", "the config's ID (default: the agent picks one)")
		fl.StringVar(&o.authScheme, "auth-scheme", "", "the scheme of the Authorization header the agent sends (Bearer, Basic, …)")
		fl.StringVar(&o.credentials, "credentials", "", "the credentials of that Authorization header")
		cmd.MarkFlagsRequiredTogether("auth-scheme", "credentials")
	}
	return cmd
}

func (o *pushConfigOptions) checkCreate(cmd *cobra.Command) error {
	if o.webhook == "" {
		return &client.UsageError{Msg: "--webhook is required", Cmd: cmd.CommandPath()}
	}
	if u, err := url.Parse(o.webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &client.UsageError{Msg: "invalid --webhook " + strconv.Quote(o.webhook) + ": want an http:// or https:// URL", Cmd: cmd.CommandPath()}
	}
	return nil
}

func runPushConfig(ctx context.Context, verb string, o *pushConfigOptions) error {
	tenant := o.f.opts.Tenant
	task := a2a.TaskID(o.taskID)
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		if err := requirePush(c); err != nil { // canonical_cmds.go
			return err
		}
		p := o.f.printer()
		switch verb {
		case "create":
			req := &a2a.PushConfig{Tenant: tenant, TaskID: task, ID: o.configID, URL: o.webhook, Token: o.token}
			if o.authScheme != "" {
				req.Auth = &a2a.PushAuthInfo{Scheme: o.authScheme, Credentials: o.credentials}
			}
			cfg, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.PushConfig, error) { return c.CreateTaskPushConfig(ctx, req) })
			if err != nil {
				return err
			}
			return p.PushConfig(cfg)
		case "get":
			req := &a2a.GetTaskPushConfigRequest{Tenant: tenant, TaskID: task, ID: o.configID}
			cfg, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.PushConfig, error) { return c.GetTaskPushConfig(ctx, req) })
			if err != nil {
				return err
			}
			return p.PushConfig(cfg)
		case "list":
			req := &a2a.ListTaskPushConfigRequest{Tenant: tenant, TaskID: task}
			cfgs, err := client.Unary(ctx, c, func(ctx context.Context) ([]*a2a.PushConfig, error) { return c.ListTaskPushConfigs(ctx, req) })
			if err != nil {
				return err
			}
			return p.PushConfigs(cfgs)
		}
		req := &a2a.DeleteTaskPushConfigRequest{Tenant: tenant, TaskID: task, ID: o.configID}
		_, err := client.Unary(ctx, c, func(ctx context.Context) (struct{}, error) { return struct{}{}, c.DeleteTaskPushConfig(ctx, req) })
		if err != nil {
			return err
		}
		return p.PushConfigDeleted(o.taskID, o.configID)
	})
}
