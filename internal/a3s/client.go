package a3s

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
	"github.com/a2acli/a2a/internal/a3s/proto/seedpb"
)

// client reaches one A3S agent. The calls whose messages are the same on the wire in both shapes
// (health, capabilities, initialize, sessions, cancel) go through A3S Code's generated client;
// StreamGenerate is encoded in the agent's dialect and its chunks decoded raw (see dialect.go).
type client struct {
	addr    string // as the user gave it, for messages
	cc      *grpc.ClientConn
	api     a3spb.CodeAgentServiceClient
	forced  Dialect // --a3s-dialect; Auto: detect
	mu      sync.Mutex
	dialect Dialect // learnt (or forced); Auto until known
}

// dial parses addr (host:port or http:// for plaintext, https:// for TLS) and makes a client. It
// does not connect: gRPC connects on the first call, so a dead agent does not stop serve.
func dial(addr string, d Dialect, tlsCfg *tls.Config) (*client, error) {
	target, secure, err := parseAddr(addr)
	if err != nil {
		return nil, err
	}
	creds := insecure.NewCredentials()
	if secure {
		creds = credentials.NewTLS(tlsCfg)
	}
	cc, err := grpc.NewClient("passthrough:///"+target, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, fmt.Errorf("A3S agent %s: %w", addr, err)
	}
	return &client{addr: addr, cc: cc, api: a3spb.NewCodeAgentServiceClient(cc), forced: d, dialect: d}, nil
}

// parseAddr reads HOST:PORT, http://HOST:PORT (plaintext) or https://HOST[:PORT] (TLS, port 443 by default).
func parseAddr(addr string) (target string, secure bool, err error) {
	if strings.Contains(addr, "://") {
		u, err := url.Parse(addr)
		if err != nil {
			return "", false, fmt.Errorf("invalid A3S address %q: %w", addr, err)
		}
		switch u.Scheme {
		case "http":
		case "https":
			secure = true
		default:
			return "", false, fmt.Errorf("invalid A3S address %q: scheme %q (want http or https)", addr, u.Scheme)
		}
		if u.Path != "" && u.Path != "/" {
			return "", false, fmt.Errorf("invalid A3S address %q: a gRPC address has no path", addr)
		}
		addr = u.Host
		if u.Port() == "" {
			port := "80"
			if secure {
				port = "443"
			}
			addr = net.JoinHostPort(u.Hostname(), port)
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || port == "" {
		return "", false, fmt.Errorf("invalid A3S address %q: want HOST:PORT, http://HOST:PORT or https://HOST[:PORT]", addr)
	}
	return addr, secure, nil
}

func (c *client) close() error { return c.cc.Close() }

// known returns the dialect when it is forced or learnt.
func (c *client) known() Dialect {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dialect
}

// learn records the dialect a chunk showed. A forced dialect is never overridden: a chunk of the
// other shape is an error, not a misreading.
func (c *client) learn(d Dialect) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forced != Auto && d != c.forced {
		return fmt.Errorf("the agent sends the %s shape of GenerateChunk (type as %s), but --a3s-dialect is %s",
			d, wireName(d), c.forced)
	}
	c.dialect = d
	return nil
}

func wireName(d Dialect) string {
	if d == Seed {
		return "an enum"
	}
	return "a string"
}

// probe learns the dialect before the first StreamGenerate, which must be encoded in it (Message.role
// is an enum in one shape and a string in the other, which a strict decoder refuses): only A3S Code's
// interface has ConfirmToolExecution, so an empty one (no session, no tool: it changes nothing) that
// is Unimplemented means the seed's shape. The chunks have the last word (see learn).
func (c *client) probe(ctx context.Context) (Dialect, error) {
	if d := c.known(); d != Auto {
		return d, nil
	}
	_, err := c.api.ConfirmToolExecution(ctx, &a3spb.ConfirmToolExecutionRequest{})
	d := A3S
	switch status.Code(err) {
	case codes.Unimplemented:
		d = Seed
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return Auto, err
	}
	c.mu.Lock()
	if c.dialect == Auto {
		c.dialect = d
	}
	d = c.dialect
	c.mu.Unlock()
	return d, nil
}

// rawCodec sends proto messages and receives the raw bytes of each response message, so the
// dialect can be read from the wire before decoding.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot marshal %T", v)
	}
	return proto.Marshal(m)
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec: cannot unmarshal into %T", v)
	}
	*p = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// generate starts StreamGenerate with text as the user message, encoded in dialect d.
func (c *client) generate(ctx context.Context, d Dialect, sessionID, text string) (grpc.ClientStream, error) {
	var req proto.Message
	if d == Seed {
		req = &seedpb.GenerateRequest{SessionId: sessionID,
			Messages: []*seedpb.Message{{Role: seedpb.Message_ROLE_USER, Content: text}}}
	} else {
		req = &a3spb.GenerateRequest{SessionId: sessionID, Messages: []*a3spb.Message{{Role: "user", Content: text}}}
	}
	desc := &grpc.StreamDesc{StreamName: "StreamGenerate", ServerStreams: true}
	s, err := c.cc.NewStream(ctx, desc, "/"+ServiceName+"/StreamGenerate", grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return nil, err
	}
	if err := s.SendMsg(req); err != nil {
		return nil, err
	}
	if err := s.CloseSend(); err != nil {
		return nil, err
	}
	return s, nil
}

// recv reads the next raw chunk; io.EOF at the end of the stream.
func recv(s grpc.ClientStream) ([]byte, error) {
	var raw []byte
	if err := s.RecvMsg(&raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// grpcErr words a failed call for the A2A side: the agent's address, the call, and what gRPC said.
func (c *client) grpcErr(call string, err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("A3S agent %s: %s: stream ended", c.addr, call)
	}
	if st, ok := status.FromError(err); ok {
		if st.Code() == codes.Unavailable {
			return fmt.Errorf("A3S agent %s unreachable: %s: %s", c.addr, call, st.Message())
		}
		return fmt.Errorf("A3S agent %s: %s: %s (%s)", c.addr, call, st.Message(), st.Code())
	}
	return fmt.Errorf("A3S agent %s: %s: %w", c.addr, call, err)
}

// ServiceName is the gRPC service both shapes of the interface are served under. The seed's
// generated code names another (its proto package is renamed, see proto/seed/code_agent.proto):
// the bridge never uses the seed's generated client (the calls it shares with A3S Code's shape
// are the same on the wire, and StreamGenerate is called by this path), and a seed-shaped Go
// agent registers seedpb.CodeAgentService_ServiceDesc with ServiceName set to this.
const ServiceName = "a3s.code.agent.v1.CodeAgentService"

// CheckAddr reports whether addr is an address the bridge can dial (see Config.Addr).
func CheckAddr(addr string) error {
	_, _, err := parseAddr(addr)
	return err
}
