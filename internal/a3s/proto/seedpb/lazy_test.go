package seedpb

import (
	"testing"

	"google.golang.org/protobuf/proto"
)

// The package registers nothing until its types are first used (../../gen.go): a2a's start-up does not build the
// descriptor. An enum's String is a first use too.
func TestRegisteredOnFirstUse(t *testing.T) {
	if File_seed_code_agent_proto != nil {
		t.Fatal("the descriptor was built at start-up: has protoc-gen-go's init() come back? go generate runs cmd/a3s-noinit")
	}
	if s := GenerateChunk_CHUNK_TYPE_DONE.String(); s != "CHUNK_TYPE_DONE" {
		t.Errorf("enum String = %q", s)
	}
	if File_seed_code_agent_proto == nil {
		t.Fatal("String did not register the file")
	}
	b, err := proto.Marshal(&GenerateChunk{Type: GenerateChunk_CHUNK_TYPE_CONTENT, Content: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	var back GenerateChunk
	if err := proto.Unmarshal(b, &back); err != nil || back.GetContent() != "hi" || back.GetType() != GenerateChunk_CHUNK_TYPE_CONTENT {
		t.Fatalf("round trip: %v, %v", &back, err)
	}
}
