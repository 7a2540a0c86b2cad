package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/message"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type sendOptions struct {
	f          *factory
	withClient withClientFunc
	url        string
	msg        message.Input
	stream     bool
	immediate  bool
	blocking   bool
	history    int
	save       string
	dt         devtoolOptions
	push       pushSendOptions // sendpush.go
	// quietStream: a send without --stream waits by streaming (waitsByStream) and prints only the final result.
	quietStream bool
	// progress, when set, hears the task after every event of a quiet stream (the spinner's label).
	progress func(*a2a.Task)
	// followUp is set when the message goes to an existing task (--task): the task's state from before it is not
	// the agent's answer.
	followUp *follow.FollowUp
	// sawEvent: the agent answered a streamed send with at least one event (it took the message).
	sawEvent bool
}

func newSendCmd(f *factory, runF func(context.Context, *sendOptions) error) *cobra.Command {
	o := &sendOptions{f: f, withClient: f.withClient, history: -1}
	cmd := &cobra.Command{
		Use:   "send <url> [text]",
		Short: "Send a message to an agent and print the response",
		Long: `Send a message to an agent and print the task or message it answers with.

The message is the text argument ("-" reads it from stdin), or a whole Message object (--json, -f FILE), or a
parts array (--parts). --file adds file parts and --data a data part. With --stream, events are printed as they
arrive (JSON Lines with -o json). A task that stops for input prints the command that continues it.

Without --immediate, send waits until the task ends or stops for input, however long that takes: it streams the
task where the agent streams (printing only the result without --stream), else asks for the task at once and polls
it with GetTask (--poll-interval, backing off). A stream that breaks is resumed (resubscribe, then polling); a stream
silent for longer than --timeout makes send ask the agent, and it waits on while the task is alive. --wait bounds
the whole wait (exit 5, with the commands that follow the task up). --blocking sends one blocking SendMessage
instead, bounded by --timeout, as the protocol's plain call.

Coding agents (the development-tool extension, e.g. the Gemini CLI A2A server): --workspace and --auto-execute
send AgentSettings on a task's first message. When a tool call waits for permission, a2a asks on the terminal
(y: yes once, the default; a: always; n: no; or an agent option by number), answers as the agent understands it,
and streams on. Without a terminal, --approve or --reject answer every call; otherwise a2a stops, lists the pending
calls and prints the commands that answer them later (--task ID --confirm CALLID=OPTION). With any of these flags,
or an agent card that declares the extension, send streams the turn.`,
		Example: `  a2a send localhost:8080 "Hello, what can you do?"
  a2a send localhost:8080 --stream "Summarize this document"
  a2a send localhost:8080 --immediate "Start a long analysis"
  a2a send localhost:8080 --wait 10m --poll-interval 5s "Start a long analysis"
  a2a send localhost:8080 --json '{"role":"ROLE_USER","parts":[{"text":"analyze this"},{"fileUrl":"s3://bucket/doc.pdf"}]}'
  a2a send localhost:8080 --parts '[{"text":"analyze this"},{"fileUrl":"s3://bucket/doc.pdf"}]'
  a2a send localhost:8080 -f message.json
  a2a send localhost:8080 --task <task-id> "Follow-up question"
  a2a send localhost:8080 --context <context-id> "Related question"
  a2a send localhost:8080 "describe this" --file chart.png --save ./out
  echo '{"rows":3}' | a2a send localhost:8080 --data - "check these numbers"
  a2a send localhost:8080 "hi" -o json | jq -r .task.status.state
  a2a send localhost:41242 --workspace . "add a README"
  a2a send localhost:41242 --workspace . --approve "run the tests"
  a2a send localhost:41242 --task <task-id> --confirm <call-id>=approve`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &client.UsageError{Msg: "missing <url>", Cmd: cmd.CommandPath()}
			}
			if len(args) > 2 {
				return &client.UsageError{Msg: "too many arguments: quote the message text", Cmd: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if len(args) == 2 {
				o.msg.Text, o.msg.HasText = args[1], true
			}
			if cmd.Flags().Changed("history") && o.history < 0 {
				return &client.UsageError{Msg: "--history must not be negative", Cmd: cmd.CommandPath()}
			}
			if err := o.checkDevtool(); err != nil {
				return err
			}
			if err := o.push.check(cmd.CommandPath()); err != nil {
				return err
			}
			if err := o.f.opts.wait.Check(cmd.CommandPath()); err != nil {
				return err
			}
			if o.f.opts.canon.jsonl && !o.immediate && !o.blocking {
				o.stream = true // -o jsonl is -o json --stream
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runSend(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.stream, "stream", false, "use SendStreamingMessage and print events as they arrive")
	fl.BoolVar(&o.immediate, "immediate", false, "return at once with the task (ReturnImmediately)")
	fl.BoolVar(&o.blocking, "blocking", false, "one blocking SendMessage bounded by --timeout, neither streamed nor polled (to test an agent's SendMessage)")
	fl.StringVar(&o.msg.JSON, "json", "", "the whole Message as JSON")
	fl.StringVar(&o.msg.Parts, "parts", "", "a JSON array of parts; the message is built with ROLE_USER")
	fl.StringVarP(&o.msg.File, "message-file", "f", "", "read the Message (or a parts array) from a JSON file, - for stdin")
	addPartFlags(fl, &o.msg) // canonical.go: --file, --data, --text-part, --file-part, --data-part, --media-type, --metadata
	fl.StringVar(&o.msg.TaskID, "task", "", "continue an existing task")
	fl.StringVar(&o.msg.ContextID, "context", "", "group the message under a context id")
	fl.IntVar(&o.history, "history", -1, "ask for n history messages in the response")
	fl.StringVar(&o.save, "save", "", "write file parts of the result's artifacts into `dir`")
	fl.BoolVar(&f.opts.fail, "fail", false, "exit 6 when the task fails, is rejected or canceled; 7 when it needs input or auth")
	cmd.MarkFlagsMutuallyExclusive("json", "parts", "message-file")
	cmd.MarkFlagsMutuallyExclusive("stream", "immediate", "blocking")
	addDevtoolFlags(cmd, &o.dt, true)
	addPushSendFlags(cmd, &o.push)
	addWaitFlags(cmd, &f.opts.wait)
	_ = cmd.MarkFlagFilename("file")                 // cannot fail: the flag exists
	_ = cmd.MarkFlagFilename("message-file", "json") // cannot fail: the flag exists
	_ = cmd.MarkFlagDirname("save")                  // cannot fail: the flag exists
	return cmd
}

func (o *sendOptions) request() (*a2a.SendMessageRequest, error) {
	msg, err := message.Build(&o.msg, o.f.io.In)
	if err != nil {
		return nil, err
	}
	o.dt.applySettings(msg)
	req := &a2a.SendMessageRequest{Message: msg, Tenant: o.f.opts.Tenant}
	if o.immediate || o.history >= 0 {
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: o.immediate}
		if o.history >= 0 {
			h := o.history
			req.Config.HistoryLength = &h
		}
	}
	if o.push.url != "" {
		o.push.attach(req, o.push.url, o.push.token)
	}
	return req, nil
}

func runSend(ctx context.Context, o *sendOptions) error {
	if len(o.dt.answers) > 0 {
		return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
			return o.sendAnswers(ctx, c)
		})
	}
	req, err := o.request()
	if err != nil {
		return err
	}
	if req.Message.TaskID != "" {
		o.followUp = &follow.FollowUp{MsgID: req.Message.ID}
		return rejectedTask(string(req.Message.TaskID), o.sendTo(ctx, req))
	}
	return o.sendTo(ctx, req)
}

// rejectedTask adds to a protocol error the agent answered a message to an existing task with (not found, ended, a
// context that does not match) that no task was started in its place, and where to see the agent's answer whole (the
// a2a-cli specification, §8.1). A task followed after all (a refusal at auth-required, a wait that ended) keeps the
// hint that names it.
func rejectedTask(id string, err error) error {
	var live *follow.LiveTaskError
	if errors.Is(err, follow.ErrStillWaitsForCredentials) || errors.As(err, &live) {
		return err // the agent took the task up (after a refusal, or before the wait ended): its hint stands
	}
	for _, pe := range client.ProtocolErrors {
		if errors.Is(err, pe.Err) {
			return client.WithHint(err, fmt.Sprintf("the agent rejected --task %s; no new task was started (--debug shows its answer on the wire)", termsafe.ShellQuote(id)))
		}
	}
	return err
}

// sendTo sends req to the agent and follows what it starts.
func (o *sendOptions) sendTo(ctx context.Context, req *a2a.SendMessageRequest) error {
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		ctx, cancel := o.f.waits().Context(ctx)
		defer cancel()
		prior := o.authPrior(ctx, c, req) // send_auth.go
		sent := time.Now()
		if err := o.send(ctx, c, req); err != nil {
			return o.afterRefusal(ctx, c, req, prior, sent, err)
		}
		return nil
	})
}

// send sends the message the way the user and the card ask: by a stream, by SendMessage and polling, or with
// --push.
func (o *sendOptions) send(ctx context.Context, c *client.Conn, req *a2a.SendMessageRequest) error {
	if o.push.own || o.push.url != "" {
		if err := requirePush(c); err != nil { // canonical_cmds.go
			return err
		}
	}
	if o.push.own {
		return o.sendPush(ctx, c, req)
	}
	if o.stream || o.streamsTurn(c) {
		return o.sendTurn(ctx, c, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
			return o.watchStream(c.SendStreamingMessage(ctx, req))
		})
	}
	if o.waitsByStream(c) && !o.blocking {
		// The stream names the task at once and follows it in one call: a wait that ends early (--wait, Ctrl-C,
		// a lost agent) can say which task goes on, and silence longer than --timeout is a question, not a
		// verdict (docs/CONTRACT.md, "Time"). A blocking SendMessage would name no task until it answered, and a
		// non-blocking one followed by SubscribeToTask costs two calls (three when the task is done by then).
		o.quietStream = true
		sp := o.f.startSpinner("waiting for the agent")
		o.progress = func(t *a2a.Task) { sp.Set(spinnerTask(t)) }
		err := o.sendTurn(ctx, c, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
			return o.watchStream(c.SendStreamingMessage(ctx, req))
		})
		sp.Stop()
		// An event came: the agent has the message, whatever happens next.
		if o.sawEvent || !streamRefused(err) {
			return err
		}
		// A card that says the agent streams when it does not: nothing was sent, so send it the other way.
		o.f.log.Printf("the agent refused the stream (%v): sending with SendMessage", err)
		o.quietStream = false
	}
	return o.sendUnary(ctx, c, req)
}

// watchStream passes a stream on and notes whether an event came (sawEvent).
func (o *sendOptions) watchStream(events iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		for ev, err := range events {
			o.sawEvent = o.sawEvent || err == nil
			if !yield(ev, err) {
				return
			}
		}
	}
}

// streamRefused reports whether a streaming call failed because the agent does not stream at all (a method or route
// it does not know, an unsupported operation), before it took the message.
func streamRefused(err error) bool {
	var he *client.HTTPStatusError
	if errors.As(err, &he) {
		return he.Code == http.StatusNotFound || he.Code == http.StatusMethodNotAllowed || he.Code == http.StatusNotImplemented
	}
	return errors.Is(err, a2a.ErrMethodNotFound) || errors.Is(err, a2a.ErrUnsupportedOperation)
}

// sendUnary is a send by SendMessage: to an agent that does not stream, it asks for the task at once and polls it
// until it settles; with --immediate it prints what the agent answers at once.
func (o *sendOptions) sendUnary(ctx context.Context, c *client.Conn, req *a2a.SendMessageRequest) error {
	if !o.immediate && !o.blocking {
		// A blocking call would name no task until it answers and would fail a task longer than --timeout, so ask
		// for the task at once and poll it (docs/CONTRACT.md, "Time"); --wait and Ctrl-C then give up on a task they can
		// name.
		immediately(req)
	}
	sp := o.f.startSpinner("waiting for the agent")
	defer sp.Stop()
	res, err := client.Unary(ctx, c, func(ctx context.Context) (a2a.SendMessageResult, error) {
		return c.SendMessage(ctx, req)
	})
	if err != nil {
		sp.Stop()
		err = follow.Expired(ctx, err)
		if errors.Is(err, client.ErrTimeout) && !errors.Is(err, follow.ErrWaitExpired) && !o.immediate {
			// The agent held the call although it was asked to answer at once: it names no task until it
			// answers, and may still be working on one.
			err = o.heldHint(err)
		}
		return err
	}
	o.sawEvent = true // the agent took the message
	task, _ := res.(*a2a.Task)
	stale := !o.immediate && o.followUp.Stale(task)
	if task != nil && !o.immediate && (!follow.Settled(task.Status.State) || stale) {
		// A non-blocking agent answered before the task was done, or with the task as it stood before the message
		// (an a2a-js agent's first event on a follow-up): wait for it as the user asked.
		o.f.log.Printf("task %s is %s: polling until it ends", task.ID, shortState(task.Status.State))
		sp.Set(spinnerTask(task))
		state := task.Status.State // the last state polling saw, for the message when the wait ends
		onChange := func(t *a2a.Task) {
			state = t.Status.State
			sp.Set(spinnerTask(t))
		}
		var final *a2a.Task
		if stale {
			final, err = o.f.env().PollTaskPast(ctx, c, task, onChange)
		} else {
			final, err = o.f.env().PollTask(ctx, c, task.ID, task.Status.State, onChange)
		}
		sp.Stop()
		if err != nil {
			return o.f.env().GiveUp(o.url, task.ID, state, false, err)
		}
		res = final
	}
	sp.Stop()
	return o.printAnswer(res)
}

// immediately asks the agent to answer a send with the task at once (ReturnImmediately), not when it is done.
func immediately(req *a2a.SendMessageRequest) {
	if req.Config == nil {
		req.Config = &a2a.SendMessageConfig{}
	}
	req.Config.ReturnImmediately = true
}

// heldHint explains a SendMessage that outlived --timeout: a blocking one (--blocking), or one the agent held
// although it was asked to answer at once.
func (o *sendOptions) heldHint(err error) error {
	if o.blocking {
		return client.WithHint(err, fmt.Sprintf("the agent may still be working on the task; without --blocking, send follows a task however long it takes; find it with: a2a list tasks %s", o.f.env().Ref(o.url)))
	}
	return client.WithHint(err, fmt.Sprintf("the agent held the call past --timeout and may still be working on the task; raise --timeout, or find the task with: a2a list tasks %s", o.f.env().Ref(o.url)))
}

// printAnswer prints the answer of a non-streamed send, saves its files and reports its outcome.
func (o *sendOptions) printAnswer(res a2a.SendMessageResult) error {
	task, _ := res.(*a2a.Task)
	if !o.f.failReplacesResult(task) {
		if err := o.f.printer().Result(res); err != nil {
			return err
		}
	}
	if task != nil {
		if err := follow.SaveFiles(o.f.io.Err, o.save, task.Artifacts); err != nil {
			return err
		}
	}
	return o.f.outcome(o.url, task)
}

// followTask prints the events of a task as run (a stream or polling, for subscribe) sees them and reports the
// outcome at its end. Tool calls of a coding agent left waiting for permission are listed with the commands that
// answer them.
func (f *factory) followTask(ctx context.Context, c *client.Conn, agentURL, save string, run func(*follow.Turn) error) error {
	p := f.printer()
	t := f.newTurn(c, agentURL, &devtoolOptions{answerTimeout: defaultAnswerTimeout}, p)
	t.Recover = true
	t.View.Light = true // printed as it comes; --save writes as it comes
	err := f.runSaving(t, p, save, run)
	if err != nil {
		return err
	}
	if t.Stopped {
		// Not our turn to hold: the connection that started it belongs to another process.
		return f.stopAtPrompt(ctx, t, false)
	}
	return f.outcome(agentURL, t.View.Task)
}
