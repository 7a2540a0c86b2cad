package seedpb

import "sync"

var initOnce sync.Once

// Init builds the descriptor of seed/code_agent.proto and registers its types with the protobuf registry, once.
// protoc-gen-go does this in an init(), which every start of a2a would pay for although only serve --a3s uses
// these types; go generate (../../gen.go) replaces that init with a call to Init at the top of every generated
// ProtoReflect, enum Descriptor and enum Type, so the first use of a message or enum registers them.
func Init() { initOnce.Do(file_seed_code_agent_proto_init) }
