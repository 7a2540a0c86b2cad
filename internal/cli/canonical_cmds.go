package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/message"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// commandAliases are the specification's names of our top-level commands.
var commandAliases = map[string][]string{"serve": {"server"}}

// serverAlias gives serve the specification's name, server.
func serverAlias(c *cobra.Command) *cobra.Command {
	c.Aliases = append(c.Aliases, commandAliases["serve"]...)
	return c
}

// renamed is c under the specification's name: its Use's first word replaced.
func renamed(c *cobra.Command, name string) *cobra.Command {
	if _, rest, ok := strings.Cut(c.Use, " "); ok {
		c.Use = name + " " + rest
	} else {
		c.Use = name
	}
	return c
}

// newCardCmd is `card get`, the specification's spelling of discover (get card).
func newCardCmd(f *factory) *cobra.Command {
	card := &cobra.Command{Use: "card", Short: "Agent cards, in the a2a-cli grammar: card get (same as discover)", RunE: nounArgs,
		Long: "The a2a-cli specification's resource noun for agent cards: `a2a card get -a <ref>` is `a2a discover <ref>`.\nSee docs/grammar.md for how the two grammars map."}
	get := renamed(newGetCardCmd(f, nil), "get")
	get.Example = `  a2a card get -a localhost:8080
  a2a card get localhost:8080 -o json`
	addStreamFlag(get, nil)
	card.AddCommand(get)
	return card
}

// addStreamFlag gives a command of the a2a-cli grammar that does not stream the specification's --stream all the
// same (Appendix B: `-o json --stream` is JSON Lines for every command): the one document on one line, which -o
// json already writes, or, for task list, one Task per line (set by *lines).
func addStreamFlag(c *cobra.Command, lines *bool) {
	if lines == nil {
		lines = new(bool)
	}
	c.Flags().BoolVar(lines, "stream", false, "with -o json, JSON Lines (the a2a-cli grammar): "+
		map[bool]string{true: "one Task per line (as -o jsonl)", false: "the one document on one line, as -o json prints it"}[c.Name() == "list"])
}

// newTaskCmd is `task get|list|cancel|subscribe|push-config|download`: the specification's resource noun over our
// verbs (get task, list tasks, cancel, subscribe, create/get/list/delete push-config) and task download.
func newTaskCmd(f *factory) *cobra.Command {
	task := &cobra.Command{Use: "task", Short: "Tasks, in the a2a-cli grammar: get, list, cancel, subscribe, push-config, download", RunE: nounArgs,
		Long: "The a2a-cli specification's resource noun for tasks, over the same commands as our verbs:\n" +
			"task get = get task, task list = list tasks, task cancel = cancel, task subscribe = subscribe,\n" +
			"task push-config create|get|list|delete = create|get|list|delete push-config(s). See docs/grammar.md."}
	get := renamed(newGetTaskCmd(f, nil), "get")
	get.Example = `  a2a task get -a localhost:8080 <task-id>
  a2a task get -a localhost:8080 <task-id> --wait -o json`
	// task list prints the specification's text floor (§11.2: Label: value lines, a blank line after each task);
	// list tasks keeps its table.
	var listLines bool
	list := renamed(newListTasksCmd(f, func(ctx context.Context, o *listTasksOptions) error {
		o.fields = true
		if listLines && f.opts.output == string(output.JSON) {
			f.opts.canon.jsonl = true // -o json --stream: one Task per line (Appendix B)
		}
		return runListTasks(ctx, o)
	}), "list")
	addStreamFlag(list, &listLines)
	list.Example = `  a2a task list -a localhost:8080 --context-id <context-id>
  a2a task list -a localhost:8080 -o jsonl`
	addStreamFlag(get, nil)
	cancel := newCancelCmd(f, nil)
	addStreamFlag(cancel, nil)
	cancel.Example = `  a2a task cancel -a localhost:8080 <task-id>`
	var stream bool
	sub := newSubscribeCmd(f, func(ctx context.Context, o *subscribeOptions) error { return runTaskSubscribe(ctx, o, stream) })
	sub.Long += "\n\nAs task subscribe (the a2a-cli grammar), -o json prints one document, the terminal Task; -o jsonl or\n" +
		"-o json --stream print every event, one per line (as subscribe -o json does)."
	sub.Flags().BoolVar(&stream, "stream", false, "with -o json, print every event as a JSON line (the default in text)")
	sub.Example = `  a2a task subscribe -a localhost:8080 <task-id>
  a2a task subscribe -a localhost:8080 <task-id> -o json
  a2a task subscribe -a localhost:8080 <task-id> -o json --stream`
	pc := &cobra.Command{Use: "push-config", Short: "A task's push notification configs: create, get, list, delete", RunE: nounArgs}
	for _, op := range []string{"create", "get", "list", "delete"} {
		c := renamed(newPushConfigCmd(f, op, nil), op)
		c.Example = strings.ReplaceAll(strings.ReplaceAll(c.Example, "a2a "+op+" push-configs", "a2a task push-config "+op),
			"a2a "+op+" push-config", "a2a task push-config "+op)
		pc.AddCommand(c)
	}
	task.AddCommand(get, list, cancel, sub, pc, newTaskDownloadCmd(f))
	return task
}

// runTaskSubscribe is task subscribe: with -o json and no --stream (nor -o jsonl), the specification's one
// document, the terminal Task: the events are followed unprinted, then the task is read once it settled.
func runTaskSubscribe(ctx context.Context, o *subscribeOptions, stream bool) error {
	f := o.f
	if f.opts.output != string(output.JSON) || stream || f.opts.canon.jsonl {
		return runSubscribe(ctx, o)
	}
	out := f.io.Out
	f.io.Out = io.Discard
	err := runSubscribe(ctx, o)
	f.io.Out = out
	if err != nil {
		return err
	}
	return runGetTask(ctx, &getTaskOptions{f: f, withClient: o.withClient, url: o.url, id: o.id, history: -1,
		pollInterval: follow.DefaultPollInterval})
}

// maxChatStdin bounds what chat reads from a pipe (send's own bound on stdin).
const maxChatStdin = 256 << 20

// requirePush refuses a push-config call to an agent whose card does not declare push notifications (the
// a2a-cli specification, §13.3: verify a capability on the card before a call it gates). No card (--endpoint, a
// forced transport) leaves the agent to answer.
func requirePush(c *client.Conn) error {
	if c.Card == nil || c.Card.Capabilities.PushNotifications {
		return nil
	}
	return client.WithHint(fmt.Errorf("the agent's card does not declare push notifications: %w", a2a.ErrPushNotificationNotSupported),
		"poll the task instead: a2a get task <url> <task-id> --wait")
}

// runChatOnce is chat without a terminal (the a2a-cli specification, §11.2: an interactive mode degrades to text
// and never blocks on input): what stdin holds is sent once, as send would, in the chat's context or task.
func runChatOnce(ctx context.Context, o *chatOptions) error {
	body, err := io.ReadAll(io.LimitReader(o.f.io.In, maxChatStdin+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if len(body) > maxChatStdin {
		return client.Usagef("chat: stdin holds more than %d MiB: use 'a2a send' with --file", maxChatStdin>>20)
	}
	if strings.TrimSpace(string(body)) == "" {
		return client.WithHint(client.Usagef("chat needs a terminal, or a message on stdin: stdin was empty"),
			"use 'a2a send' in scripts and pipes")
	}
	so := &sendOptions{f: o.f, withClient: o.f.withClient, history: -1, url: o.url, dt: o.dt,
		msg: message.Input{Text: string(body), HasText: true, TaskID: o.taskID, ContextID: o.contextID}}
	if err := so.checkDevtool(); err != nil {
		return err
	}
	return runSend(ctx, so)
}

// newTaskDownloadCmd is `task download`: the task's file parts written into a directory.
func newTaskDownloadCmd(f *factory) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "download <url> <task-id>",
		Short: "Save a task's artifacts (its file parts) into a directory",
		Long: `Fetch a task and write the file parts of its artifacts into --dir (default: the current directory), each
under its own file name (made safe: no directories, nothing overwritten). stderr names each file written; stdout
carries the task as get task prints it.`,
		Example: `  a2a task download -a localhost:8080 <task-id> --dir ./out`,
		Args:    exactArgs("<url>", "<task-id>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &getTaskOptions{f: f, withClient: f.withClient, history: 0, url: args[0], id: args[1], save: dir}
			return runGetTask(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the `directory` to write the files into")
	_ = cmd.MarkFlagDirname("dir") // cannot fail: the flag exists
	return cmd
}

// waitSettled polls GetTask until the task ends or stops for input (task get --wait), every --poll-interval with a
// bounded backoff; --timeout bounds the whole wait (0: none), which then ends as a timeout.
func waitSettled(ctx context.Context, f *factory, c *client.Conn, req *a2a.GetTaskRequest, interval time.Duration) (*a2a.Task, error) {
	ctx, cancel := (&follow.Wait{Wait: f.opts.Timeout}).Context(ctx)
	defer cancel()
	delay, ceiling := interval, max(interval, min(8*interval, 30*time.Second))
	if interval == follow.DefaultPollInterval {
		delay = follow.FirstPoll
	}
	for {
		task, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) { return c.GetTask(ctx, req) })
		if err != nil {
			if errors.Is(context.Cause(ctx), follow.ErrWaitExpired) {
				return nil, fmt.Errorf("task %s: --timeout (%s) ran out: %w", req.ID, f.opts.Timeout, client.ErrTimeout)
			}
			return nil, err
		}
		if follow.Settled(task.Status.State) {
			return task, nil
		}
		f.log.Printf("task %s is %s: asking again in %s", req.ID, task.Status.State, delay)
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			if errors.Is(context.Cause(ctx), follow.ErrWaitExpired) {
				return nil, fmt.Errorf("task %s is still %s and --timeout (%s) ran out: %w", req.ID, output.ShortState(task.Status.State), f.opts.Timeout, client.ErrTimeout)
			}
			return nil, context.Cause(ctx)
		case <-timer.C:
		}
		delay = min(2*delay, ceiling)
	}
}
