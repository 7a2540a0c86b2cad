package tasks

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// manyArtifacts answers every turn as echo does: a new artifact carrying the message's parts, and a status message.
type manyArtifacts struct{}

func (manyArtifacts) Reply(*a2a.Message) *a2a.Message { return nil }

func (manyArtifacts) Run(_ context.Context, t *Turn) (a2a.TaskState, *a2a.Message) {
	t.Emit(a2a.NewArtifactEvent(t.Info, t.Message.Parts...))
	return a2a.TaskStateCompleted, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("ok"))
}

// TestTaskBudgetManyTurns plays a client that sends many messages of tiny parts to one task (a v0.3 caller reopens
// it each time): the history and the artifacts stay within their count and byte bounds, overhead counted, the
// newest are kept, the task's metadata counts what went, and the running accounts match what is stored.
func TestTaskBudgetManyTurns(t *testing.T) {
	t.Parallel()
	const budget = 64 << 10
	s := NewStore(0, 0, nil)
	s.maxArtifactBytes = budget
	ts := NewRunner(s, manyArtifacts{}, nil)
	t.Cleanup(func() { _ = ts.Shutdown(context.Background()) })
	var id a2a.TaskID
	const turns = 1500
	for i := range turns {
		parts := []*a2a.Part{a2a.NewTextPart(fmt.Sprint(i)), a2a.NewTextPart(""), a2a.NewTextPart("")}
		msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
		msg.TaskID = id
		sub := NewSubscriber()
		snap, err := ts.Start(msg, sub, StartOptions{Reopen: true})
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		id = snap.ID
		for range sub.Events() {
		}
	}
	got, err := s.view(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var hist int64
	for _, m := range got.History {
		hist += messageCost(m)
	}
	if len(got.History) > maxHistory || hist > budget {
		t.Errorf("history keeps %d messages costing %d bytes, want at most %d and %d", len(got.History), hist, maxHistory, budget)
	}
	if art := artifactsSize(got.Artifacts); len(got.Artifacts) > maxArtifacts || art > budget {
		t.Errorf("%d artifacts cost %d bytes, want at most %d and %d", len(got.Artifacts), art, maxArtifacts, budget)
	}
	// Without the bounds: 1500 messages and 1500 artifacts of three parts, about 1.5 MB of overhead.
	if len(got.History) < 100 || len(got.Artifacts) < 100 {
		t.Errorf("kept %d messages and %d artifacts: the budget should hold a few hundred", len(got.History), len(got.Artifacts))
	}
	last := got.History[len(got.History)-1]
	if last.Parts[0].Text() != fmt.Sprint(turns-1) {
		t.Errorf("the newest message kept is %q, want the last sent", last.Parts[0].Text())
	}
	if got.Artifacts[len(got.Artifacts)-1].Parts[0].Text() != fmt.Sprint(turns-1) {
		t.Error("the newest artifact was not kept")
	}
	hd, _ := got.Metadata[historyDroppedKey].(int64)
	ad, _ := got.Metadata[artifactsDroppedKey].(int64)
	if int(hd)+len(got.History) != turns || int(ad)+len(got.Artifacts) != turns {
		t.Errorf("metadata counts %d messages and %d artifacts dropped; with %d and %d kept, want %d of each in all",
			hd, ad, len(got.History), len(got.Artifacts), turns)
	}
	s.mu.Lock()
	r := s.tasks[id]
	if r.histBytes != hist || r.artBytes != artifactsSize(r.task.Artifacts) {
		t.Errorf("accounts: history %d (stored %d), artifacts %d (stored %d)", r.histBytes, hist, r.artBytes, artifactsSize(r.task.Artifacts))
	}
	s.mu.Unlock()
}

// TestTaskBudgetArtifactCount: an agent that makes many small artifacts in one turn keeps at most maxArtifacts.
func TestTaskBudgetArtifactCount(t *testing.T) {
	t.Parallel()
	s := NewStore(0, 0, nil)
	s.maxArtifactBytes = 0 // no byte bound: the count alone
	r, err := s.insert(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
	if err != nil {
		t.Fatal(err)
	}
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	s.mu.Lock()
	for i := range 3 * maxArtifacts {
		s.applyLocked(r, a2a.NewArtifactEvent(info, a2a.NewTextPart(fmt.Sprint(i))))
	}
	s.mu.Unlock()
	got, err := s.view("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Artifacts); n != maxArtifacts || got.Artifacts[n-1].Parts[0].Text() != fmt.Sprint(3*maxArtifacts-1) {
		t.Errorf("kept %d artifacts, the last %q; want %d, the newest last", n, got.Artifacts[n-1].Parts[0].Text(), maxArtifacts)
	}
	if d := got.Metadata[artifactsDroppedKey]; d != int64(2*maxArtifacts) {
		t.Errorf("metadata[%q] = %v, want %d", artifactsDroppedKey, d, 2*maxArtifacts)
	}
}

// TestHistoryMessageTinyParts: a message of a hundred thousand empty parts (about 1.2 MB of JSON, 13 MB of parts
// in memory) is kept as the parts its budget pays for, overhead counted, and one note for the rest.
func TestHistoryMessageTinyParts(t *testing.T) {
	t.Parallel()
	const budget = 64 << 10
	s := NewStore(0, 0, nil)
	s.maxArtifactBytes = budget
	parts := make([]*a2a.Part, 100_000)
	for i := range parts {
		parts[i] = a2a.NewTextPart("")
	}
	parts[0] = a2a.NewTextPart("first")
	kept := s.historyMessage(a2a.NewMessage(a2a.MessageRoleUser, parts...))
	if c := messageCost(kept); c > budget+partOverhead+100 {
		t.Errorf("the kept message costs %d bytes, want about %d at most", c, budget)
	}
	n := len(kept.Parts)
	if kept.Parts[0].Text() != "first" || !strings.HasPrefix(kept.Parts[n-1].Text(), fmt.Sprintf("[%d parts, 0 bytes not kept", 100_000-n+1)) {
		t.Errorf("kept %d parts: first %q, last %q", n, kept.Parts[0].Text(), kept.Parts[n-1].Text())
	}
}
