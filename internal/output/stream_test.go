package output

import (
	"bytes"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func chunkEvent(id a2a.ArtifactID, name string, appendChunk, last bool, parts ...*a2a.Part) *a2a.TaskArtifactUpdateEvent {
	return &a2a.TaskArtifactUpdateEvent{
		TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID, Append: appendChunk, LastChunk: last,
		Artifact: &a2a.Artifact{ID: id, Name: name, Parts: parts},
	}
}

func statusEvent(state a2a.TaskState) *a2a.TaskStatusUpdateEvent {
	return &a2a.TaskStatusUpdateEvent{TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID, Status: a2a.TaskStatus{State: state}}
}

// TestStreamText covers how artifact chunks join up in text mode.
func TestStreamText(t *testing.T) {
	t.Parallel()
	text := a2a.NewTextPart
	tests := []struct {
		name   string
		events []a2a.Event
		width  int
		want   string
	}{
		{"chunks concatenate, Close ends the line",
			[]a2a.Event{chunkEvent("a", "out", false, false, text("ab")), chunkEvent("a", "out", true, false, text("cd"))}, 0,
			"Artifact: out\n  abcd\n\n"},
		{"newline inside a chunk indents the next line",
			[]a2a.Event{chunkEvent("a", "", false, false, text("one\ntw")), chunkEvent("a", "", true, true, text("o\n\nthree"))}, 0,
			"Artifact: a\n  one\n  two\n\n  three\n\n"},
		{"another artifact starts a new block",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("1")), chunkEvent("b", "y", true, false, text("2"))}, 0,
			"Artifact: x\n  1\n\nArtifact: y\n  2\n\n"},
		{"status between chunks ends the line and the block",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("1")), statusEvent(a2a.TaskStateWorking), chunkEvent("a", "x", true, false, text("2"))}, 0,
			"Artifact: x\n  1\n\nState: working\nArtifact: x\n  2\n\n"},
		{"append=false restarts the artifact",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("1")), chunkEvent("a", "x", false, false, text("2"))}, 0,
			"Artifact: x\n  1\n\nArtifact: x\n  2\n\n"},
		{"a replacement that extends shows only the rest",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("chunk 1 ")), chunkEvent("a", "x", false, true, text("chunk 1 chunk 2"))}, 0,
			"Artifact: x\n  chunk 1 chunk 2\n\n"},
		{"a replacement the same as shown shows nothing",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("one")), chunkEvent("a", "x", false, false, text("one"))}, 0,
			"Artifact: x\n  one\n\n"},
		{"a replacement after another event shows the rest under the label",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("1")), statusEvent(a2a.TaskStateWorking), chunkEvent("a", "x", false, false, text("12"))}, 0,
			"Artifact: x\n  1\n\nState: working\nArtifact: x\n  2\n\n"},
		{"a snapshot after chunks (a resubscription) shows only what is new",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("one ")), chunkEvent("a", "x", true, false, text("two")),
				&a2a.Task{ID: taskInfo.TaskID, ContextID: taskInfo.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
					Artifacts: []*a2a.Artifact{{ID: "a", Name: "x", Parts: a2a.ContentParts{text("one two"), text(" three")}}}},
				chunkEvent("a", "x", false, false, text("one two three"))}, 0,
			"Artifact: x\n  one two\n\nTask ID: task-0001\nContext ID: ctx-0001\nState: working\nArtifact: x\n   three\n\n"},
		{"file chunk gets its own line",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("see"), a2a.NewRawPart([]byte("abc")), text("done"))}, 0,
			"Artifact: x\n  see\n  [file - application/octet-stream, 3 bytes]\n  done\n\n"},
		{"message event",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("1")), fixtureMessage(a2a.MessageRoleAgent, "m1", text("hi"))}, 0,
			"Artifact: x\n  1\n\nMessage ID: m1\nContext ID: ctx-0001\nTask ID: task-0001\nRole: agent\nContent:\n  hi\n\n"},
		{"wrap at width without leading space",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("aaaa bbbb cccc"))}, 8,
			"Artifact: x\n  aaaa\n  bbbb\n  cccc\n\n"},
		{"hard wrap of a word longer than a line",
			[]a2a.Event{chunkEvent("a", "x", false, false, text("abcdefghij k"))}, 8,
			"Artifact: x\n  abcdef\n  ghij k\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			p := New(&buf, Options{Format: Text, Width: tt.width})
			for i, e := range tt.events {
				if err := p.Event(e); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("stream output (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkEventJSON renders one appended artifact chunk as a JSON line.
func BenchmarkEventJSON(b *testing.B) {
	benchEvent(b, Options{Format: JSON})
}

// BenchmarkEventText renders one appended artifact chunk as streamed text.
func BenchmarkEventText(b *testing.B) {
	benchEvent(b, Options{Format: Text, Color: true, Width: 100})
}

func benchEvent(b *testing.B, o Options) {
	var buf bytes.Buffer
	p := New(&buf, o)
	e := chunkEvent("art-0001", "answer", true, false, a2a.NewTextPart("a typical token chunk, "))
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := p.Event(e); err != nil {
			b.Fatal(err)
		}
	}
}
