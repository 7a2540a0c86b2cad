package serve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
)

// grpcOptions applies the guard's rules to gRPC: :authority as Host, Origin, the token from the authorization
// metadata, the message size bound, the budget of messages in flight and the connection timeouts.
func (g *guard) grpcOptions(idle time.Duration) []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			releaseGRPCBody(ctx) // a unary call's handler runs once its request arrived whole
			ctx, done := g.log.GRPCCall(ctx)
			ctx, err := g.checkGRPC(ctx)
			if err == nil {
				var resp any
				resp, err = h(ctx, req)
				if err == nil {
					return resp, nil
				}
			}
			done(info.FullMethod, err)
			return nil, err
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			ctx, done := g.log.GRPCCall(ss.Context())
			ctx, err := g.checkGRPC(ctx)
			if err == nil {
				err = h(srv, &ctxStream{ServerStream: ss, ctx: ctx, release: grpcBodyOf(ss.Context())})
			}
			done(info.FullMethod, err)
			return err
		}),
		grpc.ConnectionTimeout(readHeaderTimeout),
	}
	if g.maxBody >= 0 {
		opts = append(opts, grpc.MaxRecvMsgSize(int(min(g.maxBody, 1<<31-1))))
	}
	if g.bodies.max >= 0 {
		opts = append(opts, grpc.InTapHandle(g.grpcTap))
	}
	if idle > 0 {
		// Idle connections close like HTTP ones; a peer that stops answering pings (gone without a FIN) is let go.
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: idle,
			Time: 2 * time.Minute, Timeout: 20 * time.Second}))
	}
	return opts
}

// checkGRPC checks one call and returns its context without serve's own token in the metadata.
func (g *guard) checkGRPC(ctx context.Context) (context.Context, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	authority := first(md, ":authority")
	if !g.hostAllowed(authority) {
		h := hostOnly(authority)
		return ctx, status.Error(codes.PermissionDenied, fmt.Sprintf("a2a serve: authority %q refused: this server "+
			"answers only loopback names and the --public-url's host; to accept this one, start it with --allow-host %s", h, h))
	}
	if origin := first(md, "origin"); origin != "" {
		if ok, _ := g.originAllowed(origin, authority); !ok {
			return ctx, status.Error(codes.PermissionDenied, fmt.Sprintf("a2a serve: cross-origin request from %s "+
				"refused; to allow it, start the server with --allow-origin %s", origin, origin))
		}
	}
	if !g.hasToken {
		return ctx, nil
	}
	if !g.tokenOK(first(md, "authorization")) {
		return ctx, status.Error(codes.Unauthenticated,
			"a2a serve: this server needs its token: send authorization: Bearer <token> (a2a --auth \"Bearer $TOKEN\")")
	}
	md = md.Copy()
	delete(md, "authorization") // serve's own token goes no further: not upstream, not in a log
	return metadata.NewIncomingContext(ctx, md), nil
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// A gRPC request message is read by grpc-go before any handler sees it, up to --max-request-bytes (MaxRecvMsgSize),
// so the HTTP bodies' budget (guardlimits.go) holds gRPC calls too: a call reserves the largest message it may send
// when its stream opens (grpcTap, before a byte of it is read), and gives it back once its request arrived (the
// unary interceptor, a stream's first RecvMsg) or the stream ended, whichever is first. A stream that would go past
// the budget is refused at once with UNAVAILABLE, as an HTTP body is with 503: 1000 streams that each send all but
// the last byte of a large message cannot hold 1000 messages. At most 64 calls are being received at once at the
// default --max-request-bytes (the budget is 64 times it); a call that is running, a stream that is open, holds
// nothing.

// grpcBody is a call's reservation in the bodies' budget.
type grpcBody struct {
	once   sync.Once
	budget *bodyBudget
	n      int64
}

func (b *grpcBody) release() {
	if b != nil {
		b.once.Do(func() {
			b.budget.give(b.n)
			b.budget.log.BodyBytes(-1, 0)
		})
	}
}

type grpcBodyKey struct{}

func grpcBodyOf(ctx context.Context) *grpcBody {
	b, _ := ctx.Value(grpcBodyKey{}).(*grpcBody)
	return b
}

func releaseGRPCBody(ctx context.Context) { grpcBodyOf(ctx).release() }

// grpcTap reserves a new stream's largest message in the bodies' budget, or refuses the stream. It runs on the
// connection's reading goroutine: it never waits.
func (g *guard) grpcTap(ctx context.Context, info *tap.Info) (context.Context, error) {
	n := g.maxBody
	if !g.bodies.take(n) {
		err := status.Error(codes.Unavailable, fmt.Sprintf("a2a serve: too many request messages are arriving at "+
			"once (%d bytes held together at most): try again in a moment", g.bodies.max))
		_, done := g.log.GRPCCall(ctx)
		done(info.FullMethodName, err)
		return ctx, err
	}
	g.bodies.log.BodyBytes(1, 0)
	b := &grpcBody{budget: g.bodies, n: n}
	context.AfterFunc(ctx, b.release) // the stream ended (grpc-go cancels its context)
	return context.WithValue(ctx, grpcBodyKey{}, b), nil
}

// ctxStream is a server stream with a replaced context; its first RecvMsg gives the request's reservation back.
type ctxStream struct {
	grpc.ServerStream
	ctx     context.Context
	release *grpcBody // nil: nothing reserved
}

func (s *ctxStream) Context() context.Context { return s.ctx }

func (s *ctxStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	s.release.release()
	return err
}
