package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/itchyny/gojq"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
)

// jqWriter filters JSON written to it through a jq expression, in-process (gojq), one document per line: every
// JSON output of a2a is one compact document per line (a result, or JSON Lines for a stream). Results print as
// compact JSON, strings raw, as gh --jq does.
type jqWriter struct {
	w    io.Writer
	code *gojq.Code
	buf  []byte
}

func newJQWriter(w io.Writer, expr string) (*jqWriter, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, client.Usagef("invalid --jq expression: %v", err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, client.Usagef("invalid --jq expression: %v", err)
	}
	return &jqWriter{w: w, code: code}, nil
}

func (j *jqWriter) Write(p []byte) (int, error) {
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

// flush filters what is left without a final newline.
func (j *jqWriter) flush() error {
	line := j.buf
	j.buf = nil
	return j.filter(line)
}

func (j *jqWriter) filter(line []byte) error {
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
			out = []byte(output.Sanitize(s))
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

// flushJQ writes what --jq still holds.
func (f *factory) flushJQ() error {
	if f.jq == nil {
		return nil
	}
	return f.jq.flush()
}

// stdout is the real standard output, beneath any --jq filter: error documents are not filtered.
func (f *factory) stdout() io.Writer {
	if f.jq != nil {
		return f.jq.w
	}
	return f.io.Out
}

// writeJSON writes one compact JSON document and a newline to stdout (through --jq when set).
func (f *factory) writeJSON(b []byte) error {
	_, err := f.io.Out.Write(append(b, '\n'))
	return err
}

// outputColor decides colour for what goes to stdout: text follows the terminal and environment (colorOn); JSON is
// coloured only with --color always, so its bytes do not change between a terminal and a pipe.
func (f *factory) outputColor() bool {
	if f.opts.output == string(output.JSON) {
		return f.io.ColorMode == "always" && f.jq == nil
	}
	return f.io.ColorEnabled()
}

// withCmd gives a usage error the command it concerns, for the help hint.
func withCmd(err error, cmd string) error {
	var ue *client.UsageError
	if errors.As(err, &ue) && ue.Cmd == "" {
		ue.Cmd = cmd
	}
	return err
}
