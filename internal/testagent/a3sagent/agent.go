// Package a3sagent owns scripted coding agents that speak the A3S Code Agent Interface over gRPC,
// for tests of the a2a bridge (serve --a3s): one Go server per shape of the interface, the seed
// document's and the A3S Code project's, built from the project's .proto files (generated code in
// internal/a3s/proto), not from the bridge. Like A3S Code, the A3S-shaped agent asks for tool
// confirmations through SubscribeEvents and waits for ConfirmToolExecution.
//
// The script is chosen by words in the prompt (see script.go). Every call is logged (Calls) so a
// test can check what the bridge sent. Decoding is strict, as a prost (Rust) server's is: a
// request carrying fields of the other shape is refused with InvalidArgument.
//
// Imported only from tests; it starts on 127.0.0.1:0 and stops in t.Cleanup, never sleeping.
package a3sagent

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
	"github.com/a2acli/a2a/internal/a3s/proto/seedpb"
)

// Shape is the shape of the interface an agent speaks.
type Shape int

// The shapes.
const (
	A3S  Shape = iota // A3S Code's proto: string chunk types, HITL
	Seed              // the seed document's: enum chunk types, no HITL
)

func (s Shape) String() string {
	if s == Seed {
		return "seed"
	}
	return "a3s"
}

// Options configure an agent.
type Options struct {
	Shape     Shape
	Unhealthy bool // HealthCheck answers UNHEALTHY
	// Lenient accepts a GenerateRequest of either shape (as protobuf-go does, unlike prost), so a test
	// can make it answer a client that sent the other shape.
	Lenient bool
	TLS     *tls.Config // serve TLS with it; nil: plaintext
}

// Agent is a running test agent.
type Agent struct {
	Addr  string // 127.0.0.1:PORT
	shape Shape
	opts  Options

	mu       sync.Mutex
	calls    []string
	sessions map[string]*session
	next     int
	subs     map[string][]chan *a3spb.AgentEvent // by session id
}

type session struct {
	id, workspace string
	confirm       chan confirmation // the answer to the call waiting for confirmation
	pending       string            // tool id waiting for confirmation
	cancel        chan struct{}     // closed by Cancel during a generation
}

type confirmation struct {
	approved bool
	reason   string
}

// Start serves an agent of the given shape until the test ends.
func Start(t testing.TB, opts Options) *Agent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("a3sagent: listen: %v", err)
	}
	a := &Agent{Addr: ln.Addr().String(), shape: opts.Shape, opts: opts,
		sessions: map[string]*session{}, subs: map[string][]chan *a3spb.AgentEvent{}}
	var sopts []grpc.ServerOption
	if opts.TLS != nil {
		sopts = append(sopts, grpc.Creds(credentials.NewTLS(opts.TLS)))
	}
	s := grpc.NewServer(sopts...)
	if opts.Shape == Seed {
		d := seedpb.CodeAgentService_ServiceDesc
		d.ServiceName = "a3s.code.agent.v1.CodeAgentService" // the seed's package is renamed in our .proto
		s.RegisterService(&d, &seedServer{a: a})
	} else {
		a3spb.RegisterCodeAgentServiceServer(s, &a3sServer{a: a})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Serve(ln) //nolint:errcheck // ends with Stop
	}()
	t.Cleanup(func() {
		s.Stop()
		<-done
	})
	return a
}

// Calls returns the calls received so far, one line each: "Method arg…".
func (a *Agent) Calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

// Called reports whether some call line starts with prefix.
func (a *Agent) Called(prefix string) bool {
	for _, c := range a.Calls() {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

func (a *Agent) log(format string, args ...any) {
	a.mu.Lock()
	a.calls = append(a.calls, fmt.Sprintf(format, args...))
	a.mu.Unlock()
}

func (a *Agent) newSession(ws string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	id := fmt.Sprintf("sess-%d", a.next)
	a.sessions[id] = &session{id: id, workspace: ws, confirm: make(chan confirmation, 1)}
	a.calls = append(a.calls, fmt.Sprintf("CreateSession %s %s", id, ws))
	return id
}

func (a *Agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// strict refuses a message with fields this shape does not have (or of the wrong wire type),
// as a prost-generated server does.
func strict(m proto.Message) error {
	var bad error
	var walk func(protoreflect.Message)
	walk = func(r protoreflect.Message) {
		if len(r.GetUnknown()) > 0 && bad == nil {
			bad = fmt.Errorf("%s has fields of another shape", r.Descriptor().FullName())
		}
		r.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
				walk(v.Message())
			}
			return true
		})
	}
	walk(m.ProtoReflect())
	return bad
}
