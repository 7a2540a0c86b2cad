package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/tidwall/pretty"

	"github.com/a2acli/a2a/internal/termsafe"
)

// ErrorDoc is the error document printed instead of a result with -o json.
type ErrorDoc struct {
	// Code is the A2A error name (TaskNotFoundError) or one of ours (A2ACLI_ERR_TIMEOUT).
	Code string
	// Message is the one-line description of the failure.
	Message string
	// Hint tells the user what to try next; "" is written as null.
	Hint string
	// A2ACode is the protocol's numeric error code; nil is written as null.
	A2ACode *int
	// TaskID is the task the failure happened to, when one exists; "" leaves the key out.
	TaskID string
	// Data is the data the agent sent with its error, any JSON value; nil leaves the key out.
	Data json.RawMessage
}

type errorEnvelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Hint    *string         `json:"hint"`
	A2ACode *int            `json:"a2aCode"`
	TaskID  string          `json:"taskId,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error writes d as {"error":{"code":…,"message":…,"hint":…|null,"a2aCode":…|null}}. It is
// meant for JSON output; in text mode it writes the same fields as labelled lines.
func (p *Printer) Error(d ErrorDoc) error {
	if p.o.Format == JSON {
		body := errorBody{Code: d.Code, Message: d.Message, A2ACode: d.A2ACode, TaskID: d.TaskID}
		if json.Valid(d.Data) {
			body.Data = d.Data
		}
		if d.Hint != "" {
			body.Hint = &d.Hint
		}
		return p.writeJSON(errorEnvelope{Error: body})
	}
	var b bytes.Buffer
	p.endPartial(&b)
	p.field(&b, "Error", d.Code)
	p.field(&b, "Message", d.Message)
	if d.Hint != "" {
		p.field(&b, "Hint", d.Hint)
	}
	if d.A2ACode != nil {
		p.field(&b, "A2A Code", fmt.Sprint(*d.A2ACode))
	}
	if d.TaskID != "" {
		p.field(&b, "Task ID", d.TaskID)
	}
	return p.emit(b.Bytes())
}

// writeJSON marshals v with encoding/json (so the protocol types use their own MarshalJSON)
// and writes it as one document: compact on one line, or indented when Indent is set, and
// coloured only when Color is set.
func (p *Printer) writeJSON(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	out := escapeControls(buf.Bytes())
	if p.o.Indent {
		out = pretty.PrettyOptions(out, &pretty.Options{Width: 80, Indent: indent})
	}
	if p.o.Color {
		out = pretty.Color(out, nil)
	}
	return p.emit(out)
}

// escapeControls rewrites raw DEL, C1 controls and the other termsafe.IsControl runes as \u escapes.
// encoding/json leaves them raw, and terminals act on them; in valid JSON they can only occur
// inside strings, where the escape means the same thing.
func escapeControls(b []byte) []byte {
	// Fast path: every such rune is DEL or starts with 0xC2, 0xD8 (U+061C), 0xE2 or 0xEF (U+FEFF) in UTF-8.
	if bytes.IndexByte(b, 0x7f) < 0 && bytes.IndexByte(b, 0xc2) < 0 && bytes.IndexByte(b, 0xe2) < 0 &&
		bytes.IndexByte(b, 0xd8) < 0 && bytes.IndexByte(b, 0xef) < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x7f && termsafe.IsControl(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}
