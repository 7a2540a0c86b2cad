package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// ProxyConfig configures the Proxy backend.
type ProxyConfig struct {
	// Connect resolves the upstream card and builds a client. It is called lazily on first use and
	// again after a failure, so the proxy starts even when the upstream is down. The client it
	// returns is expected to inject the configured service parameters into every call.
	Connect func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error)
	// AuthInjected is true when the proxy adds its own credentials: the caller's Authorization
	// header is then not passed upstream.
	AuthInjected bool
	// Upstream names the upstream (its URL) in the fallback card served while it is unreachable.
	Upstream string
	// Headers are set on every request of the byte-level fast path (--svc-param, --auth): they
	// replace the caller's values of the same names, except A2A-Extensions, whose values are added.
	Headers map[string][]string
	// TLS configures the fast path's connections to an https upstream; nil => Go's defaults.
	TLS *tls.Config
}

const (
	connectTimeout     = 10 * time.Second
	cardConnectTimeout = 2 * time.Second
)

// Proxy returns a backend that forwards every operation to an upstream agent. A call on an HTTP
// front whose binding and protocol version the upstream also serves is forwarded byte for byte
// (see bytePath); any other call is decoded and re-sent with the upstream client, the caller's
// Authorization (unless AuthInjected), A2A-Extensions and X-* headers travelling upstream as
// service parameters. Tasks live upstream, so get, list, cancel and subscribe are forwarded too.
func Proxy(c ProxyConfig) Backend { return proxyBackend{cfg: c} }

type proxyBackend struct {
	cfg ProxyConfig
}

func (b proxyBackend) Setup(e *Env) (*Parts, error) {
	if b.cfg.Connect == nil {
		return nil, errors.New("proxy: no upstream connector")
	}
	base, stop := context.WithCancel(context.Background())
	p := &proxy{cfg: b.cfg, base: base, stop: stop, fallback: BaseCard(e.Config)}
	if e.Config.Card == nil && e.Config.Name == "" && b.cfg.Upstream != "" {
		p.fallback.Name = "proxy for " + b.cfg.Upstream
	}
	fp := newBytePath(p, e, !e.Recording)
	shutdown := func(ctx context.Context) error {
		defer fp.tr.CloseIdleConnections()
		return p.shutdown(ctx)
	}
	return &Parts{Handler: p, Shutdown: shutdown, Card: p.card, Front: fp.front, Push: PushUpstream}, nil
}

type proxy struct {
	cfg      ProxyConfig
	base     context.Context // canceled on shutdown: ends forwarded calls and streams
	stop     context.CancelFunc
	fallback *a2a.AgentCard

	mu      sync.Mutex
	up      *upstream // nil until connected, and again after a transport failure
	retired []*a2aclient.Client
}

// upstream is a connected upstream: its client, its card and the fast path's routes to it.
type upstream struct {
	client *a2aclient.Client
	card   *a2a.AgentCard
	routes *fastRoutes
}

// upstreamErrKey marks a request whose upstream is known to be unreachable: the fast path hands
// it to the A2A handler with the error, which answers it in the caller's binding.
type upstreamErrKey struct{}

var _ a2asrv.RequestHandler = (*proxy)(nil)

// upstream returns the cached client, connecting first when there is none.
func (p *proxy) upstream(ctx context.Context, timeout time.Duration) (*a2aclient.Client, error) {
	up, err := p.connected(ctx, timeout)
	if err != nil {
		return nil, err
	}
	return up.client, nil
}

// connected returns the connected upstream, connecting first when there is none.
func (p *proxy) connected(ctx context.Context, timeout time.Duration) (*upstream, error) {
	if err, ok := ctx.Value(upstreamErrKey{}).(error); ok {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up != nil {
		return p.up, nil
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, card, err := p.cfg.Connect(cctx)
	if err != nil {
		return nil, a2a.NewError(a2a.ErrServerError, "upstream unreachable: "+err.Error())
	}
	p.up = &upstream{client: c, card: card, routes: newFastRoutes(card)}
	return p.up, nil
}

// card is the upstream card once known, else a minimal one; Run substitutes our interfaces.
func (p *proxy) card(ctx context.Context) (*a2a.AgentCard, error) {
	up, err := p.connected(ctx, cardConnectTimeout)
	if err != nil || up.card == nil {
		return p.fallback, nil
	}
	return up.card, nil
}

// protocolErrors are answers of the upstream agent; anything else is a transport failure.
var protocolErrors = []error{
	a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable, a2a.ErrInvalidParams, a2a.ErrInvalidRequest,
	a2a.ErrMethodNotFound, a2a.ErrParseError, a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType,
	a2a.ErrPushNotificationNotSupported, a2a.ErrExtendedCardNotConfigured, a2a.ErrExtensionSupportRequired,
	a2a.ErrVersionNotSupported, a2a.ErrUnauthenticated, a2a.ErrUnauthorized, a2a.ErrInvalidAgentResponse,
	a2a.ErrInternalError, a2a.ErrServerError,
}

// fail turns an upstream error into the caller's error. After a transport failure the client is
// dropped so that the next call reconnects.
func (p *proxy) fail(c *a2aclient.Client, err error) error {
	for _, pe := range protocolErrors {
		if errors.Is(err, pe) {
			return err
		}
	}
	if p.base.Err() != nil {
		return a2a.NewError(a2a.ErrServerError, "proxy is shutting down")
	}
	p.drop(c)
	return a2a.NewError(a2a.ErrServerError, "upstream: "+err.Error())
}

// drop forgets the upstream of client c, so that the next call reconnects (and re-reads the card).
func (p *proxy) drop(c *a2aclient.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up != nil && p.up.client == c {
		p.up = nil
		p.retired = append(p.retired, c)
	}
}

// outgoing derives the upstream call context: canceled on shutdown, carrying the forwarded
// request parameters.
func (p *proxy) outgoing(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(p.base, cancel)
	params := a2aclient.ServiceParams{}
	if cc, ok := a2asrv.CallContextFrom(ctx); ok && cc.ServiceParams() != nil {
		for k, v := range cc.ServiceParams().List() {
			if p.forwarded(k) {
				params.Append(k, v...)
			}
		}
	}
	return a2aclient.AttachServiceParams(ctx, params), func() { stop(); cancel() }
}

func (p *proxy) forwarded(name string) bool {
	n := strings.ToLower(name)
	switch {
	case n == "authorization":
		return !p.cfg.AuthInjected
	case n == strings.ToLower(a2a.SvcParamExtensions):
		return true
	}
	return strings.HasPrefix(n, "x-")
}

func forwardCall[Req, Resp any](ctx context.Context, p *proxy, req Req, f func(*a2aclient.Client, context.Context, Req) (Resp, error)) (Resp, error) {
	var zero Resp
	c, err := p.upstream(ctx, connectTimeout)
	if err != nil {
		return zero, err
	}
	octx, done := p.outgoing(ctx)
	defer done()
	resp, err := f(c, octx, req)
	if err != nil {
		return zero, p.fail(c, err)
	}
	return resp, nil
}

func (p *proxy) forwardStream(ctx context.Context, open func(*a2aclient.Client, context.Context) iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		c, err := p.upstream(ctx, connectTimeout)
		if err != nil {
			yield(nil, err)
			return
		}
		octx, done := p.outgoing(ctx)
		defer done()
		for ev, err := range open(c, octx) {
			if err != nil {
				yield(nil, p.fail(c, err))
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (p *proxy) shutdown(context.Context) error {
	p.stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	clients := p.retired
	if p.up != nil {
		clients = append(clients, p.up.client)
	}
	for _, c := range clients {
		if c != nil {
			if err := c.Destroy(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("close upstream clients: %w", errors.Join(errs...))
	}
	return nil
}
