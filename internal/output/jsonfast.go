package output

import (
	"encoding/base64"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// appendArtifactUpdate appends the StreamResponse JSON of e exactly as a2a-go's encoding writes it (compact, HTML
// escaped, invalid UTF-8 replaced), followed by a newline, for the common shape of a streamed chunk: no metadata,
// no description or extensions, parts that are text or raw bytes alone. ok is false for any other shape, which
// goes the general way. A stream is mostly such chunks, and a2a-go's reflective encoding of them (a marshaler per
// level, each output compacted again) was the larger part of -o json's cost. TestArtifactUpdateJSON and
// FuzzArtifactUpdateJSON hold it to the general encoding byte for byte.
func appendArtifactUpdate(b []byte, e *a2a.TaskArtifactUpdateEvent) ([]byte, bool) {
	a := e.Artifact
	if len(e.Metadata) > 0 || a == nil || a.Description != "" || len(a.Extensions) > 0 || len(a.Metadata) > 0 {
		return b, false
	}
	for _, p := range a.Parts {
		if p == nil || p.Filename != "" || p.MediaType != "" || len(p.Metadata) > 0 {
			return b, false
		}
		switch c := p.Content.(type) {
		case a2a.Text:
		case a2a.Raw:
			if c == nil {
				return b, false
			}
		default:
			return b, false
		}
	}
	b = append(b, `{"artifactUpdate":{`...)
	if e.Append {
		b = append(b, `"append":true,`...)
	}
	b = append(b, `"artifact":{"artifactId":`...)
	b = appendJSONString(b, string(a.ID))
	if a.Name != "" {
		b = append(b, `,"name":`...)
		b = appendJSONString(b, a.Name)
	}
	b = append(b, `,"parts":`...)
	if a.Parts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range a.Parts {
			if i > 0 {
				b = append(b, ',')
			}
			switch c := p.Content.(type) {
			case a2a.Text:
				b = append(b, `{"text":`...)
				b = appendJSONString(b, string(c))
			case a2a.Raw:
				b = append(b, `{"raw":"`...)
				b = base64.StdEncoding.AppendEncode(b, c)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `},"contextId":`...)
	b = appendJSONString(b, e.ContextID)
	if e.LastChunk {
		b = append(b, `,"lastChunk":true`...)
	}
	b = append(b, `,"taskId":`...)
	b = appendJSONString(b, string(e.TaskID))
	return append(b, "}}\n"...), true
}

// appendJSONString appends s as encoding/json writes a string: printable ASCII other than " \ < > & as it is,
// anything else through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // cannot fail: a string
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
