package testagent

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// serveGRPC serves the gRPC binding on one listener and the card over HTTP on another.
func (a *Agent) serveGRPC(t testing.TB, h a2asrv.RequestHandler) error {
	gln, err := listen()
	if err != nil {
		return err
	}
	hln, err := listen()
	if err != nil {
		_ = gln.Close()
		return err
	}
	tl := &trackingListener{Listener: gln, conns: map[string]*cuttableConn{}, agent: a}
	a.Endpoint = gln.Addr().String()
	a.URL = "http://" + hln.Addr().String()
	a.CardURL = a.URL + a2asrv.WellKnownAgentCardPath
	a.Card = a.buildCard(a.Endpoint)

	mux := http.NewServeMux()
	if err := a.mountCard(mux); err != nil {
		_ = gln.Close()
		_ = hln.Close()
		return err
	}
	srv := grpc.NewServer(
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			if err := a.checkMetadata(ctx); err != nil {
				return nil, err
			}
			return next(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			if err := a.checkMetadata(ss.Context()); err != nil {
				return err
			}
			if a.opts.Behavior == DieMidStream && strings.HasSuffix(info.FullMethod, "/SendStreamingMessage") {
				tl.arm(ss.Context())
			}
			return next(srv, ss)
		}),
	)
	if a.opts.V03 {
		grpcv0.NewHandler(h).RegisterWith(srv)
	} else {
		grpcv1.NewHandler(h).RegisterWith(srv)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(tl); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			t.Errorf("testagent: serve grpc: %v", err)
		}
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	serveHTTPOn(t, hln, mux)
	return nil
}

// checkMetadata records the call's metadata as headers and enforces RequireAuth.
func (a *Agent) checkMetadata(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	h := http.Header{}
	for k, vs := range md {
		if strings.HasPrefix(k, ":") {
			continue
		}
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	a.recordRequest(h)
	if need := a.opts.RequireAuth; need != "" && h.Get("Authorization") != need {
		return status.Error(codes.Unauthenticated, "missing or wrong authorization")
	}
	return nil
}

// trackingListener remembers accepted connections by remote address so a
// streaming call can arm its connection to be cut.
type trackingListener struct {
	net.Listener
	agent *Agent
	mu    sync.Mutex
	conns map[string]*cuttableConn
}

// Accept implements net.Listener.
func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	cc := &cuttableConn{Conn: c, agent: l.agent}
	l.mu.Lock()
	l.conns[c.RemoteAddr().String()] = cc
	l.mu.Unlock()
	return cc, nil
}

// arm marks the connection carrying ctx's call to be cut after DieMarker.
func (l *trackingListener) arm(ctx context.Context) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.conns[p.Addr.String()]; c != nil {
		c.mu.Lock()
		c.armed = true
		c.mu.Unlock()
	}
}

// cuttableConn closes itself right after writing bytes that hold DieMarker,
// once armed. gRPC does not compress messages here, so the marker is visible.
type cuttableConn struct {
	net.Conn
	agent *Agent
	mu    sync.Mutex
	armed bool
}

// Write implements net.Conn.
func (c *cuttableConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	cut := c.armed && bytes.Contains(p, []byte(DieMarker))
	c.mu.Unlock()
	if cut {
		_ = c.Conn.Close()
		c.agent.signalCut()
	}
	return n, err
}
