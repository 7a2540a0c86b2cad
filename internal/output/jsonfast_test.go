package output

import (
	"bytes"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// slowEventJSON is the general encoding of an event, the one the fast path must equal.
func slowEventJSON(t testing.TB, e a2a.Event) string {
	t.Helper()
	var buf bytes.Buffer
	if err := New(&buf, Options{Format: JSON}).writeJSON(a2a.StreamResponse{Event: e}); err != nil {
		t.Fatalf("writeJSON: %v", err)
	}
	return buf.String()
}

func fastEventJSON(t testing.TB, e a2a.Event) string {
	t.Helper()
	var buf bytes.Buffer
	if err := New(&buf, Options{Format: JSON}).Event(e); err != nil {
		t.Fatalf("Event: %v", err)
	}
	return buf.String()
}

func TestArtifactUpdateJSON(t *testing.T) {
	t.Parallel()
	ev := func(parts ...*a2a.Part) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{TaskID: "t-1", ContextID: "c<1>", Append: true,
			Artifact: &a2a.Artifact{ID: "a&1", Parts: a2a.ContentParts(parts)}}
	}
	withPart := func(f func(*a2a.Part)) *a2a.TaskArtifactUpdateEvent {
		p := a2a.NewTextPart("x")
		f(p)
		return ev(p)
	}
	named := ev(a2a.NewTextPart("line\n"))
	named.Artifact.Name, named.Append, named.LastChunk = "out", false, true
	meta := ev(a2a.NewTextPart("x"))
	meta.Metadata = map[string]any{"k": 1}
	described := ev(a2a.NewTextPart("x"))
	described.Artifact.Description = "d"
	noParts := ev()
	noParts.Artifact.Parts = nil
	tests := map[string]a2a.Event{
		"plain line":       ev(a2a.NewTextPart("hello world\n")),
		"named, last":      named,
		"empty text":       ev(a2a.NewTextPart("")),
		"escapes":          ev(a2a.NewTextPart("\"quoted\" \\ <b> & \t\x00\x1f\x7f é € 😀 \u2028\u2029 \u0085 \u202e")),
		"invalid utf-8":    ev(a2a.NewTextPart("ok \xff\xfe \xe2\x82")),
		"raw bytes":        ev(a2a.NewRawPart([]byte{0, 1, 0xff, '\n'})),
		"text and raw":     ev(a2a.NewTextPart("a"), a2a.NewRawPart([]byte("b"))),
		"no parts":         noParts,
		"empty parts":      ev(),
		"metadata":         meta,
		"description":      described,
		"data part":        ev(a2a.NewDataPart(map[string]any{"a": 1})),
		"file url":         ev(a2a.NewFileURLPart("https://x/y", "text/plain")),
		"part filename":    withPart(func(p *a2a.Part) { p.Filename = "f" }),
		"part media type":  withPart(func(p *a2a.Part) { p.MediaType = "text/plain" }),
		"part metadata":    withPart(func(p *a2a.Part) { p.Metadata = map[string]any{"m": "v"} }),
		"no artifact":      &a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c"},
		"status, not fast": &a2a.TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}},
	}
	for name, e := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got, want := fastEventJSON(t, e), slowEventJSON(t, e); got != want {
				t.Errorf("Event JSON\n got %s\nwant %s", got, want)
			}
		})
	}
}

// FuzzArtifactUpdateJSON holds the fast encoding of stream chunks to a2a-go's encoding for any text, bytes, ids
// and flags.
func FuzzArtifactUpdateJSON(f *testing.F) {
	f.Add("line 1\n", []byte{0xff}, "a-1", "", "c", "t", true, false)
	f.Add("<&>\u2028\x7f\xff", []byte(nil), "a", "name\n", "c\"", "t\\", false, true)
	f.Fuzz(func(t *testing.T, text string, raw []byte, id, name, ctx, task string, appendChunk, last bool) {
		parts := a2a.ContentParts{a2a.NewTextPart(text)}
		if len(raw) > 0 {
			parts = append(parts, a2a.NewRawPart(raw))
		}
		e := &a2a.TaskArtifactUpdateEvent{TaskID: a2a.TaskID(task), ContextID: ctx, Append: appendChunk, LastChunk: last,
			Artifact: &a2a.Artifact{ID: a2a.ArtifactID(id), Name: name, Parts: parts}}
		if got, want := fastEventJSON(t, e), slowEventJSON(t, e); got != want {
			t.Fatalf("Event JSON\n got %s\nwant %s", got, want)
		}
	})
}
