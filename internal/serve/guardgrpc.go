package serve

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcOptions applies the guard's rules to gRPC: :authority as Host, Origin, the token from the authorization
// metadata, the message size bound and the connection timeouts.
func (g *guard) grpcOptions(idle time.Duration) []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
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
				err = h(srv, &ctxStream{ServerStream: ss, ctx: ctx})
			}
			done(info.FullMethod, err)
			return err
		}),
		grpc.ConnectionTimeout(readHeaderTimeout),
	}
	if g.maxBody >= 0 {
		opts = append(opts, grpc.MaxRecvMsgSize(int(min(g.maxBody, 1<<31-1))))
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

// ctxStream is a server stream with a replaced context.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *ctxStream) Context() context.Context { return s.ctx }
