package exec

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readers wraps an input the ways a pipe may deliver it.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"onebyte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
	{"dataerr", iotest.DataErrReader},
}

// collect reads every chunk of r, copying them (a chunk is valid only until the next call).
func collect(t testing.TB, r io.Reader, delim string, max int) []string {
	t.Helper()
	return collectFrom(t, NewChunker(r, []byte(delim), max))
}

// collectKept is collect with KeepDelimiters.
func collectKept(t testing.TB, r io.Reader, delim string, max int) []string {
	t.Helper()
	return collectFrom(t, NewChunker(r, []byte(delim), max).KeepDelimiters())
}

func collectFrom(t testing.TB, c *Chunker) []string {
	t.Helper()
	var got []string
	for {
		chunk, err := c.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatalf("Next() error = %v, want nil or io.EOF", err)
		}
		got = append(got, string(chunk))
	}
}

// splitCase is an input, how it is split (keep: KeepDelimiters) and the chunks it gives.
type splitCase struct {
	name  string
	in    string
	delim string
	max   int
	want  []string
}

// runSplitCases splits each case's input as each of readers delivers it.
func runSplitCases(t *testing.T, tests []splitCase, keep bool) {
	for _, tt := range tests {
		for _, rd := range readers {
			if len(tt.in) > 1<<20 && rd.name == "onebyte" {
				continue // correct but slow under -race
			}
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				t.Parallel()
				collectF := collect
				if keep {
					collectF = collectKept
				}
				got := collectF(t, rd.wrap(strings.NewReader(tt.in)), tt.delim, tt.max)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("split(%.40q, %q, %d, keep=%t) mismatch (-want +got):\n%s", tt.in, tt.delim, tt.max, keep, diff)
				}
			})
		}
	}
}

func TestChunker(t *testing.T) {
	t.Parallel()
	mb := strings.Repeat("x", DefaultMax)
	tests := []splitCase{
		{"lines", "a\nb\nc\n", "\n", 0, []string{"a", "b", "c"}},
		{"no trailing delim", "a\nbc", "\n", 0, []string{"a", "bc"}},
		{"delim at start", "\na\n", "\n", 0, []string{"a"}},
		{"adjacent delims", "a\n\n\nb", "\n", 0, []string{"a", "b"}},
		{"only delims", "\n\n\n", "\n", 0, nil},
		{"empty input", "", "\n", 0, nil},
		{"space", "alpha beta  gamma", " ", 0, []string{"alpha", "beta", "gamma"}},
		{"crlf", "a\r\nb\r\n\r\nc", "\r\n", 0, []string{"a", "b", "c"}},
		{"crlf lone cr", "a\rb\r\nc\r", "\r\n", 0, []string{"a\rb", "c\r"}},
		{"scissors", "--8<--x--8<--y--8<----8<--z", "--8<--", 0, []string{"x", "y", "z"}},
		{"scissors partial at end", "x--8<-", "--8<--", 0, []string{"x--8<-"}},
		{"paragraphs", "p1 l1\np1 l2\n\np2\n\n\n\np3\n", "\n\n", 0, []string{"p1 l1\np1 l2", "p2", "p3\n"}},
		{"overlapping delim", "baaab", "aa", 0, []string{"b", "ab"}},
		{"max cut", "abcdefgh\nij", "\n", 3, []string{"abc", "def", "gh", "ij"}},
		{"line of exactly max", "abc\nd", "\n", 3, []string{"abc", "d"}},
		{"line of max minus one", "ab\r\ncd", "\r\n", 3, []string{"ab", "cd"}},
		{"delim longer than max", "abcde--8<--f", "--8<--", 2, []string{"ab", "cd", "e", "f"}},
		{"utf8 cut complete", "aé€b\n", "\n", 3, []string{"aé", "€", "b"}},
		{"utf8 cut moved back", "ab€cd\n", "\n", 3, []string{"ab", "€", "cd"}},
		{"utf8 cut four bytes", "abc😀\n", "\n", 5, []string{"abc", "😀"}},
		{"max at int limit", "a\nb", "--8<--", math.MaxInt, []string{"a\nb"}},
		{"remainder at eof over max", "abcde", "\n", 2, []string{"ab", "cd", "e"}},
		{"huge chunk under max", mb[:DefaultMax-1] + "\ny", "\n", 0, []string{mb[:DefaultMax-1], "y"}},
		{"huge chunk over max", mb + mb + mb[:10] + "\ny", "\n", 0, []string{mb, mb, mb[:10], "y"}},
	}
	runSplitCases(t, tests, false)
}

func TestChunkerKeepDelimiters(t *testing.T) {
	t.Parallel()
	tests := []splitCase{
		{"lines", "a\nb\nc\n", "\n", 0, []string{"a\n", "b\n", "c\n"}},
		{"no trailing delim", "a\nbc", "\n", 0, []string{"a\n", "bc"}},
		{"blank lines", "\na\n\n\nb", "\n", 0, []string{"\n", "a\n", "\n", "\n", "b"}},
		{"only delims", "\n\n", "\n", 0, []string{"\n", "\n"}},
		{"empty input", "", "\n", 0, nil},
		{"space", "alpha beta  gamma", " ", 0, []string{"alpha ", "beta ", " ", "gamma"}},
		{"crlf", "a\r\n\r\nb\r", "\r\n", 0, []string{"a\r\n", "\r\n", "b\r"}},
		{"multi-byte", "x--8<--y--8<----8<--", "--8<--", 0, []string{"x--8<--", "y--8<--", "--8<--"}},
		{"overlapping delim", "baaab", "aa", 0, []string{"baa", "ab"}},
		{"max cut", "abcdefgh\nij", "\n", 3, []string{"abc", "def", "gh\n", "ij"}},
		{"line of exactly max", "abc\nd", "\n", 3, []string{"abc", "\n", "d"}},
		{"line of max minus one", "ab\r\ncd", "\r\n", 3, []string{"ab\r\n", "cd"}},
		{"utf8 cut moved back", "ab€cd\n", "\n", 3, []string{"ab", "€", "cd\n"}},
		{"binary", "\xff\x00\n\xfe", "\n", 0, []string{"\xff\x00\n", "\xfe"}},
	}
	runSplitCases(t, tests, true)
}

func TestChunkerNoDelim(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want []string // for the whole reader
	}{
		{"bounded by max", "abcdefg", 3, []string{"abc", "def", "g"}},
		{"one read", "abc\ndef", 0, []string{"abc\ndef"}},
		{"utf8 cut", "ab€€", 4, []string{"ab", "€", "€"}},
		{"empty", "", 3, nil},
	}
	for _, tt := range tests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				t.Parallel()
				got := collect(t, rd.wrap(strings.NewReader(tt.in)), "", tt.max)
				if rd.name == "whole" {
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("split(%q, max %d) mismatch (-want +got):\n%s", tt.in, tt.max, diff)
					}
				}
				if joined := strings.Join(got, ""); joined != tt.in {
					t.Errorf("join(split(%q)) = %q, want the input", tt.in, joined)
				}
				for _, c := range got {
					if len(c) > tt.max && tt.max > 0 {
						t.Errorf("split(%q) chunk %q longer than max %d", tt.in, c, tt.max)
					}
					if strings.ContainsRune(c, '\uFFFD') || !utf8Valid(c) {
						t.Errorf("split(%q) chunk %q cuts a rune", tt.in, c)
					}
				}
			})
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestChunkerReturnsWithoutWaiting guards against holding a complete chunk back until more input arrives
// (which would delay every streamed line by one).
func TestChunkerReturnsWithoutWaiting(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, delim string
		steps       [][]string // each step's writes complete one chunk; the writer then waits for it to be read
		want        []string
	}{
		{"newline", "\n", [][]string{{"a\n"}, {"bb\n"}}, []string{"a", "bb"}},
		{"crlf split across writes", "\r\n", [][]string{{"a\r", "\n"}, {"bb\r\n"}}, []string{"a", "bb"}},
		{"scissors split across writes", "--8<--", [][]string{{"a--8", "<", "--"}, {"bb--8<--"}}, []string{"a", "bb"}},
		{"no delim", "", [][]string{{"a"}, {"bb"}}, []string{"a", "bb"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pr, pw := io.Pipe()
			next := make(chan struct{})
			go func() {
				defer pw.Close()
				for _, step := range tt.steps {
					for _, w := range step {
						if _, err := pw.Write([]byte(w)); err != nil {
							return
						}
					}
					if _, ok := <-next; !ok {
						return
					}
				}
			}()
			defer close(next)
			c := NewChunker(pr, []byte(tt.delim), 0)
			for _, want := range tt.want {
				got := make(chan string, 1)
				go func() {
					chunk, err := c.Next()
					if err != nil {
						got <- "error: " + err.Error()
						return
					}
					got <- string(chunk)
				}()
				select {
				case g := <-got:
					if g != want {
						t.Fatalf("Next() = %q, want %q", g, want)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("Next() still blocked with %q complete while the writer waits", want)
				}
				next <- struct{}{}
			}
			if _, err := c.Next(); !errors.Is(err, io.EOF) {
				t.Errorf("Next() at end error = %v, want io.EOF", err)
			}
		})
	}
}

// badReader claims to have read more than it was given.
type badReader struct{}

func (badReader) Read(p []byte) (int, error) { return len(p) + 1, nil }

// emptyReader never makes progress.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

func TestChunkerErrors(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		r       io.Reader
		want    []string
		wantErr error
	}{
		{"error after data", io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(errBoom)), []string{"a", "b"}, errBoom},
		{"bad count", badReader{}, nil, errBadRead},
		{"no progress", emptyReader{}, nil, io.ErrNoProgress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewChunker(tt.r, []byte("\n"), 8)
			var got []string
			var err error
			for {
				var chunk []byte
				if chunk, err = c.Next(); err != nil {
					break
				}
				got = append(got, string(chunk))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chunks mismatch (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Next() error = %v, want %v", err, tt.wantErr)
			}
			if _, again := c.Next(); !errors.Is(again, tt.wantErr) {
				t.Errorf("Next() after the end error = %v, want %v again", again, tt.wantErr)
			}
		})
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	tl := &tail{max: 5}
	for _, w := range []string{"ab", "cdef", "g", "hijklmnopq", "r", "st"} {
		tl.Write([]byte(w))
		if len(tl.buf) > 2*tl.max {
			t.Fatalf("tail holds %d bytes, want at most %d", len(tl.buf), 2*tl.max)
		}
	}
	if got, want := tl.String(), "pqrst"; got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
}
