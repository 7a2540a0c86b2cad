package hotpath

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// checkWire compares appendStreamResponse with json.Marshal of the same event.
func checkWire(t *testing.T, name string, ev a2a.Event) {
	t.Helper()
	want, wantErr := json.Marshal(a2a.StreamResponse{Event: ev})
	got, gotErr := appendStreamResponse(nil, ev)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%s: error %v, json.Marshal's %v", name, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s: appendStreamResponse differs from json.Marshal (-want +got):\n%s", name, diff)
	}
}

func TestWireFixtures(t *testing.T) {
	t.Parallel()
	ts := time.Date(2026, 3, 4, 5, 6, 7, 890123000, time.UTC)
	east := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 5*3600+30*60))
	text := a2a.NewTextPart("line <1> & \"two\"\n\t\x01\u2028 é \xff")
	msg := &a2a.Message{ID: "m1", ContextID: "c", TaskID: "t", Role: a2a.MessageRoleUser,
		Parts: a2a.ContentParts{text, a2a.NewRawPart([]byte{0, 1, 2, 250}), a2a.NewDataPart(map[string]any{"b": 1, "a": []any{true, nil}}),
			a2a.NewFileURLPart("http://x/y?a=1&b=2", "text/html"), {Content: a2a.Raw(nil)}, {Content: a2a.URL("")},
			{Content: a2a.Data{}, Filename: "f.json", Metadata: map[string]any{"k": "v"}}, {}, nil},
		Extensions: []string{"urn:a"}, ReferenceTasks: []a2a.TaskID{"r1", "r2"}, Metadata: map[string]any{"z": 1.5, "a": "<"}}
	cases := []struct {
		name string
		ev   a2a.Event
	}{
		{"message", msg},
		{"empty message", &a2a.Message{}},
		{"nil parts vs empty", &a2a.Message{ID: "x", Parts: a2a.ContentParts{}, Role: a2a.MessageRoleAgent}},
		{"pointer content", &a2a.Message{Parts: a2a.ContentParts{{Content: new(a2a.Text)}}}},
		{"status", &a2a.TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts}}},
		{"status offset", &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskStateFailed, Timestamp: &east, Message: msg}, Metadata: map[string]any{"m": 1}}},
		{"status bad year", &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{Timestamp: ptr(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))}}},
		{"artifact chunk", &a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Append: true, LastChunk: true,
			Artifact: &a2a.Artifact{ID: "a", Name: "out", Description: "d", Parts: a2a.ContentParts{a2a.NewTextPart("x\n")}}}},
		{"artifact nil", &a2a.TaskArtifactUpdateEvent{}},
		{"task", &a2a.Task{ID: "t", ContextID: "c", History: []*a2a.Message{msg, nil}, Metadata: map[string]any{"q": []int{1}},
			Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{text}, Extensions: []string{"e"}, Metadata: map[string]any{"x": "y"}}, nil},
			Status:    a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &ts}}},
		{"nil task", (*a2a.Task)(nil)},
		{"nil event", nil},
		{"unmarshalable data", &a2a.Message{Parts: a2a.ContentParts{a2a.NewDataPart(func() {})}}},
	}
	for _, c := range cases {
		checkWire(t, c.name, c.ev)
	}
}

func ptr[T any](v T) *T { return &v }

// randomEvent builds an event from r covering every field the encoder writes.
func randomEvent(r *rand.Rand) a2a.Event {
	switch r.IntN(4) {
	case 0:
		return randomMessage(r)
	case 1:
		return &a2a.TaskStatusUpdateEvent{TaskID: a2a.TaskID(randomString(r)), ContextID: randomString(r),
			Status: randomStatus(r), Metadata: randomMeta(r)}
	case 2:
		return &a2a.TaskArtifactUpdateEvent{TaskID: a2a.TaskID(randomString(r)), ContextID: randomString(r),
			Append: r.IntN(2) == 0, LastChunk: r.IntN(2) == 0, Artifact: randomArtifact(r), Metadata: randomMeta(r)}
	}
	t := &a2a.Task{ID: a2a.TaskID(randomString(r)), ContextID: randomString(r), Status: randomStatus(r), Metadata: randomMeta(r)}
	for range r.IntN(3) {
		t.Artifacts = append(t.Artifacts, randomArtifact(r))
	}
	for range r.IntN(3) {
		t.History = append(t.History, randomMessage(r))
	}
	return t
}

func randomStatus(r *rand.Rand) a2a.TaskStatus {
	states := []a2a.TaskState{"", a2a.TaskStateWorking, a2a.TaskStateCompleted, "odd<state>"}
	s := a2a.TaskStatus{State: states[r.IntN(len(states))]}
	if r.IntN(2) == 0 {
		s.Message = randomMessage(r)
	}
	if r.IntN(2) == 0 {
		ts := time.Unix(r.Int64N(1<<34), r.Int64N(1e9)).In(time.FixedZone("z", (r.IntN(48)-24)*1800))
		s.Timestamp = &ts
	}
	return s
}

func randomMessage(r *rand.Rand) *a2a.Message {
	if r.IntN(10) == 0 {
		return nil
	}
	roles := []a2a.MessageRole{"", a2a.MessageRoleUser, a2a.MessageRoleAgent}
	m := &a2a.Message{ID: randomString(r), ContextID: randomString(r), TaskID: a2a.TaskID(randomString(r)),
		Role: roles[r.IntN(3)], Parts: randomParts(r), Metadata: randomMeta(r)}
	for range r.IntN(3) {
		m.Extensions = append(m.Extensions, randomString(r))
		m.ReferenceTasks = append(m.ReferenceTasks, a2a.TaskID(randomString(r)))
	}
	return m
}

func randomArtifact(r *rand.Rand) *a2a.Artifact {
	if r.IntN(10) == 0 {
		return nil
	}
	a := &a2a.Artifact{ID: a2a.ArtifactID(randomString(r)), Name: randomString(r), Description: randomString(r),
		Parts: randomParts(r), Metadata: randomMeta(r)}
	if r.IntN(2) == 0 {
		a.Extensions = []string{randomString(r)}
	}
	return a
}

func randomParts(r *rand.Rand) a2a.ContentParts {
	if r.IntN(8) == 0 {
		return nil
	}
	parts := a2a.ContentParts{}
	for range r.IntN(4) {
		p := &a2a.Part{Filename: randomString(r), MediaType: randomString(r), Metadata: randomMeta(r)}
		switch r.IntN(7) {
		case 0:
			p.Content = a2a.Text(randomString(r))
		case 1:
			p.Content = a2a.Raw(randomString(r))
		case 2:
			p.Content = a2a.Data{Value: randomMeta(r)}
		case 3:
			p.Content = a2a.URL(randomString(r))
		case 4:
			p = nil
		case 5:
			p.Content = a2a.Raw(nil)
		}
		parts = append(parts, p)
	}
	return parts
}

func randomMeta(r *rand.Rand) map[string]any {
	if r.IntN(3) > 0 {
		return nil
	}
	m := map[string]any{}
	for range r.IntN(3) {
		m[randomString(r)] = []any{randomString(r), r.Float64(), r.IntN(2) == 0, nil}
	}
	return m
}

// randomString mixes plain ASCII with every kind of byte the string encoder treats specially.
func randomString(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return ""
	}
	pieces := []string{"a", "hello ", "<", ">", "&", `"`, `\`, "\n", "\t", "\b", "\f", "\r", "\x00", "\x1f", "\x7f",
		"é", "日本", "\u2028", "\u2029", "\xff", "\xe2\x80", "🙂", "/"}
	b := make([]byte, 0, 16)
	for range r.IntN(8) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return string(b)
}

func TestWireRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		ev := randomEvent(r)
		checkWire(t, "random", ev)
		if t.Failed() {
			t.Fatalf("failed at value %d", i)
		}
	}
}

func FuzzWire(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s, s*7+1)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkWire(t, "fuzz", randomEvent(rand.New(rand.NewPCG(a, b))))
	})
}
