package coder

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/devtool/devtooltest"
)

// The decisions of a coding-agent turn on recorded event sequences of the real Gemini CLI A2A server and of the
// RFC shape (internal/devtool/testdata): what is answered, how, and when the turn stops at the prompt.

func feed(t *testing.T, s *devtool.Session, name string) {
	t.Helper()
	events, err := devtooltest.Load(filepath.Join("..", "devtool", "testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		s.Apply(e)
	}
}

type sent struct {
	callID string
	part   *a2a.Part
}

// scripted is a Prompts over the capture first whose Send records the answer and plays the capture then.
func scripted(t *testing.T, first, then string) (*Prompts, *[]sent) {
	s := devtool.NewSession()
	feed(t, s, first)
	var got []sent
	p := &Prompts{Session: s, Send: func(_ context.Context, callID string, part *a2a.Part) error {
		got = append(got, sent{callID, part})
		if then != "" {
			feed(t, s, then)
		}
		return nil
	}}
	return p, &got
}

func invalid(format string, args ...any) error { return fmt.Errorf("usage: "+format, args...) }

func TestPromptsPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, first, then string
		approve, reject   bool
		wantAnswer        string // a substring of the answer part's JSON
	}{
		{"gemini approve", "approve-write-1", "approve-write-2", true, false, "proceed_once"},
		{"gemini reject", "reject-write-1", "reject-write-2", false, true, "cancel"},
		{"gemini shell", "approve-shell-1", "approve-shell-2", true, false, "proceed_once"},
		{"rfc approve", "rfc-approve-1", "", true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, got := scripted(t, tt.first, tt.then)
			pending := p.Unanswered()
			if len(pending) != 1 {
				t.Fatalf("before: %d calls wait, want 1", len(pending))
			}
			p.Approve, p.Reject = tt.approve, tt.reject
			if err := p.Run(context.Background(), invalid); err != nil {
				t.Fatal(err)
			}
			if len(*got) != 1 || (*got)[0].callID != pending[0].ID {
				t.Fatalf("sent %+v, want one answer to %s", *got, pending[0].ID)
			}
			if b, _ := (*got)[0].part.MarshalJSON(); !strings.Contains(string(b), tt.wantAnswer) {
				t.Errorf("answer %s lacks %q", b, tt.wantAnswer)
			}
			if p.Stopped || len(p.Unanswered()) != 0 {
				t.Errorf("after: stopped %v, %d waiting", p.Stopped, len(p.Unanswered()))
			}
		})
	}
}

// TestPromptsNobodyToAsk stops at the prompt: no flag, no terminal.
func TestPromptsNobodyToAsk(t *testing.T) {
	t.Parallel()
	p, got := scripted(t, "approve-write-1", "approve-write-2")
	if err := p.Run(context.Background(), invalid); err != nil {
		t.Fatal(err)
	}
	if !p.Stopped || len(*got) != 0 || len(p.Unanswered()) != 1 {
		t.Fatalf("stopped %v, sent %d, waiting %d: want a stop at the prompt", p.Stopped, len(*got), len(p.Unanswered()))
	}
}

// TestPromptsAsk asks on the "terminal": a bad answer is asked again, "n" rejects, and the flush comes first.
func TestPromptsAsk(t *testing.T) {
	t.Parallel()
	p, got := scripted(t, "reject-write-1", "reject-write-2")
	a := &scriptedAsker{answers: []string{"maybe", "n"}}
	flushed := 0
	p.Ask, p.Flush = a, func() error { flushed++; return nil }
	if err := p.Run(context.Background(), invalid); err != nil {
		t.Fatal(err)
	}
	if len(a.questions) != 2 || flushed != 1 || len(*got) != 1 {
		t.Fatalf("questions %q, flushed %d, sent %d", a.questions, flushed, len(*got))
	}
	if b, _ := (*got)[0].part.MarshalJSON(); !strings.Contains(string(b), "cancel") {
		t.Errorf("answer %s is not a rejection", b)
	}
}

// TestPromptsIgnoredAnswer does not ask again about a call the agent left waiting after the answer.
func TestPromptsIgnoredAnswer(t *testing.T) {
	t.Parallel()
	p, got := scripted(t, "approve-write-1", "") // the agent says nothing after the answer
	p.Approve = true
	if err := p.Run(context.Background(), invalid); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 1 || len(p.Unanswered()) != 0 {
		t.Fatalf("sent %d, waiting %d: an answered call must not be answered again", len(*got), len(p.Unanswered()))
	}
}

func TestPromptsAutoExecute(t *testing.T) {
	t.Parallel()
	p, got := scripted(t, "approve-write-1", "")
	p.AutoExecute = true
	if err := p.Run(context.Background(), invalid); err != nil || p.Stopped || len(*got) != 0 {
		t.Fatalf("err %v, stopped %v, sent %d: auto-execute never answers", err, p.Stopped, len(*got))
	}
}

// TestPromptsConfirm answers from a later process: the call is known from the session or stood in for.
func TestPromptsConfirm(t *testing.T) {
	t.Parallel()
	p, got := scripted(t, "approve-write-1", "approve-write-2")
	id := p.Unanswered()[0].ID
	p.Confirm = []Confirm{{CallID: id, Option: "approve"}}
	if err := p.Run(context.Background(), invalid); err != nil || len(*got) != 1 || (*got)[0].callID != id {
		t.Fatalf("err %v, sent %+v", err, *got)
	}

	standIns := 0
	empty := &Prompts{Session: devtool.NewSession(), Confirm: []Confirm{{CallID: "c9", Option: "always"}},
		StandIn: func(id string) *devtool.ToolCall { standIns++; return devtool.StandInCall(id, devtool.Gemini) },
		Send:    func(context.Context, string, *a2a.Part) error { return nil }}
	if err := empty.Run(context.Background(), invalid); err != nil || standIns != 1 {
		t.Fatalf("err %v, stand-ins %d", err, standIns)
	}

	bad := &Prompts{Session: devtool.NewSession(), Confirm: []Confirm{{CallID: "c9", Option: "no-such-option"}},
		StandIn: func(id string) *devtool.ToolCall { return devtool.StandInCall(id, devtool.Gemini) }}
	if err := bad.Run(context.Background(), invalid); err == nil || !strings.Contains(err.Error(), "usage: invalid --confirm c9=no-such-option") {
		t.Fatalf("err = %v, want the invalid --confirm", err)
	}
}

func TestPromptsSendError(t *testing.T) {
	t.Parallel()
	p, _ := scripted(t, "approve-write-1", "")
	boom := errors.New("connection lost")
	p.Approve = true
	p.Send = func(context.Context, string, *a2a.Part) error { return boom }
	if err := p.Run(context.Background(), invalid); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the send error", err)
	}
}
