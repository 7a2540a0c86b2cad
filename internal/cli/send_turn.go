package cli

import (
	"context"
	"iter"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// checkDevtool validates the coding-agent flags of send and their combinations.
func (o *sendOptions) checkDevtool() error {
	if err := o.dt.check(o.msg.TaskID); err != nil {
		return err
	}
	if o.blocking && (o.dt.approve || o.dt.reject || len(o.dt.confirm) > 0) {
		return client.Usagef("--approve, --reject and --confirm answer permission prompts on a stream: drop --blocking")
	}
	if len(o.dt.answers) == 0 {
		return nil
	}
	if o.msg.HasText || o.msg.JSON != "" || o.msg.Parts != "" || o.msg.File != "" || len(o.msg.Files) > 0 || o.msg.Data != "" {
		return client.Usagef("--confirm sends only the answers: drop the message")
	}
	if o.immediate {
		return client.Usagef("--confirm streams the rest of the turn: drop --immediate")
	}
	return nil
}

// streamsTurn reports whether a send without --stream streams anyway: a coding agent's turn stops for permission
// in the middle, which only a stream shows. That is when a development-tool flag is given or the card declares the
// extension, and the agent streams at all.
func (o *sendOptions) streamsTurn(c *client.Conn) bool {
	if o.immediate || o.blocking || c.Card == nil || !c.Card.Capabilities.Streaming {
		return false
	}
	return o.dt.any() || devtool.CardDeclares(c.Card)
}

// waitsByStream reports whether a send without --stream waits for its task by streaming (docs/CONTRACT.md, "Time"): a
// blocking call would name no task until it answers and would fail a task longer than --timeout. That is when the
// agent streams and the user did not ask for --immediate. A stream carries no history length: with --history, the
// settled task is read once more with it (withHistory).
func (o *sendOptions) waitsByStream(c *client.Conn) bool {
	return !o.immediate && c.Card != nil && c.Card.Capabilities.Streaming
}

// withHistory reads the task a stream settled with the history length the user asked for, as a unary send answers
// it. The streamed task stands when the agent cannot give it (-v says why).
func (o *sendOptions) withHistory(ctx context.Context, c *client.Conn, v *follow.View) {
	if o.history < 0 || v.Task == nil || v.Task.ID == "" {
		return
	}
	h := o.history
	task, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
		return c.GetTask(ctx, &a2a.GetTaskRequest{ID: v.Task.ID, HistoryLength: &h, Tenant: o.f.opts.Tenant})
	})
	if err != nil || task == nil {
		o.f.log.Printf("get task %s with --history %d: %v", v.Task.ID, h, err)
		return
	}
	v.Task = task
}

// terminalAsker asks permission on the terminal: stdin and stderr both are one, and no flag answered already.
func (f *factory) terminalAsker(dt *devtoolOptions) coder.Asker {
	if !f.io.InTTY || !f.io.ErrTTY || dt.approve || dt.reject {
		return nil
	}
	return coder.NewLineAsker(f.io.In, f.io.Err)
}

// sendTurn streams a turn, answering permission prompts. Without --stream and with -o json it prints only the final
// task, as a unary send would.
func (o *sendOptions) sendTurn(ctx context.Context, c *client.Conn, open func(context.Context) iter.Seq2[a2a.Event, error]) error {
	return o.runTurn(ctx, c, func(t *follow.Turn) error { return t.Run(ctx, open) })
}

// sendAnswers is send --task ID --confirm CALLID=OPTION…: a later process answers tool calls and streams the rest of
// the turn.
func (o *sendOptions) sendAnswers(ctx context.Context, c *client.Conn) error {
	return o.runTurn(ctx, c, func(t *follow.Turn) error {
		id := a2a.TaskID(o.msg.TaskID)
		// The task's history tells the dialect, the pending calls and their options; the RFC also wants the context
		// id on the answer. Best effort: without it the card decides the dialect.
		hist := 100
		task, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
			return c.GetTask(ctx, &a2a.GetTaskRequest{ID: id, HistoryLength: &hist, Tenant: o.f.opts.Tenant})
		})
		contextID := o.msg.ContextID
		if err != nil {
			o.f.log.Printf("get task %s: %v", id, err)
		} else if task != nil {
			t.Learn(task)
			if contextID == "" {
				contextID = task.ContextID
			}
		}
		t.View.Task = &a2a.Task{ID: id, ContextID: contextID}
		return t.Run(ctx, nil)
	})
}

func (o *sendOptions) runTurn(ctx context.Context, c *client.Conn, run func(*follow.Turn) error) error {
	p := o.f.printer()
	t := o.f.newTurn(c, o.url, &o.dt, p)
	t.Ask = o.f.terminalAsker(&o.dt)
	t.Recover = true
	t.FollowUp = o.followUp
	resultOnly := !o.stream && (o.f.opts.output == string(output.JSON) || o.quietStream)
	if resultOnly {
		t.Quiet()
	}
	t.View.Light = !resultOnly // printed as it comes; --save writes as it comes
	if resultOnly {
		t.View.Max = c.MaxResponse // held whole, as a unary answer is
	}
	err := o.f.runSaving(t, p, o.save, func(t *follow.Turn) error {
		if o.progress != nil {
			emit := t.Emit
			t.Emit = func(ev a2a.Event) error {
				if t.View.Task != nil {
					o.progress(t.View.Task)
				}
				return emit(ev)
			}
		}
		return run(t)
	})
	if err != nil {
		return err
	}
	if resultOnly {
		o.withHistory(ctx, c, &t.View)
		if err := o.printResult(p, &t.View); err != nil {
			return err
		}
	}
	if t.Stopped {
		return o.f.stopAtPrompt(ctx, t, true)
	}
	return o.f.outcome(o.url, t.View.Task)
}

// runSaving runs the turn t with --save writing the files of what it renders into dir (none when dir is empty), then
// closes the printer p and finishes the files; the first error wins.
func (f *factory) runSaving(t *follow.Turn, p *output.Printer, dir string, run func(*follow.Turn) error) error {
	saver := follow.NewSaver(f.io.Err, dir)
	t.Emit = saver.Wrap(t.Emit)
	err := run(t)
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if serr := saver.Finish(err != nil); err == nil {
		err = serr
	}
	return err
}

func (o *sendOptions) printResult(p *output.Printer, v *follow.View) error {
	if v.Task != nil {
		if o.f.failReplacesResult(v.Task) {
			return nil
		}
		return p.Result(v.Task)
	}
	if v.Message != nil {
		return p.Result(v.Message)
	}
	return nil
}
