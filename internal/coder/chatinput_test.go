package coder

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/syncbuf"
)

// TestChatInputCtrlC feeds the chat's line reader the bytes a terminal in raw mode sends: each Ctrl-C is one event
// (x/term alone would report it again on the next read), it throws away the half-typed line, and keys after it in
// the same read are kept.
func TestChatInputCtrlC(t *testing.T) {
	pr, pw := io.Pipe()
	ci := NewChatInput(pr, io.Discard)
	go ci.Loop()
	defer close(ci.Want)
	go func() {
		pw.Write([]byte("half typed\x03next\r\x03\x03last line\r"))
		pw.Close()
	}()
	want := []InputEvent{
		{Kind: InputCtrlC},
		{Kind: InputLine, Line: "next"},
		{Kind: InputCtrlC},
		{Kind: InputCtrlC},
		{Kind: InputLine, Line: "last line"},
		{Kind: InputEOF},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, w := range want {
		ci.Prompt("> ")
		ev, err := ci.Next(ctx)
		if err != nil {
			t.Fatalf("event %d: %v (want %+v)", i, err, w)
		}
		if ev != w {
			t.Fatalf("event %d = %+v, want %+v", i, ev, w)
		}
	}
}

// TestChatInputCtrlCWhileBusy: a Ctrl-C during a turn interrupts it once, and the read goes on.
func TestChatInputCtrlCWhileBusy(t *testing.T) {
	pr, pw := io.Pipe()
	ci := NewChatInput(pr, io.Discard)
	go ci.Loop()
	defer close(ci.Want)
	ci.Busy.Store(true)
	ci.Prompt("")
	go pw.Write([]byte("\x03"))
	select {
	case <-ci.Intr:
	case <-time.After(10 * time.Second):
		t.Fatal("no interrupt for a Ctrl-C during a turn")
	}
	ci.Busy.Store(false)
	go func() {
		pw.Write([]byte("after\r"))
		pw.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := ci.Next(ctx)
	if err != nil || ev != (InputEvent{Kind: InputLine, Line: "after"}) {
		t.Fatalf("after the interrupt got %+v, %v; want the line \"after\"", ev, err)
	}
	select {
	case <-ci.Intr:
		t.Fatal("one Ctrl-C interrupted twice")
	default:
	}
}

// TestChatHistorySkipsEmptyLines: neither Enter on an empty prompt nor a Ctrl-C puts a blank line in the history.
func TestChatHistorySkipsEmptyLines(t *testing.T) {
	ci := NewChatInput(eofReader{}, io.Discard)
	for _, l := range []string{"one", "", "  ", "two"} {
		ci.Term.History.Add(l)
	}
	if n := ci.Term.History.Len(); n != 2 {
		t.Fatalf("history holds %d entries, want 2", n)
	}
	if got := ci.Term.History.At(0); got != "two" {
		t.Fatalf("latest entry %q, want two", got)
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// TestChatInputDropsTypeahead: a line typed during a turn, before a permission question showed, does not answer
// it (an early Enter would approve); the answer typed after the question does.
func TestChatInputDropsTypeahead(t *testing.T) {
	pr, pw := io.Pipe()
	var out syncbuf.Buffer
	ci := NewChatInput(pr, &out)
	go ci.Loop()
	defer close(ci.Want)
	ci.Busy.Store(true)
	ci.Prompt("") // the turn's outstanding read
	go pw.Write([]byte("early\r"))
	waitQueued(t, ci)
	answers := make(chan string, 1)
	go func() {
		a, err := ci.Ask(context.Background(), "Allow WriteFile? ")
		if err != nil {
			a = "error: " + err.Error()
		}
		answers <- a
	}()
	go pw.Write([]byte("n\r"))
	select {
	case a := <-answers:
		if a != "n" {
			t.Fatalf("ask() = %q, want the answer typed after the question (n)", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s")
	}
	if !strings.Contains(out.String(), "dropped what was typed before the question") {
		t.Errorf("the dropped line was not reported; terminal shows %q", out.String())
	}
}

// waitQueued waits until the chat input has a line waiting.
func waitQueued(t *testing.T, ci *ChatInput) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(ci.lines) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the typed line never reached the chat input")
		}
		runtime.Gosched()
	}
}
