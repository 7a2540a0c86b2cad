package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// TestJSONCompactOneLine checks that without Indent every document is exactly one line and
// is the protocol type's own encoding.
func TestJSONCompactOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    any
		run  render
	}{
		{"card", fixtureCard(), func(p *Printer) error { return p.Card(fixtureCard()) }},
		{"task", fixtureTask(), func(p *Printer) error { return p.Task(fixtureTask()) }},
		{"send result task", a2a.StreamResponse{Event: fixtureTask()}, func(p *Printer) error { return p.Result(fixtureTask()) }},
		{"send result message", a2a.StreamResponse{Event: fixtureTask().History[0]}, func(p *Printer) error { return p.Result(fixtureTask().History[0]) }},
		{"list", fixtureTaskList(), func(p *Printer) error { return p.TaskList(fixtureTaskList()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := tt.run(New(&buf, Options{Format: JSON})); err != nil {
				t.Fatalf("render: %v", err)
			}
			out := buf.String()
			if n := strings.Count(out, "\n"); n != 1 || !strings.HasSuffix(out, "\n") {
				t.Fatalf("output has %d newlines, want exactly one at the end:\n%s", n, out)
			}
			want, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), strings.TrimSuffix(out, "\n")); diff != "" {
				t.Errorf("JSON differs from encoding/json (-want +got):\n%s", diff)
			}
		})
	}
}

// flushRecorder counts Flush calls, the way a bufio.Writer on stdout would be flushed.
type flushRecorder struct {
	*bufio.Writer
	flushes int
}

func (f *flushRecorder) Flush() error { f.flushes++; return f.Writer.Flush() }

// TestJSONStreamLines checks the JSON Lines stream: one line per event, each parseable back
// into the same StreamResponse, each flushed as written.
func TestJSONStreamLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := &flushRecorder{Writer: bufio.NewWriter(&buf)}
	p := New(w, Options{Format: JSON})
	events := fixtureStream()
	for i, e := range events {
		if err := p.Event(e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if w.flushes != i+1 {
			t.Fatalf("after event %d: %d flushes, want %d", i, w.flushes, i+1)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(events) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(events), buf.String())
	}
	for i, line := range lines {
		var got a2a.StreamResponse
		if err := got.UnmarshalJSON([]byte(line)); err != nil {
			t.Fatalf("line %d: unmarshal %q: %v", i, line, err)
		}
		if diff := cmp.Diff(events[i], got.Event); diff != "" {
			t.Errorf("line %d round trip (-want +got):\n%s", i, diff)
		}
	}
}

func TestErrorEnvelope(t *testing.T) {
	t.Parallel()
	code := -32001
	tests := []struct {
		name string
		doc  ErrorDoc
		want string
	}{
		{"nulls", ErrorDoc{Code: "A2ACLI_ERR_TIMEOUT", Message: "timed out after 30s"},
			`{"error":{"code":"A2ACLI_ERR_TIMEOUT","message":"timed out after 30s","hint":null,"a2aCode":null}}`},
		{"all set", ErrorDoc{Code: "TaskNotFoundError", Message: "no task <x>", Hint: "run 'a2a list tasks'", A2ACode: &code},
			`{"error":{"code":"TaskNotFoundError","message":"no task <x>","hint":"run 'a2a list tasks'","a2aCode":-32001}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := New(&buf, Options{Format: JSON}).Error(tt.doc); err != nil {
				t.Fatalf("render: %v", err)
			}
			if diff := cmp.Diff(tt.want+"\n", buf.String()); diff != "" {
				t.Errorf("Error(%+v) (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

func TestJSONEscapesControls(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	msg := fixtureMessage(a2a.MessageRoleAgent, "m", a2a.NewTextPart("a\u009bb\u202ec\x7f"))
	if err := New(&buf, Options{Format: JSON}).Result(msg); err != nil {
		t.Fatalf("render: %v", err)
	}
	if !strings.Contains(buf.String(), `"a\u009bb\u202ec\u007f"`) {
		t.Errorf("controls not escaped: %s", buf.String())
	}
	var back a2a.StreamResponse
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	if got := back.Event.(*a2a.Message).Parts[0].Text(); got != "a\u009bb\u202ec\x7f" {
		t.Errorf("round trip text = %q, want %q", got, "a\u009bb\u202ec\x7f")
	}
}

type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteErrorIsReturned(t *testing.T) {
	t.Parallel()
	for _, f := range []Format{Text, JSON} {
		err := New(failWriter{}, Options{Format: f}).Task(fixtureTask())
		if !errors.Is(err, errDiskFull) {
			t.Errorf("%s: Task on a failing writer = %v, want %v", f, err, errDiskFull)
		}
	}
}

func TestResultRejectsNil(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := New(&buf, Options{}).Result(nil); !errors.Is(err, errNoValue) {
		t.Errorf("Result(nil) = %v, want %v", err, errNoValue)
	}
	if err := New(&buf, Options{}).Event(nil); !errors.Is(err, errNoValue) {
		t.Errorf("Event(nil) = %v, want %v", err, errNoValue)
	}
	if buf.Len() != 0 {
		t.Errorf("nil values wrote %q, want nothing", buf.String())
	}
}
