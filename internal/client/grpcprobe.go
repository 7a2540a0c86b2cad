package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// http2Preface opens an HTTP/2 connection with prior knowledge (RFC 9113 §3.4), followed by an empty SETTINGS frame.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "\x00\x00\x00\x04\x00\x00\x00\x00\x00"

// speaksHTTP2Only reports whether the port of u answers in HTTP/2 frames to a client that opens with the HTTP/2
// preface: what a gRPC server does, and what an HTTP/1 card fetch reads as "malformed HTTP response". Over https it
// asks for h2 in the TLS handshake instead. A port that answers nothing within the bound is not one.
func speaksHTTP2Only(ctx context.Context, u *url.URL, insecureTLS bool) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	host, _ := grpcTarget(u.String())
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return false
	}
	defer raw.Close()
	if dl, ok := ctx.Deadline(); ok {
		raw.SetDeadline(dl) //nolint:errcheck // a conn that refuses deadlines fails the read below
	}
	conn := raw
	if u.Scheme == "https" {
		tc := tls.Client(raw, &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"h2"}, InsecureSkipVerify: insecureTLS}) //nolint:gosec // only with --insecure
		if err := tc.HandshakeContext(ctx); err != nil || tc.ConnectionState().NegotiatedProtocol != "h2" {
			return false
		}
		conn = tc
	}
	if _, err := io.WriteString(conn, http2Preface); err != nil {
		return false
	}
	// The server's first frame is its SETTINGS: 3 bytes length, type 0x4, flags, stream 0.
	var hdr [9]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return false
	}
	return hdr[3] == 0x4 && hdr[5]|hdr[6]|hdr[7]|hdr[8] == 0
}

// grpcOnlyPort decides what a failed card fetch means when the port may speak only gRPC (most gRPC agents serve
// their card elsewhere). With --transport grpc and a port that answers in HTTP/2 frames, the URL is the endpoint:
// nil. Otherwise it returns the fetch error, with a hint when the port speaks gRPC.
func (d *Dialer) grpcOnlyPort(ctx context.Context, ref *Ref, forced a2a.TransportProtocol, err error) error {
	if ref.Base == nil || IsUnreachable(err) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrInterrupted) {
		return err
	}
	if _, ok := asCardError(err); ok && forced != a2a.TransportProtocolGRPC {
		return err
	}
	if !speaksHTTP2Only(ctx, ref.Base, d.opts.Insecure) {
		return err
	}
	if forced == a2a.TransportProtocolGRPC {
		d.log.Printf("no agent card (%v): the port speaks HTTP/2 only, using %s as the gRPC endpoint", err, ref.Raw)
		return nil
	}
	return WithHint(fmt.Errorf("%w (the port answers in HTTP/2 frames: a gRPC server?)", err), "add --transport grpc to use the URL as the gRPC endpoint")
}

// grpcVersion tells which A2A gRPC service a card-less endpoint serves: v1.0 (lf.a2a.v1.A2AService) unless the
// server does not know that service, then v0.3 (a2a.v1.A2AService, what most gRPC agents of the v0.3 SDKs serve).
// The probe is a GetTask with an empty request, bounded by --timeout; any answer but UNIMPLEMENTED means v1.0.
func (d *Dialer) grpcVersion(ctx context.Context, raw string, params map[string][]string) a2a.ProtocolVersion {
	cc, err := d.dialGRPC(raw)
	if err != nil {
		return a2a.Version
	}
	defer cc.Close()
	ctx, cancel := TimeoutContext(ctx, d.opts.Timeout)
	defer cancel()
	md := metadata.MD{}
	for k, v := range params {
		md[strings.ToLower(k)] = v
	}
	ctx = metadata.NewOutgoingContext(ctx, md)
	err = cc.Invoke(ctx, a2apb.A2AService_GetTask_FullMethodName, &emptypb.Empty{}, &emptypb.Empty{})
	if status.Code(err) == codes.Unimplemented {
		d.log.Printf("the endpoint does not serve %s (%v): speaking A2A v0.3", a2apb.A2AService_GetTask_FullMethodName, err)
		return a2av0.Version
	}
	return a2a.Version
}
