package testagent

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Texts the behaviors produce, exported so tests can compare output.
const (
	// Question is the status message text of an InputRequired task.
	Question = "what is your name?"
	// FailText is the status message text of a Fail task.
	FailText = "boom"
	// EscapesText is the agent text of Escapes: SGR colour, an OSC title change,
	// a C1 CSI clear-screen, an OSC 8 hyperlink, backspace, carriage return and NUL.
	EscapesText = "\x1b[31mred\x1b[0m \x1b]0;pwned\x07 \u009b2J " +
		"\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ back\bspace\rcr\x00nul"
	// FileName, FileMediaType and FileSize describe the file part of Files.
	FileName      = "report.bin"
	FileMediaType = "application/octet-stream"
	FileSize      = 1000
	// ChartArtifact is the name of UnnamedFiles' PNG artifacts.
	ChartArtifact = "Sales chart"
	// BigSize is the total text length of the Big artifact (20 MiB).
	BigSize = 20 << 20
	// AuthQuestion is the status message text of an AuthRequired task.
	AuthQuestion = "log in first"
	// DieMarker is the text of the second (last sent) chunk of DieMidStream.
	DieMarker = "chunk 2 (connection dies after this)"
)

// bigChunks is the number of chunks a streamed Big artifact comes in: for
// the default size, each stays below the client's 10 MB SSE line limit and
// gRPC's default 4 MB receive limit.
const bigChunks = 8

// bigText returns n bytes of printable text in lines of 1023 bytes.
func bigText(n int) string {
	line := strings.Repeat("0123456789abcdef", 63) + "big text line.\n"
	s := strings.Repeat(line, n/len(line)+1)
	return s[:n]
}

// executor runs one Behavior for every execution the a2asrv handler starts.
type executor struct {
	opts Options
	stop <-chan struct{} // closed when the agent shuts down
	cut  <-chan struct{} // receives after a DieMidStream connection was cut
	// agent hands AuthRequired executions the credentials its calls carry.
	agent *Agent
}

// Execute implements a2asrv.AgentExecutor.
func (e *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := messageText(ec.Message)
		if e.opts.Behavior == MessageOnly {
			msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("echo: "+text))
			msg.ContextID = ec.ContextID
			yield(msg, nil)
			return
		}
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		if e.opts.Behavior == AuthRequired {
			e.authRequired(ctx, ec, text, yield)
			return
		}
		evs := e.script(ctx, ec, text)
		if e.opts.Behavior == DieMidStream && streaming(ctx) {
			evs = e.dieMidStream(ctx, ec, yield)
		}
		for _, ev := range evs {
			if ev == nil || !yield(ev, nil) {
				return
			}
		}
	}
}

// dieMidStream yields two chunks, then waits until the transport has cut the
// connection that carried them, and returns the events that finish the task.
func (e *executor) dieMidStream(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) []a2a.Event {
	first := a2a.NewArtifactEvent(ec, a2a.NewTextPart("chunk 1\n"))
	if !yield(first, nil) || !yield(a2a.NewArtifactUpdateEvent(ec, first.Artifact.ID, a2a.NewTextPart(DieMarker)), nil) {
		return nil
	}
	select {
	case <-e.cut:
	case <-ctx.Done():
		return nil
	case <-e.stop:
		return nil
	}
	return []a2a.Event{a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil)}
}

// script returns the events after "working". A nil event ends execution
// without a terminal state (the agent stopped or the task was canceled).
func (e *executor) script(ctx context.Context, ec *a2asrv.ExecutorContext, text string) []a2a.Event {
	done := a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil)
	echo := a2a.NewArtifactEvent(ec, a2a.NewTextPart("echo: "+text))
	switch e.opts.Behavior {
	case InputRequired:
		if ec.StoredTask == nil || ec.StoredTask.Status.State != a2a.TaskStateInputRequired {
			ask := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(Question))
			return []a2a.Event{a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, ask)}
		}
		return []a2a.Event{a2a.NewArtifactEvent(ec, a2a.NewTextPart("hello, "+text)), done}
	case Chunks:
		return append(chunkEvents(ec, e.opts.chunks(), func(i int) string {
			return fmt.Sprintf("chunk %d\n", i+1)
		}), done)
	case Fail:
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(FailText))
		return []a2a.Event{a2a.NewStatusUpdateEvent(ec, a2a.TaskStateFailed, msg)}
	case Slow:
		if !e.wait(ctx, time.After(e.opts.delay())) {
			return []a2a.Event{nil}
		}
	case Big:
		size := e.opts.bigSize()
		if !streaming(ctx) {
			return []a2a.Event{a2a.NewArtifactEvent(ec, a2a.NewTextPart(bigText(size))), done}
		}
		block := bigText(size / bigChunks)
		return append(chunkEvents(ec, bigChunks, func(i int) string {
			if i == bigChunks-1 {
				return bigText(size - (bigChunks-1)*len(block))
			}
			return block
		}), done)
	case Escapes:
		echo = a2a.NewArtifactEvent(ec, a2a.NewTextPart(EscapesText))
	case Files:
		raw := make([]byte, FileSize)
		for i := range raw {
			raw[i] = byte(i % 256)
		}
		file := a2a.NewRawPart(raw)
		file.Filename, file.MediaType = FileName, FileMediaType
		echo = a2a.NewArtifactEvent(ec, file, a2a.NewDataPart(map[string]any{"ok": true}))
	case UnnamedFiles:
		part := func(b, mediaType string) *a2a.Part {
			p := a2a.NewRawPart([]byte(b))
			p.MediaType = mediaType
			return p
		}
		chart1 := a2a.NewArtifactEvent(ec, part("\x89PNG one", "image/png"))
		chart2 := a2a.NewArtifactEvent(ec, part("\x89PNG two", "image/png"))
		chart1.Artifact.Name, chart2.Artifact.Name = ChartArtifact, ChartArtifact
		notes := a2a.NewArtifactEvent(ec, part("notes\n", "text/plain; charset=utf-8"))
		return []a2a.Event{chart1, chart2, notes, done}
	}
	return []a2a.Event{echo, done}
}

// authRequired completes a task whose message came with accepted credentials; otherwise it asks for them
// (auth-required) and waits until a call about the task brings them (see AuthRequired), the agent stops, or the
// task is canceled.
func (e *executor) authRequired(ctx context.Context, ec *a2asrv.ExecutorContext, text string, yield func(a2a.Event, error) bool) {
	authorized := false
	if sp := ec.ServiceParams; sp != nil {
		v, ok := sp.Get("authorization")
		authorized = ok && len(v) > 0 && e.opts.taskAuthorized(v[0])
	}
	if !authorized {
		got := e.agent.awaitCredential(ec.TaskID)
		ask := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(AuthQuestion))
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateAuthRequired, ask), nil) {
			return
		}
		select {
		case <-got:
		case <-ctx.Done():
			return
		case <-e.stop:
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
	}
	if yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart("authorized: "+text)), nil) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// Cancel implements a2asrv.AgentExecutor.
func (e *executor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// wait blocks until ch fires (true), or ctx ends or the agent stops (false).
func (e *executor) wait(ctx context.Context, ch <-chan time.Time) bool {
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	case <-e.stop:
		return false
	}
}

// chunkEvents returns n artifact-update events of one artifact: the first
// without append, the rest with append, the last with lastChunk.
func chunkEvents(ec *a2asrv.ExecutorContext, n int, text func(int) string) []a2a.Event {
	evs := make([]a2a.Event, 0, n+1)
	var id a2a.ArtifactID
	for i := range n {
		var ev *a2a.TaskArtifactUpdateEvent
		if i == 0 {
			ev = a2a.NewArtifactEvent(ec, a2a.NewTextPart(text(i)))
			id = ev.Artifact.ID
		} else {
			ev = a2a.NewArtifactUpdateEvent(ec, id, a2a.NewTextPart(text(i)))
		}
		ev.LastChunk = i == n-1
		evs = append(evs, ev)
	}
	return evs
}

// streaming reports whether the execution was started by SendStreamingMessage.
// The execution context is detached from the request but keeps its values.
func streaming(ctx context.Context) bool {
	cc, ok := a2asrv.CallContextFrom(ctx)
	return ok && cc.Method() == "SendStreamingMessage"
}

func messageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}
