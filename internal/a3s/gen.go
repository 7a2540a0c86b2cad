package a3s

// The Go code of the two shapes of the A3S Code Agent Interface is generated and committed. To
// regenerate it (go generate ./internal/a3s/) you need protoc (3.15 or later: proto3 optional) and
// the plugins at the versions the committed code names:
//
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.11
//	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.1
//
// cmd/a3s-noinit then takes protoc-gen-go's init() out of the .pb.go files: each package's Init registers its types on
// first use, so a2a's start-up does not build descriptors only serve --a3s needs.
//
//go:generate protoc -I proto --go_out=proto --go_opt=module=github.com/a2acli/a2a/internal/a3s/proto --go-grpc_out=proto --go-grpc_opt=module=github.com/a2acli/a2a/internal/a3s/proto seed/code_agent.proto a3s/code_agent.proto
//go:generate go run ../../cmd/a3s-noinit proto/seedpb proto/a3spb
