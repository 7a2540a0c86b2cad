package coder

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"

	"golang.org/x/term"
)

// ChatInput reads the chat's terminal in raw mode. In raw mode Ctrl-C is not a signal but byte 0x03 on stdin,
// which a filter under the terminal turns into an empty line that it notes as a Ctrl-C.
//
// One goroutine calls ReadLine, once per request on want (carrying the prompt to draw): x/term lets output be
// written while a line is read, and a read must be outstanding during a turn so that Ctrl-C is seen at all. While a
// turn runs (busy) that read has the empty prompt, so anything may be written around it: Ctrl-C then goes to intr
// (which cancels the turn), and a permission question is written as output with the answer read on its line.
// Everything else (lines, Ctrl-C at the prompt, the end of input) goes to lines. Only the chat goroutine calls the
// methods; reading says whether a read is outstanding.
type ChatInput struct {
	Term    *term.Terminal
	filter  *ctrlCFilter
	Want    chan string
	lines   chan InputEvent
	Intr    chan struct{}
	Busy    atomic.Bool
	reading bool
}

type InputKind int

const (
	InputLine InputKind = iota
	InputCtrlC
	InputEOF
)

type InputEvent struct {
	Kind InputKind
	Line string
}

func NewChatInput(in io.Reader, out io.Writer) *ChatInput {
	f := &ctrlCFilter{r: in}
	rw := struct {
		io.Reader
		io.Writer
	}{f, out}
	t := term.NewTerminal(rw, "")
	t.History = lineHistory{t.History}
	return &ChatInput{
		Term:   t,
		filter: f,
		Want:   make(chan string),
		lines:  make(chan InputEvent, 16),
		Intr:   make(chan struct{}, 1),
	}
}

// Loop reads one line per request until the input ends. It runs in its own goroutine for the whole session and
// ends when want is closed or the input ends.
func (ci *ChatInput) Loop() {
	for prompt := range ci.Want {
		ci.Term.SetPrompt(prompt)
		for {
			line, err := ci.Term.ReadLine()
			ctrlC := err == nil && ci.filter.takeCtrlC()
			if ctrlC && ci.Busy.Load() {
				select {
				case ci.Intr <- struct{}{}:
				default:
				}
				continue // the turn is cancelled; keep reading
			}
			switch {
			case ctrlC:
				ci.lines <- InputEvent{Kind: InputCtrlC}
			case err != nil && !errors.Is(err, term.ErrPasteIndicator):
				ci.lines <- InputEvent{Kind: InputEOF}
				return
			default:
				ci.lines <- InputEvent{Kind: InputLine, Line: line}
			}
			break
		}
	}
}

// Prompt makes sure a read is outstanding with prompt p showing. A read already outstanding has the empty prompt
// (it was started for a turn) and drew nothing: p is written in its place as plain output. The read keeps its empty
// prompt: x/term moves the cursor relative to where it believes the line starts, and it never saw p drawn, so
// setting p as the prompt made every typed key jump right by p's width ("> t  hird").
func (ci *ChatInput) Prompt(p string) {
	if ci.reading {
		ci.Term.Write([]byte(p)) //nolint:errcheck // a broken terminal shows up on the next read
		return
	}
	ci.reading = true
	ci.Want <- p
}

// Next waits for the next input event.
func (ci *ChatInput) Next(ctx context.Context) (InputEvent, error) {
	select {
	case ev := <-ci.lines:
		ci.reading = false
		return ev, nil
	case <-ctx.Done():
		return InputEvent{}, ctx.Err()
	}
}

// Ask implements asker for permission prompts inside a turn. A line typed during the turn, before the question
// showed, is not its answer (an Enter pressed early would approve): it is dropped, and said so.
func (ci *ChatInput) Ask(ctx context.Context, question string) (string, error) {
	select {
	case ev := <-ci.lines:
		ci.reading = false
		if ev.Kind == InputEOF {
			return "", io.EOF
		}
		if _, err := ci.Term.Write([]byte("(dropped what was typed before the question)\n")); err != nil {
			return "", err
		}
	default:
	}
	ci.Prompt("")
	if _, err := ci.Term.Write([]byte(question)); err != nil {
		return "", err
	}
	ev, err := ci.Next(ctx)
	if err != nil {
		return "", err
	}
	switch ev.Kind {
	case InputEOF:
		return "", io.EOF
	case InputCtrlC:
		return "", context.Canceled
	}
	return ev.Line, nil
}

// ctrlCFilter passes bytes through, except Ctrl-C (0x03). x/term's ReadLine returns io.EOF for a Ctrl-C without
// consuming it: the next ReadLine sees the same byte again (and every key before it in the same read), so a single
// Ctrl-C would look like two, and the half-typed line would survive. The filter hands x/term, in a read of its own,
// keys that clear the line and end it instead (Ctrl-K, Ctrl-U, Enter), and notes the Ctrl-C: ReadLine only reads
// when no whole line is left over, so the line that read ends is the Ctrl-C's empty line.
type ctrlCFilter struct {
	r       io.Reader
	buf     [256]byte
	pending []byte // read from r, not passed on yet
	err     error  // r's error, returned once pending is empty
	ctrlC   atomic.Bool
}

// ctrlCKeys is what x/term gets for a Ctrl-C: kill to the end of the line, kill to its start, Enter.
const ctrlCKeys = "\x0b\x15\r"

func (f *ctrlCFilter) Read(p []byte) (int, error) {
	if len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		n, err := f.r.Read(f.buf[:])
		f.pending, f.err = f.buf[:n], err
		if n == 0 {
			return 0, err
		}
	}
	if f.pending[0] == 0x03 && len(p) >= len(ctrlCKeys) {
		f.pending = f.pending[1:]
		f.ctrlC.Store(true)
		return copy(p, ctrlCKeys), nil
	}
	i := bytes.IndexByte(f.pending[1:], 0x03) + 1 // the first byte goes out even if it is a Ctrl-C p cannot hold
	if i == 0 {
		i = len(f.pending)
	}
	n := copy(p, f.pending[:i])
	f.pending = f.pending[n:]
	return n, nil
}

// takeCtrlC reports whether a Ctrl-C went by since the last call.
func (f *ctrlCFilter) takeCtrlC() bool { return f.ctrlC.Swap(false) }

// lineHistory is the chat's line history: x/term's own keeps empty lines too (and a Ctrl-C ends one).
type lineHistory struct{ term.History }

func (h lineHistory) Add(entry string) {
	if strings.TrimSpace(entry) != "" {
		h.History.Add(entry)
	}
}
