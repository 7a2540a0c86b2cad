package exec

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// DefaultMax is the chunk size limit that [NewChunker] uses when given max <= 0.
const DefaultMax = 1 << 20

// maxLimit caps max, so that max plus the delimiter length cannot overflow.
const maxLimit = 1 << 30

// Buffer sizes. The buffer starts small, since a child that writes little, or waits, should cost little. It
// doubles up to readBuf while reads fill it (more input is likely waiting, and bigger reads are cheaper), and
// beyond that only as far as a chunk of max bytes plus the delimiter needs.
const (
	firstBuf = 1 << 10
	readBuf  = 64 << 10
)

// errBadRead reports a reader that returned an impossible byte count.
var errBadRead = errors.New("reader returned an invalid count")

// Chunker splits a stream into chunks at a delimiter. It is not safe for concurrent use.
type Chunker struct {
	r     io.Reader
	delim []byte
	max   int
	limit int // the most bytes ever buffered at once

	buf        []byte
	start, end int   // buf[start:end] is buffered input not yet returned
	searched   int   // leading bytes of buf[start:end] known not to start a delimiter
	err        error // first error from r (io.EOF at the end); sticky
	filled     bool  // the last read filled the buffer: grow it towards readBuf
	keep       bool  // chunks end with their delimiter (see KeepDelimiters)
}

// NewChunker returns a Chunker reading r and splitting at delim (any bytes; nil or empty means no delimiter).
//
// A chunk is the bytes before the next delimiter, delimiter removed, when that delimiter starts within the
// first max bytes. Otherwise max bytes are cut off as a chunk, moved back to the start of a rune whose
// encoding is incomplete within the last 3 bytes, so that text is not split mid-rune. To keep chunks
// independent of how r's reads are sized, a cut waits until max+len(delim)-1 bytes are buffered (or EOF), which
// for a one-byte delimiter is max bytes. The input left at EOF is the last chunk. Empty chunks (adjacent
// delimiters, a delimiter at the start) are skipped, so chunks never contain the delimiter and are never empty.
//
// Without a delimiter, whatever has arrived is returned at once, bounded by max; a rune whose encoding is still
// incomplete at the end of the buffered data is held back until more input or EOF arrives.
//
// max <= 0 means [DefaultMax]; max is capped at 1 GiB.
func NewChunker(r io.Reader, delim []byte, max int) *Chunker {
	if max <= 0 {
		max = DefaultMax
	}
	max = min(max, maxLimit)
	d := bytes.Clone(delim)
	limit := max
	if len(d) > 0 {
		limit = max + len(d) - 1
	}
	return &Chunker{r: r, delim: d, max: max, limit: limit}
}

// KeepDelimiters makes c return every chunk with the delimiter that ends it, so that the chunks joined in order
// are exactly the input: a delimiter with nothing before it (a blank line) is a chunk of its own, and no chunk is
// skipped. Where chunks fall is unchanged: with the delimiter removed and empty chunks dropped they are the
// chunks c returns without this mode. It returns c, and must be called before the first Next.
func (c *Chunker) KeepDelimiters() *Chunker {
	c.keep = true
	return c
}

// Next returns the next chunk, as soon as its end is known: it never waits for more input once it holds a
// complete chunk. After the last chunk it returns io.EOF, or the error that ended reading. The returned slice
// is valid until the next call to Next.
func (c *Chunker) Next() ([]byte, error) {
	for {
		chunk, ok := c.split()
		if ok {
			if len(chunk) > 0 {
				return chunk, nil
			}
			continue // empty chunk between adjacent delimiters
		}
		if c.err != nil {
			return nil, c.err
		}
		c.fill()
	}
}

// split takes the next chunk off the buffered data; ok is false when more input is needed (or at the end).
func (c *Chunker) split() (chunk []byte, ok bool) {
	data := c.buf[c.start:c.end]
	eof := c.err != nil
	if len(c.delim) == 0 {
		return c.splitRaw(data, eof)
	}
	if i := c.index(data); i >= 0 && i < c.max {
		c.consume(i + len(c.delim))
		if c.keep {
			return data[:i+len(c.delim)], true
		}
		return data[:i], true
	}
	if len(data) >= c.limit || (eof && len(data) >= c.max) {
		n := cut(data, c.max)
		c.consume(n)
		return data[:n], true
	}
	if eof && len(data) > 0 {
		c.consume(len(data))
		return data, true
	}
	return nil, false
}

// splitRaw is split without a delimiter.
func (c *Chunker) splitRaw(data []byte, eof bool) ([]byte, bool) {
	n := len(data)
	switch {
	case n == 0:
		return nil, false
	case n >= c.max:
		n = cut(data, c.max)
	case !eof:
		if n = completeRunes(data); n == 0 {
			return nil, false
		}
	}
	c.consume(n)
	return data[:n], true
}

// index finds the first delimiter in data, resuming where the last search stopped so that a long chunk
// arriving in many reads is scanned once (keeping len(delim)-1 bytes of overlap).
func (c *Chunker) index(data []byte) int {
	from := c.searched
	if i := bytes.Index(data[from:], c.delim); i >= 0 {
		c.searched = from + i
		return from + i
	}
	c.searched = max(from, len(data)-len(c.delim)+1)
	return -1
}

// consume drops n bytes from the front of the buffered data.
func (c *Chunker) consume(n int) {
	c.start += n
	c.searched = max(0, c.searched-n)
	if c.start == c.end {
		c.start, c.end = 0, 0
	}
}

// fill reads once more into the buffer, compacting or growing it first when needed.
func (c *Chunker) fill() {
	if c.buf == nil {
		c.buf = make([]byte, min(firstBuf, c.limit))
	}
	free := len(c.buf) - c.end
	if c.start > 0 && free < len(c.buf)/2 {
		c.end = copy(c.buf, c.buf[c.start:c.end])
		c.start = 0
	}
	if c.end == len(c.buf) || (c.filled && len(c.buf) < min(readBuf, c.limit)) {
		// split only asks for input while fewer than limit bytes are buffered, so limit bytes always suffice.
		nb := make([]byte, max(min(2*len(c.buf), c.limit), c.end+1))
		c.end = copy(nb, c.buf[c.start:c.end])
		c.start, c.buf = 0, nb
	}
	for range 100 {
		n, err := c.r.Read(c.buf[c.end:])
		if n < 0 || n > len(c.buf)-c.end {
			c.err = errBadRead
			return
		}
		c.filled = c.end+n == len(c.buf)
		c.end += n
		if err != nil {
			c.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	c.err = io.ErrNoProgress
}

// cut returns where to cut data (len(data) >= max) into a chunk of at most max bytes: max, or the start of an
// incomplete rune in the last 3 bytes of data[:max], unless that would make the chunk empty.
func cut(data []byte, max int) int {
	if n := completeRunes(data[:max]); n > 0 {
		return n
	}
	return max
}

// completeRunes returns len(b) less a trailing rune whose encoding is incomplete (looking back at most 3 bytes).
func completeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
