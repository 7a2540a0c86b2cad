// noinit takes out the init() that protoc-gen-go writes into a .pb.go file, which builds the file's descriptor
// and registers its types on every start of the program: a2a would pay for it on every command although only
// serve --a3s uses these types. Instead, each message's ProtoReflect and each enum's Descriptor and Type (every
// way into the protobuf API: Marshal, Unmarshal, the gRPC codec, String) first call the package's Init (lazy.go),
// which does the same once. go generate runs it after protoc (gen.go).
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	initFunc = regexp.MustCompile(`(?m)^func init\(\) \{ file_\w+_proto_init\(\) \}\n`)
	// entries are the generated methods that reach the descriptor or the message info the init builds.
	entries = regexp.MustCompile(`(?m)^func \([^)]*\) (ProtoReflect\(\) protoreflect\.Message|Descriptor\(\) protoreflect\.EnumDescriptor|Type\(\) protoreflect\.EnumType) \{\n`)
)

// main takes directories (go run would take .go arguments for its own source) and edits the .pb.go files in each;
// a generated _grpc.pb.go has no init.
func main() {
	var paths []string
	for _, dir := range os.Args[1:] {
		m, _ := filepath.Glob(filepath.Join(dir, "*.pb.go"))
		for _, p := range m {
			if !strings.HasSuffix(p, "_grpc.pb.go") {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		fmt.Fprintln(os.Stderr, "noinit: no .pb.go file in", os.Args[1:])
		os.Exit(1)
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err == nil && len(initFunc.FindAll(b, -1)) != 1 {
			err = fmt.Errorf("want exactly one generated init() calling file_…_proto_init")
		}
		if err == nil && bytes.Contains(b, []byte("\nfunc Init(")) {
			err = fmt.Errorf("the file declares Init itself")
		}
		if err == nil {
			b = initFunc.ReplaceAll(b, nil)
			b = entries.ReplaceAllFunc(b, func(m []byte) []byte { return append(append([]byte(nil), m...), "\tInit()\n"...) })
			err = os.WriteFile(path, b, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "noinit: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
}
