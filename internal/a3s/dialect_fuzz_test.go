package a3s

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
	"github.com/a2acli/a2a/internal/a3s/proto/seedpb"
)

// FuzzChunk: whatever an agent sends, detection and decoding return an error or a chunk and never panic; a
// detection error never comes with a dialect, and a seed chunk's kind is one of the seed's or "unknown(N)".
func FuzzChunk(f *testing.F) {
	for _, m := range []proto.Message{
		&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_TOOL_CALL, ToolCall: &seedpb.ToolCall{Id: "c", Name: "bash"}},
		&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_DONE, Metadata: map[string]string{"finish_reason": "length"}},
		&a3spb.GenerateChunk{Type: "content", Content: "hi"},
		&a3spb.GenerateChunk{Type: "done", FinishReason: "error", Metadata: map[string]string{"error": "x"}},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := chunkDialect(raw)
		if err != nil {
			if d != Auto {
				t.Fatalf("chunkDialect = %v with error %v", d, err)
			}
			return
		}
		c, err := decodeChunk(raw, d)
		if err != nil {
			return // field 1 fine, the rest malformed
		}
		if c == nil {
			t.Fatal("decodeChunk returned neither a chunk nor an error")
		}
		if d == Seed && !seedKind(c.kind) {
			t.Fatalf("seed chunk decoded with kind %q", c.kind)
		}
	})
}

func seedKind(k string) bool {
	for _, v := range seedKinds {
		if v == k {
			return true
		}
	}
	return strings.HasPrefix(k, "unknown(")
}
