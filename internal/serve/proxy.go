package serve

import (
	"context"
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
}

const (
	connectTimeout     = 10 * time.Second
	cardConnectTimeout = 2 * time.Second
)

// Proxy returns a backend that forwards every operation to an upstream agent. The caller's
// Authorization (unless AuthInjected), A2A-Extensions and X-* headers travel upstream as service
// parameters. Tasks live upstream, so get, list, cancel and subscribe are forwarded too.
func Proxy(c ProxyConfig) Backend { return proxyBackend{cfg: c} }

type proxyBackend struct{ cfg ProxyConfig }

func (b proxyBackend) setup(e *env) (*backendParts, error) {
	if b.cfg.Connect == nil {
		return nil, errors.New("proxy: no upstream connector")
	}
	base, stop := context.WithCancel(context.Background())
	p := &proxy{cfg: b.cfg, base: base, stop: stop, fallback: baseCard(e.cfg)}
	if e.cfg.Card == nil && e.cfg.Name == "" && b.cfg.Upstream != "" {
		p.fallback.Name = "proxy for " + b.cfg.Upstream
	}
	return &backendParts{handler: p, shutdown: p.shutdown, card: p.card}, nil
}

type proxy struct {
	cfg      ProxyConfig
	base     context.Context // canceled on shutdown: ends forwarded calls and streams
	stop     context.CancelFunc
	fallback *a2a.AgentCard

	mu      sync.Mutex
	client  *a2aclient.Client
	upCard  *a2a.AgentCard
	retired []*a2aclient.Client
}

var _ a2asrv.RequestHandler = (*proxy)(nil)

// upstream returns the cached client, connecting first when there is none.
func (p *proxy) upstream(ctx context.Context, timeout time.Duration) (*a2aclient.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil {
		return p.client, nil
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, card, err := p.cfg.Connect(cctx)
	if err != nil {
		return nil, a2a.NewError(a2a.ErrServerError, "upstream unreachable: "+err.Error())
	}
	p.client, p.upCard = c, card
	return c, nil
}

// card is the upstream card once known, else a minimal one; Run substitutes our interfaces.
func (p *proxy) card(ctx context.Context) (*a2a.AgentCard, error) {
	if _, err := p.upstream(ctx, cardConnectTimeout); err != nil {
		return p.fallback, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.upCard == nil {
		return p.fallback, nil
	}
	return p.upCard, nil
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
	p.mu.Lock()
	if p.client == c {
		p.client = nil
		p.retired = append(p.retired, c)
	}
	p.mu.Unlock()
	return a2a.NewError(a2a.ErrServerError, "upstream: "+err.Error())
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
	for _, c := range append(p.retired, p.client) {
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
