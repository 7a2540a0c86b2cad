package exec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzChunker checks, for any input, delimiter and max:
//   - every reader (whole, one byte at a time, halves) yields the same chunks;
//   - no chunk is empty, longer than max, or contains the delimiter;
//   - the input is exactly the chunks in order, each preceded by zero or more delimiters, then zero or more
//     delimiters: nothing is lost, duplicated or reordered;
//   - a chunk not followed by a delimiter nor at the end was cut by max: no delimiter starts within its first
//     max bytes, and it is at least max-3 bytes long (moved back at most 3 bytes to a rune start);
//   - when max exceeds the input length, the chunks are the non-empty fields of bytes.Split(input, delim).
//
// Without a delimiter the chunks, which depend on read sizes, only have to join back to the input, each
// non-empty and at most max bytes.
func FuzzChunker(f *testing.F) {
	f.Add([]byte("a\nb\n\nc"), []byte("\n"), uint16(0))
	f.Add([]byte("a\r\nb\r\r\n\r\nc\r"), []byte("\r\n"), uint16(2))
	f.Add([]byte("x--8<--y--8<----8<--z--8<"), []byte("--8<--"), uint16(3))
	f.Add([]byte("p1\n\np2\n\n\n\np3\n"), []byte("\n\n"), uint16(4))
	f.Add([]byte("aé€😀b\n€€€€"), []byte("\n"), uint16(5))
	f.Add([]byte("\xe2\x82\xff\xf0\x9f"), []byte("\x82"), uint16(1))
	f.Add([]byte("aaaaaaa"), []byte("aa"), uint16(3))
	f.Add([]byte("stream without delimiter €"), []byte(nil), uint16(4))
	f.Fuzz(func(t *testing.T, in, delim []byte, max16 uint16) {
		if len(delim) > 8 {
			delim = delim[:8]
		}
		max := int(max16 % 300)
		if max == 0 {
			max = len(in) + 1 // also covers "max exceeds the input length"
		}
		whole := collect(t, bytes.NewReader(in), string(delim), max)
		for _, rd := range readers[1:] {
			got := collect(t, rd.wrap(bytes.NewReader(in)), string(delim), max)
			if len(delim) > 0 {
				if diff := cmp.Diff(whole, got); diff != "" {
					t.Fatalf("split(%q, %q, %d) via %s differs from a whole read (-whole +got):\n%s", in, delim, max, rd.name, diff)
				}
			} else if strings.Join(got, "") != string(in) {
				t.Fatalf("join(split(%q, max %d)) via %s = %q, want the input", in, max, rd.name, strings.Join(got, ""))
			}
		}
		for _, c := range whole {
			if len(c) == 0 || len(c) > max {
				t.Fatalf("split(%q, %q, %d) chunk %q: length %d, want 1..%d", in, delim, max, c, len(c), max)
			}
		}
		if len(delim) == 0 {
			if strings.Join(whole, "") != string(in) {
				t.Fatalf("join(split(%q, max %d)) = %q, want the input", in, max, strings.Join(whole, ""))
			}
			return
		}
		checkReassembly(t, in, delim, max, whole)
		checkKept(t, in, delim, max, whole)
		if max > len(in) {
			var want []string
			for _, f := range bytes.Split(in, delim) {
				if len(f) > 0 {
					want = append(want, string(f))
				}
			}
			if diff := cmp.Diff(want, whole); diff != "" {
				t.Fatalf("split(%q, %q, %d) differs from bytes.Split (-want +got):\n%s", in, delim, max, diff)
			}
		}
	})
}

// checkReassembly walks in along chunks, as described on FuzzChunker.
func checkReassembly(t *testing.T, in, delim []byte, max int, chunks []string) {
	t.Helper()
	rest := in
	for i, c := range chunks {
		if strings.Contains(c, string(delim)) {
			t.Fatalf("split(%q, %q, %d) chunk %q contains the delimiter", in, delim, max, c)
		}
		for bytes.HasPrefix(rest, delim) {
			rest = rest[len(delim):]
		}
		if !bytes.HasPrefix(rest, []byte(c)) {
			t.Fatalf("split(%q, %q, %d) chunk %d = %q, want a prefix of %q", in, delim, max, i, c, rest)
		}
		if j := bytes.Index(rest, delim); j >= 0 && j < max && j != len(c) {
			t.Fatalf("split(%q, %q, %d) chunk %q, want %q (delimiter at %d)", in, delim, max, c, rest[:j], j)
		}
		rest = rest[len(c):]
		if len(rest) > 0 && !bytes.HasPrefix(rest, delim) && len(c) < max-3 {
			t.Fatalf("split(%q, %q, %d) chunk %q cut short of max with %q left", in, delim, max, c, rest)
		}
	}
	for bytes.HasPrefix(rest, delim) {
		rest = rest[len(delim):]
	}
	if len(rest) > 0 {
		t.Fatalf("split(%q, %q, %d) = %q lost the tail %q", in, delim, max, chunks, rest)
	}
}

// checkKept checks KeepDelimiters on in: the chunks join to exactly the input, the same for every reader; no
// chunk is empty; a delimiter occurs in a chunk only at its end; and with that delimiter removed and empty
// chunks dropped they are the chunks of the default mode (dropped).
func checkKept(t *testing.T, in, delim []byte, max int, dropped []string) {
	t.Helper()
	kept := collectKept(t, bytes.NewReader(in), string(delim), max)
	if got := strings.Join(kept, ""); got != string(in) {
		t.Fatalf("join(split kept(%q, %q, %d)) = %q, want the input", in, delim, max, got)
	}
	for _, rd := range readers[1:] {
		got := collectKept(t, rd.wrap(bytes.NewReader(in)), string(delim), max)
		if diff := cmp.Diff(kept, got); diff != "" {
			t.Fatalf("split kept(%q, %q, %d) via %s differs from a whole read (-whole +got):\n%s", in, delim, max, rd.name, diff)
		}
	}
	var stripped []string
	for _, c := range kept {
		if c == "" {
			t.Fatalf("split kept(%q, %q, %d) returned an empty chunk", in, delim, max)
		}
		if i := strings.Index(c, string(delim)); i >= 0 {
			if i != len(c)-len(delim) {
				t.Fatalf("split kept(%q, %q, %d) chunk %q has the delimiter at %d, want only at its end", in, delim, max, c, i)
			}
			c = c[:i]
		}
		if c != "" {
			stripped = append(stripped, c)
		}
	}
	if diff := cmp.Diff(dropped, stripped); diff != "" {
		t.Fatalf("split kept(%q, %q, %d) cut elsewhere than the default mode (-default +kept):\n%s", in, delim, max, diff)
	}
}
