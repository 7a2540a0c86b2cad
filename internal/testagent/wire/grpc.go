package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// GRPCBreak is the one MUST of the A2A specification a BrokenGRPC agent breaks.
type GRPCBreak int

const (
	// BreakGRPCCancelStatus answers every CancelTask error with INTERNAL (§5.4: TaskNotFoundError is NOT_FOUND,
	// TaskNotCancelableError FAILED_PRECONDITION).
	BreakGRPCCancelStatus GRPCBreak = iota
)

// BrokenGRPC starts, on 127.0.0.1:0, a gRPC agent that is upstream (its card served at cardBase over HTTP, its gRPC
// service at endpoint, e.g. the a2a-go SDK's) with one requirement broken, b; it stops when the test ends. Calls are
// forwarded as they are (the messages are not decoded); the card is upstream's with endpoint replaced by its own.
// It returns the base URL of its card.
func BrokenGRPC(t testing.TB, cardBase, endpoint string, b GRPCBreak) string {
	t.Helper()
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() }) //nolint:errcheck // nothing to report
	gln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &grpcBreaker{up: conn, b: b}
	gs := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(p.forward)) //nolint:staticcheck // the raw codec needs no buffer pool
	go gs.Serve(gln)                                                                               //nolint:errcheck // ends at Stop
	t.Cleanup(gs.Stop)

	hln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self, base := gln.Addr().String(), strings.TrimSuffix(cardBase, "/")
	hc := &http.Client{Timeout: time.Minute}
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := hc.Get(base + r.URL.RequestURI())
		if err != nil {
			http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		w.Write(bytes.ReplaceAll(out, []byte(endpoint), []byte(self))) //nolint:errcheck // the client went
	})}
	go hs.Serve(hln)                 //nolint:errcheck // ends with ErrServerClosed at cleanup
	t.Cleanup(func() { hs.Close() }) //nolint:errcheck // nothing to report
	return "http://" + hln.Addr().String()
}

type grpcBreaker struct {
	up *grpc.ClientConn
	b  GRPCBreak
}

// forward relays one call: A2A's methods are unary or server-streaming, so one request, then every answer.
func (p *grpcBreaker) forward(_ any, ss grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(ss)
	if !ok {
		return status.Error(codes.Internal, "no method")
	}
	md, _ := metadata.FromIncomingContext(ss.Context())
	ctx := metadata.NewOutgoingContext(ss.Context(), md.Copy())
	cs, err := p.up.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return p.broken(method, err)
	}
	var req []byte
	if err := ss.RecvMsg(&req); err != nil {
		return err
	}
	if err := cs.SendMsg(&req); err != nil {
		return p.broken(method, err)
	}
	if err := cs.CloseSend(); err != nil {
		return p.broken(method, err)
	}
	for first := true; ; first = false {
		var resp []byte
		err := cs.RecvMsg(&resp)
		if errors.Is(err, io.EOF) {
			ss.SetTrailer(cs.Trailer())
			return nil
		}
		if err != nil {
			return p.broken(method, err)
		}
		if first {
			if h, err := cs.Header(); err == nil {
				ss.SendHeader(h) //nolint:errcheck // the client went: the next send says so
			}
		}
		if err := ss.SendMsg(&resp); err != nil {
			return err
		}
	}
}

// broken is the error upstream's err becomes.
func (p *grpcBreaker) broken(method string, err error) error {
	if p.b == BreakGRPCCancelStatus && strings.HasSuffix(method, "/CancelTask") {
		return status.Error(codes.Internal, status.Convert(err).Message())
	}
	return err
}

// rawCodec passes the messages' bytes through undecoded.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }

func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }
