package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/serve"
)

// ServeOptions say where the bridge serves MCP.
type ServeOptions struct {
	// HTTP is --http: streamable HTTP at /mcp on this address (host:port; :port binds loopback); empty: stdio.
	HTTP string
	// AllowHosts and AllowOrigins widen serve's guard in front of HTTP (--allow-host, --allow-origin).
	AllowHosts, AllowOrigins []string
	// In and Out carry MCP on stdio; Err takes the server's notes and the "listening on" line.
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Serve serves MCP until the host goes (stdio: stdin ends) or ctx ends (then client.ErrInterrupted).
func (b *Bridge) Serve(ctx context.Context, o ServeOptions) error {
	if o.HTTP != "" {
		return b.serveHTTP(ctx, o)
	}
	fmt.Fprintf(o.Err, "a2a mcp: %d tools from %d agents on stdio\n", len(b.Tools()), len(b.agents))
	err := b.server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(o.In), Writer: nopWriteCloser{o.Out}})
	if ctx.Err() != nil {
		return client.ErrInterrupted
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// serveHTTP serves streamable HTTP at /mcp behind serve's guard (Host and Origin rules, body limits).
func (b *Bridge) serveHTTP(ctx context.Context, o ServeOptions) error {
	addr := o.HTTP
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &client.UsageError{Msg: fmt.Sprintf("--http %s: %v", o.HTTP, err)}
	}
	tcp, _ := ln.Addr().(*net.TCPAddr) // a TCP listener's address always is one
	loopback := tcp != nil && tcp.IP.IsLoopback()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.server }, nil))
	srv := &http.Server{Handler: serve.Guard(serve.Config{AllowHosts: o.AllowHosts, AllowOrigins: o.AllowOrigins}, mux, loopback),
		ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(o.Err, "a2a mcp: %d tools from %d agents\n", len(b.Tools()), len(b.agents))
	fmt.Fprintf(o.Err, "listening on http://%s/mcp\n", ln.Addr())
	if !loopback {
		fmt.Fprintln(o.Err, "warning: --http is not on loopback: anyone who reaches it calls the agents with your credentials")
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx) // open event streams are cut when the bound passes: nothing more to do
	return client.ErrInterrupted
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
