package exec

import (
	"bytes"
	"io"
	"os"
)

// Stderr defaults and limits.
const (
	defaultStderrTail = 4096
	maxStderrLine     = 4096
)

// tail keeps the last max bytes written to it in at most 2*max bytes of memory.
type tail struct {
	max int
	buf []byte
}

// Write keeps the end of p; it never fails.
func (t *tail) Write(p []byte) (int, error) {
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if len(t.buf)+len(p) > 2*t.max {
		keep := t.max - len(p)
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-keep:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String returns the kept bytes.
func (t *tail) String() string {
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return string(b)
}

// drainStderr reads r to its end (or until it is closed), keeping the tail in t and passing each non-empty
// line (cut at maxStderrLine bytes, newline removed) to onLine when it is not nil. It closes done when finished.
func drainStderr(r *os.File, t *tail, onLine func([]byte), done chan<- struct{}) {
	defer close(done)
	if onLine == nil {
		copyGrowing(t, r) // the only possible error is r being closed (forced stop): the tail is kept as is
		return
	}
	ch := NewChunker(io.TeeReader(r, t), []byte("\n"), maxStderrLine)
	for {
		line, err := ch.Next()
		if err != nil {
			return
		}
		onLine(line)
	}
}

// copyGrowing copies r to t until r fails or ends. Its buffer starts small, so that a child that writes
// nothing to stderr costs little, and doubles up to 32 KiB while reads fill it.
func copyGrowing(t *tail, r io.Reader) {
	buf := make([]byte, 512)
	for {
		n, err := r.Read(buf)
		t.Write(buf[:n])
		if err != nil {
			return
		}
		if n == len(buf) && len(buf) < 32<<10 {
			buf = make([]byte, 2*len(buf))
		}
	}
}

// lineSplitter cuts stderr into lines as it arrives, as a [Chunker] with delimiter "\n" and max maxStderrLine
// would: non-empty lines, newline removed, cut at maxStderrLine bytes (not mid-rune where avoidable). It
// buffers at most one partial line, and nothing until a write leaves one.
type lineSplitter struct {
	on  func([]byte)
	buf []byte // the start of a line whose end has not arrived, shorter than maxStderrLine
}

// write passes each line completed by b to on and keeps the rest.
func (s *lineSplitter) write(b []byte) {
	for len(b) > 0 {
		room := maxStderrLine - len(s.buf)
		i := bytes.IndexByte(b[:min(len(b), room)], '\n')
		switch {
		case i >= 0 && len(s.buf) == 0: // a whole line in b: no copy
			s.emit(b[:i])
			b = b[i+1:]
		case i >= 0:
			s.buf = append(s.buf, b[:i]...)
			s.emit(s.buf)
			s.buf, b = s.buf[:0], b[i+1:]
		case len(b) < room:
			s.buf = append(s.buf, b...)
			return
		case len(s.buf) == 0: // maxStderrLine bytes without a newline, all in b
			n := cut(b, maxStderrLine)
			s.emit(b[:n])
			b = b[n:]
		default:
			s.buf = append(s.buf, b[:room]...)
			b = b[room:]
			n := cut(s.buf, maxStderrLine)
			s.emit(s.buf[:n])
			s.buf = append(s.buf[:0], s.buf[n:]...) // at most the 3 bytes of an incomplete rune
		}
	}
}

// flush passes the unterminated last line, if any, to on.
func (s *lineSplitter) flush() {
	s.emit(s.buf)
	s.buf = nil
}

func (s *lineSplitter) emit(line []byte) {
	if len(line) > 0 {
		s.on(line)
	}
}
