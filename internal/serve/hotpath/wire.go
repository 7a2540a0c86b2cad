package hotpath

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The encoder below writes the a2a v1.0 values our handlers emit, byte for byte as json.Marshal
// writes them. json.Marshal re-scans the output of every nested MarshalJSON (StreamResponse,
// ContentParts, Part, the enums), so a streamed text is copied and validated several times per
// event; here each byte is looked at once. Whatever is not covered (a nil event, unknown part
// content, metadata values) is handed to json.Marshal, so the output stays exact.

// appendStreamResponse appends the JSON of a2a.StreamResponse{Event: ev}.
func appendStreamResponse(b []byte, ev a2a.Event) ([]byte, error) {
	var err error
	switch v := ev.(type) {
	case *a2a.TaskArtifactUpdateEvent:
		if v != nil {
			b = append(b, `{"artifactUpdate":`...)
			b, err = appendArtifactUpdate(b, v)
			return append(b, '}'), err
		}
	case *a2a.TaskStatusUpdateEvent:
		if v != nil {
			b = append(b, `{"statusUpdate":`...)
			b, err = appendStatusUpdate(b, v)
			return append(b, '}'), err
		}
	case *a2a.Task:
		if v != nil {
			b = append(b, `{"task":`...)
			b, err = appendTask(b, v)
			return append(b, '}'), err
		}
	case *a2a.Message:
		if v != nil {
			b = append(b, `{"message":`...)
			b, err = appendMessage(b, v)
			return append(b, '}'), err
		}
	}
	return appendMarshal(b, a2a.StreamResponse{Event: ev})
}

// appendMarshal appends json.Marshal(v).
func appendMarshal(b []byte, v any) ([]byte, error) {
	out, err := json.Marshal(v)
	if err != nil {
		return b, fmt.Errorf("encode %T: %w", v, err)
	}
	return append(b, out...), nil
}

func appendArtifactUpdate(b []byte, e *a2a.TaskArtifactUpdateEvent) ([]byte, error) {
	b = append(b, '{')
	if e.Append {
		b = append(b, `"append":true,`...)
	}
	b = append(b, `"artifact":`...)
	b, err := appendArtifact(b, e.Artifact)
	if err != nil {
		return b, err
	}
	b = append(b, `,"contextId":`...)
	b = appendString(b, e.ContextID)
	if e.LastChunk {
		b = append(b, `,"lastChunk":true`...)
	}
	b = append(b, `,"taskId":`...)
	b = appendString(b, string(e.TaskID))
	b, err = appendMetadata(b, e.Metadata)
	return append(b, '}'), err
}

func appendStatusUpdate(b []byte, e *a2a.TaskStatusUpdateEvent) ([]byte, error) {
	b = append(b, `{"contextId":`...)
	b = appendString(b, e.ContextID)
	b = append(b, `,"status":`...)
	b, err := appendStatus(b, &e.Status)
	if err != nil {
		return b, err
	}
	b = append(b, `,"taskId":`...)
	b = appendString(b, string(e.TaskID))
	b, err = appendMetadata(b, e.Metadata)
	return append(b, '}'), err
}

func appendTask(b []byte, t *a2a.Task) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = appendString(b, string(t.ID))
	if len(t.Artifacts) > 0 {
		b = append(b, `,"artifacts":[`...)
		for i, a := range t.Artifacts {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendArtifact(b, a); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"contextId":`...)
	b = appendString(b, t.ContextID)
	if len(t.History) > 0 {
		b = append(b, `,"history":[`...)
		for i, m := range t.History {
			if i > 0 {
				b = append(b, ',')
			}
			if m == nil {
				b = append(b, "null"...)
			} else if b, err = appendMessage(b, m); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	if b, err = appendMetadata(b, t.Metadata); err != nil {
		return b, err
	}
	b = append(b, `,"status":`...)
	b, err = appendStatus(b, &t.Status)
	return append(b, '}'), err
}

func appendStatus(b []byte, s *a2a.TaskStatus) ([]byte, error) {
	var err error
	b = append(b, '{')
	if s.Message != nil {
		b = append(b, `"message":`...)
		if b, err = appendMessage(b, s.Message); err != nil {
			return b, err
		}
		b = append(b, ',')
	}
	b = append(b, `"state":`...)
	b = appendString(b, s.State.String())
	if s.Timestamp != nil {
		b = append(b, `,"timestamp":`...)
		if b, err = appendTime(b, *s.Timestamp); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendTime writes what time.Time.MarshalJSON writes (strict RFC 3339, errors included).
func appendTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return b, fmt.Errorf("encode timestamp: %w", err)
	}
	return append(b, '"'), nil
}

func appendMessage(b []byte, m *a2a.Message) ([]byte, error) {
	var err error
	b = append(b, `{"messageId":`...)
	b = appendString(b, m.ID)
	if m.ContextID != "" {
		b = append(b, `,"contextId":`...)
		b = appendString(b, m.ContextID)
	}
	b = appendStrings(b, `,"extensions":`, m.Extensions)
	if b, err = appendMetadata(b, m.Metadata); err != nil {
		return b, err
	}
	b = append(b, `,"parts":`...)
	if b, err = appendParts(b, m.Parts); err != nil {
		return b, err
	}
	if len(m.ReferenceTasks) > 0 {
		b = append(b, `,"referenceTaskIds":[`...)
		for i, id := range m.ReferenceTasks {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(id))
		}
		b = append(b, ']')
	}
	b = append(b, `,"role":`...)
	b = appendString(b, m.Role.String())
	if m.TaskID != "" {
		b = append(b, `,"taskId":`...)
		b = appendString(b, string(m.TaskID))
	}
	return append(b, '}'), nil
}

func appendArtifact(b []byte, a *a2a.Artifact) ([]byte, error) {
	if a == nil {
		return append(b, "null"...), nil
	}
	var err error
	b = append(b, `{"artifactId":`...)
	b = appendString(b, string(a.ID))
	if a.Description != "" {
		b = append(b, `,"description":`...)
		b = appendString(b, a.Description)
	}
	b = appendStrings(b, `,"extensions":`, a.Extensions)
	if b, err = appendMetadata(b, a.Metadata); err != nil {
		return b, err
	}
	if a.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, a.Name)
	}
	b = append(b, `,"parts":`...)
	b, err = appendParts(b, a.Parts)
	return append(b, '}'), err
}
