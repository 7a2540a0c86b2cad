package output

import (
	"bytes"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestRaw(t *testing.T) {
	t.Parallel()
	binary := a2a.NewRawPart([]byte{0xff, 0x00, '\n', 0xfe})
	data := a2a.NewDataPart(map[string]any{"b": 1, "a": []any{"x"}})
	status := func(state a2a.TaskState, text string) *a2a.TaskStatusUpdateEvent {
		return &a2a.TaskStatusUpdateEvent{TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID,
			Status: a2a.TaskStatus{State: state, Message: fixtureMessage(a2a.MessageRoleAgent, "m", a2a.NewTextPart(text))}}
	}
	chunk := func(id a2a.ArtifactID, p *a2a.Part) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{TaskID: taskInfo.TaskID, Append: true, Artifact: &a2a.Artifact{ID: id, Parts: a2a.ContentParts{p}}}
	}
	replace := func(id a2a.ArtifactID, parts ...*a2a.Part) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{TaskID: taskInfo.TaskID, Artifact: &a2a.Artifact{ID: id, Parts: parts}}
	}
	withArtifact := fixtureExecTask()
	withArtifact.Artifacts = append(withArtifact.Artifacts, &a2a.Artifact{ID: "art-bin", Parts: a2a.ContentParts{binary, data}})
	answered := fixtureWorkingTask(a2a.TaskStateCompleted, taskInfo.TaskID)
	answered.Status.Message = fixtureMessage(a2a.MessageRoleAgent, "m", a2a.NewTextPart("the answer"))
	failed := fixtureWorkingTask(a2a.TaskStateFailed, taskInfo.TaskID)
	failed.Status.Message = fixtureMessage(a2a.MessageRoleAgent, "m", a2a.NewTextPart("boom"))
	tests := []struct {
		name string
		run  render
		want string
	}{
		{"exec stream is what the command wrote", func(p *Printer) error { return renderEvents(p, fixtureExecStream()) },
			strings.Join(execLines, "")},
		{"task: artifacts byte for byte, data as a JSON line", func(p *Printer) error { return p.Task(withArtifact) },
			strings.Join(execLines, "") + "\xff\x00\n\xfe" + "\n" + `{"a":["x"],"b":1}` + "\n"},
		{"message parts", func(p *Printer) error {
			return p.Result(fixtureMessage(a2a.MessageRoleAgent, "m", a2a.NewTextPart("hi "), binary, a2a.NewFileURLPart("https://x/y", "")))
		}, "hi \xff\x00\n\xfe" + "\nhttps://x/y\n"},
		{"a data part starts its own line", func(p *Printer) error {
			return renderEvents(p, []a2a.Event{chunk("a", a2a.NewTextPart("check")), chunk("a", data), chunk("a", a2a.NewTextPart("after"))})
		}, "check\n" + `{"a":["x"],"b":1}` + "\nafter"},
		{"task answered in its status", func(p *Printer) error { return p.Task(answered) }, "the answer"},
		{"a failure's message is not content", func(p *Printer) error { return p.Task(failed) }, ""},
		{"snapshot after chunks is not written twice", func(p *Printer) error {
			return renderEvents(p, append(fixtureExecStream(), fixtureExecTask()))
		}, strings.Join(execLines, "")},
		{"a replacement that extends writes only the rest", func(p *Printer) error {
			return renderEvents(p, []a2a.Event{replace("a", a2a.NewTextPart("chunk 1 ")), replace("a", a2a.NewTextPart("chunk 1 chunk 2"))})
		}, "chunk 1 chunk 2"},
		{"a replacement the same as written writes nothing", func(p *Printer) error {
			return renderEvents(p, []a2a.Event{replace("a", a2a.NewTextPart("one\n"), data), replace("a", a2a.NewTextPart("one\n"), data)})
		}, "one\n" + `{"a":["x"],"b":1}` + "\n"},
		{"a replacement that does not extend is written whole on a line of its own", func(p *Printer) error {
			return renderEvents(p, []a2a.Event{replace("a", a2a.NewTextPart("draft")), replace("a", a2a.NewTextPart("final"))})
		}, "draft\nfinal"},
		{"a snapshot with more than the chunks (a resubscription) writes the rest", func(p *Printer) error {
			snap := fixtureWorkingTask(a2a.TaskStateWorking, taskInfo.TaskID)
			snap.Artifacts = []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("one "), a2a.NewTextPart("two "), a2a.NewTextPart("three")}}}
			return renderEvents(p, []a2a.Event{replace("a", a2a.NewTextPart("one ")), chunk("a", a2a.NewTextPart("two ")), snap,
				replace("a", a2a.NewTextPart("one two three"))})
		}, "one two three"},
		{"status messages while working are not content", func(p *Printer) error {
			return renderEvents(p, []a2a.Event{status(a2a.TaskStateWorking, "thinking"), chunk("a", a2a.NewTextPart("x")),
				status(a2a.TaskStateCompleted, "done")})
		}, "x"},
		{"final status message when no artifact came", func(p *Printer) error {
			return renderEvents(p, []a2a.Event{status(a2a.TaskStateWorking, "thinking"), status(a2a.TaskStateInputRequired, "which file?")})
		}, "which file?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := tt.run(New(&buf, Options{Format: Raw, Color: true, Indent: true, Width: 20})); err != nil {
				t.Fatalf("render: %v", err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("raw output (-want +got):\n%s", diff)
			}
		})
	}
}
