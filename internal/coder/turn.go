package coder

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
)

// Confirm is one --confirm CALLID=OPTION: an answer given on the command line, by a later process.
type Confirm struct {
	CallID, Option string
}

// Prompts answers the permission prompts of one coding-agent turn: first the --confirm answers, in the order given,
// then every call that waits, by policy (Approve, Reject) or by asking. It decides; Send delivers an answer and
// streams what follows into Session, which is where the next waiting call shows up. A call is answered at most
// once: an agent that ignored an answer is not asked again and again.
type Prompts struct {
	// Session follows the turn's development-tool traffic.
	Session *devtool.Session
	// Approve and Reject answer every call (--approve, --reject); AutoExecute means the agent was told to run
	// tools at once: it still announces confirmations, but never waits for them.
	Approve, Reject, AutoExecute bool
	Confirm                      []Confirm
	// Ask asks on the terminal; nil when nobody can be asked.
	Ask Asker
	// Flush ends a partial output line before a question (nil: nothing to end).
	Flush func() error
	// StandIn is the call a --confirm answer stands for when Session never saw it (devtool.StandInCall in the
	// shape the agent speaks).
	StandIn func(id string) *devtool.ToolCall
	// Send delivers part as the answer to call id.
	Send func(ctx context.Context, callID string, part *a2a.Part) error

	handled map[string]bool
	// Stopped is set when a call waits that nobody answers: the turn stops at the prompt.
	Stopped bool
}

// Run sends the --confirm answers, then answers waiting calls until none waits or one waits that nobody answers
// (Stopped). An answer the call's dialect cannot express is reported through invalid (the CLI's usage error).
func (p *Prompts) Run(ctx context.Context, invalid func(format string, args ...any) error) error {
	for _, a := range p.Confirm {
		if p.handled[a.CallID] {
			continue
		}
		call := p.knownCall(a.CallID)
		choice, optionID := ParseOption(a.Option)
		part, err := devtool.Answer(call, choice, optionID)
		if err != nil {
			return invalid("invalid --confirm %s=%s: %v", a.CallID, a.Option, err)
		}
		if err := p.send(ctx, a.CallID, part); err != nil {
			return err
		}
	}
	for {
		pending := p.Unanswered()
		if len(pending) == 0 {
			return nil
		}
		call := pending[0]
		choice, optionID, ok, err := p.decide(ctx, call)
		if err != nil {
			return err
		}
		if !ok {
			p.Stopped = true
			return nil
		}
		part, err := devtool.Answer(call, choice, optionID)
		if err != nil {
			return invalid("answer %s: %v", call.ID, err)
		}
		if err := p.send(ctx, call.ID, part); err != nil {
			return err
		}
	}
}

func (p *Prompts) send(ctx context.Context, callID string, part *a2a.Part) error {
	if p.handled == nil {
		p.handled = map[string]bool{}
	}
	p.handled[callID] = true
	if p.Send == nil {
		return fmt.Errorf("answer %s: nowhere to send it", callID)
	}
	return p.Send(ctx, callID, part)
}

// Unanswered is the session's waiting calls minus those answered already.
func (p *Prompts) Unanswered() []*devtool.ToolCall {
	if p.AutoExecute {
		return nil
	}
	var out []*devtool.ToolCall
	for _, c := range p.Session.Pending() {
		if !p.handled[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// decide picks the answer for call from the policy, or asks. ok is false when nobody can answer.
func (p *Prompts) decide(ctx context.Context, call *devtool.ToolCall) (devtool.Choice, string, bool, error) {
	switch {
	case p.Approve:
		return devtool.ApproveOnce, "", true, nil
	case p.Reject:
		return devtool.Reject, "", true, nil
	case p.Ask == nil:
		return "", "", false, nil
	}
	if p.Flush != nil {
		if err := p.Flush(); err != nil {
			return "", "", false, err
		}
	}
	return AskPermission(ctx, p.Ask, call)
}

// knownCall is the waiting call with id from the session or, for an answer from a later process, its stand-in.
func (p *Prompts) knownCall(id string) *devtool.ToolCall {
	for _, c := range p.Session.Pending() {
		if c.ID == id {
			return c
		}
	}
	if p.StandIn != nil {
		return p.StandIn(id)
	}
	return devtool.StandInCall(id, devtool.Plain)
}
