package a3s

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
	"github.com/a2acli/a2a/internal/a3s/proto/seedpb"
)

// Dialect is the shape of the interface an agent speaks.
type Dialect int

// The dialects: Auto detects which one the agent speaks.
const (
	Auto Dialect = iota
	Seed         // the seed document's: GenerateChunk.type and Message.role are enums
	A3S          // the A3S Code project's proto: strings, plus the human-in-the-loop RPCs
)

// ParseDialect reads --a3s-dialect.
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "seed":
		return Seed, nil
	case "a3s":
		return A3S, nil
	}
	return Auto, fmt.Errorf("invalid A3S dialect %q (want auto, seed or a3s)", s)
}

func (d Dialect) String() string {
	switch d {
	case Seed:
		return "seed"
	case A3S:
		return "a3s"
	}
	return "auto"
}

// chunk is one GenerateChunk in either shape, normalised.
type chunk struct {
	kind    string // content, tool_call, tool_result, metadata, done, tool_output_delta, ... (A3S's names)
	content string
	call    *toolCall
	result  *toolResult
	meta    map[string]string
	finish  string // done: stop, length, tool_calls, content_filter, error ("" when not said)
}

type toolCall struct {
	id, name, args string
	result         *toolResult
}

type toolResult struct {
	success       bool
	output, error string
	meta          map[string]string
}

var errNoType = errors.New("no type")

// chunkDialect tells the shape of a raw GenerateChunk from the wire type of field 1 (type): a
// varint is the seed's enum, length-delimited is A3S Code's string. A chunk without field 1
// (type 0 in the seed, "" in A3S Code: both mean unknown) says nothing: errNoType.
func chunkDialect(raw []byte) (Dialect, error) {
	b := raw
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return Auto, fmt.Errorf("malformed GenerateChunk: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if num == 1 {
			switch typ {
			case protowire.VarintType:
				return Seed, nil
			case protowire.BytesType:
				return A3S, nil
			}
			return Auto, fmt.Errorf("GenerateChunk.type has wire type %d, neither the seed's enum nor A3S Code's string", typ)
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return Auto, fmt.Errorf("malformed GenerateChunk: %w", protowire.ParseError(m))
		}
		b = b[m:]
	}
	return Auto, errNoType
}

// seedKinds are the seed's ChunkType values under A3S Code's names.
var seedKinds = map[seedpb.GenerateChunk_ChunkType]string{
	seedpb.GenerateChunk_CHUNK_TYPE_CONTENT:     "content",
	seedpb.GenerateChunk_CHUNK_TYPE_TOOL_CALL:   "tool_call",
	seedpb.GenerateChunk_CHUNK_TYPE_TOOL_RESULT: "tool_result",
	seedpb.GenerateChunk_CHUNK_TYPE_METADATA:    "metadata",
	seedpb.GenerateChunk_CHUNK_TYPE_DONE:        "done",
}

// decodeChunk decodes raw in dialect d.
func decodeChunk(raw []byte, d Dialect) (*chunk, error) {
	switch d {
	case Seed:
		var m seedpb.GenerateChunk
		if err := proto.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("decode GenerateChunk (seed shape): %w", err)
		}
		c := &chunk{kind: seedKinds[m.GetType()], content: m.GetContent(), meta: m.GetMetadata()}
		if c.kind == "" {
			c.kind = fmt.Sprintf("unknown(%d)", m.GetType())
		}
		if tc := m.GetToolCall(); tc != nil {
			c.call = &toolCall{id: tc.GetId(), name: tc.GetName(), args: tc.GetArguments(), result: seedResult(tc.GetResult())}
		}
		c.result = seedResult(m.GetToolResult())
		if c.kind == "done" {
			c.finish = m.GetMetadata()["finish_reason"] // the seed's chunk has no finish_reason field
		}
		return c, nil
	case A3S:
		var m a3spb.GenerateChunk
		if err := proto.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("decode GenerateChunk (A3S Code shape): %w", err)
		}
		c := &chunk{kind: m.GetType(), content: m.GetContent(), meta: m.GetMetadata(), finish: m.GetFinishReason()}
		if tc := m.GetToolCall(); tc != nil {
			c.call = &toolCall{id: tc.GetId(), name: tc.GetName(), args: tc.GetArguments(), result: a3sResult(tc.GetResult())}
		}
		c.result = a3sResult(m.GetToolResult())
		if c.kind == "done" && c.finish == "" {
			c.finish = m.GetMetadata()["finish_reason"]
		}
		return c, nil
	}
	return nil, errors.New("decode GenerateChunk: dialect unknown")
}

func seedResult(r *seedpb.ToolResult) *toolResult {
	if r == nil {
		return nil
	}
	return &toolResult{success: r.GetSuccess(), output: r.GetOutput(), error: r.GetError(), meta: r.GetMetadata()}
}

func a3sResult(r *a3spb.ToolResult) *toolResult {
	if r == nil {
		return nil
	}
	return &toolResult{success: r.GetSuccess(), output: r.GetOutput(), error: r.GetError(), meta: r.GetMetadata()}
}
