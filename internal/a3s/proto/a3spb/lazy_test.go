package a3spb

import (
	"testing"

	"google.golang.org/protobuf/proto"
)

// The package registers nothing until its types are first used (../../gen.go): a2a's start-up does not build the
// descriptor. The first Marshal does, and the bytes are protobuf's.
func TestRegisteredOnFirstUse(t *testing.T) {
	if File_a3s_code_agent_proto != nil {
		t.Fatal("the descriptor was built at start-up: has protoc-gen-go's init() come back? go generate runs cmd/a3s-noinit")
	}
	b, err := proto.Marshal(&GenerateChunk{Type: "content", Content: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if File_a3s_code_agent_proto == nil {
		t.Fatal("Marshal did not register the file")
	}
	var back GenerateChunk
	if err := proto.Unmarshal(b, &back); err != nil || back.GetContent() != "hi" || back.GetType() != "content" {
		t.Fatalf("round trip: %v, %v", &back, err)
	}
	if s := HealthCheckResponse_STATUS_UNHEALTHY.String(); s != "STATUS_UNHEALTHY" {
		t.Errorf("enum String = %q", s)
	}
}
