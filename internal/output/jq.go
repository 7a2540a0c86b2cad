package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/a2acli/a2a/third_party/itchyny/gojq"
)

// JQ filters JSON written to it through a jq expression, in-process (gojq), one document per line: every
// JSON output of a2a is one compact document per line (a result, or JSON Lines for a stream). Results print as
// compact JSON, strings raw, as gh --jq does.
type JQ struct {
	w    io.Writer
	code *gojq.Code
	buf  []byte
}

// NewJQ is a filter through the jq expression expr onto w; the error is the expression's (parse or compile).
func NewJQ(w io.Writer, expr string) (*JQ, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, err
	}
	return &JQ{w: w, code: code}, nil
}

// Under is the writer beneath the filter.
func (j *JQ) Under() io.Writer { return j.w }

func (j *JQ) Write(p []byte) (int, error) {
	j.buf = append(j.buf, p...)
	for {
		i := bytes.IndexByte(j.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := j.buf[:i]
		j.buf = j.buf[i+1:]
		if err := j.filter(line); err != nil {
			return len(p), err
		}
	}
}

// Flush filters what is left without a final newline.
func (j *JQ) Flush() error {
	line := j.buf
	j.buf = nil
	return j.filter(line)
}

func (j *JQ) filter(line []byte) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("--jq: output is not JSON: %w", err)
	}
	v = normalizeNumbers(v)
	iter := j.code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			var he *gojq.HaltError
			if errors.As(err, &he) && he.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq: %w", err)
		}
		var out []byte
		if s, ok := r.(string); ok {
			out = []byte(Sanitize(s))
		} else {
			b, err := gojq.Marshal(r)
			if err != nil {
				return fmt.Errorf("--jq: %w", err)
			}
			out = b
		}
		if _, err := j.w.Write(append(out, '\n')); err != nil {
			return err
		}
	}
}

// normalizeNumbers turns json.Number into int or float64, the number types gojq takes; big integers stay exact
// as gojq's *big.Int would need, so they fall back to float64 only past int's range.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64() // cannot fail: the decoder accepted it as a number
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}
