package proxy

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Config configures a proxy.
type Config struct {
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
	// Transport builds the byte path's connections to the upstream as the client builds its own (client.Upstream:
	// --cacert, --cert/--key, --insecure, credentials only to the upstream's origin); tune sets the pool and wraps
	// the transport in the path's HTTP/1.1 client. nil: Go's defaults and no credential rule (tests).
	Transport func(tune func(*http.Transport) http.RoundTripper) http.RoundTripper
}

// Env is what the server hands the proxy.
type Env struct {
	Log      Log            // the traffic log
	Routes   Routes         // the server's route table
	Fallback *a2a.AgentCard // the card served while the upstream is unreachable
	// Bytes lets A2A calls take the byte path; false while a recorder wraps the handler (it needs
	// the calls' events). Paths no binding owns take the byte path whatever Bytes says.
	Bytes bool
}

const (
	connectTimeout     = 10 * time.Second
	cardConnectTimeout = 2 * time.Second
)

// Proxy forwards every operation to an upstream agent. A call on an HTTP front whose binding and
// protocol version the upstream also serves is forwarded byte for byte (Front, see bytePath); any
// other call reaches the Proxy as an a2asrv.RequestHandler, is decoded and re-sent with the
// upstream client. Both paths forward the caller's headers by one policy (headers.go). Tasks live
// upstream, so get, list, cancel and subscribe are forwarded too.
type Proxy struct {
	p  *proxy
	bp *bytePath
}

// newProxy returns a proxy; it connects to the upstream on first use.
func newProxy(c Config, e Env) (*Proxy, error) {
	if c.Connect == nil {
		return nil, errors.New("proxy: no upstream connector")
	}
	base, stop := context.WithCancel(context.Background())
	p := &proxy{cfg: c, base: base, stop: stop, fallback: e.Fallback, policy: newHeaderPolicy(c)}
	return &Proxy{p: p, bp: newBytePath(p, e)}, nil
}

// Handler is the decoding path: the request handler the server mounts on its bindings.
func (x *Proxy) Handler() a2asrv.RequestHandler { return x.p }

// Front puts the byte path in front of the server's HTTP handler next.
func (x *Proxy) Front(next http.Handler) http.Handler { return x.bp.front(next) }

// Card is the upstream card once known, else the fallback card.
func (x *Proxy) Card(ctx context.Context) (*a2a.AgentCard, error) { return x.p.card(ctx) }

// Shutdown ends forwarded calls and streams and closes the upstream clients and connections.
func (x *Proxy) Shutdown(ctx context.Context) error {
	defer x.bp.tr.CloseIdleConnections()
	return x.p.shutdown(ctx)
}

type proxy struct {
	cfg      Config
	base     context.Context // canceled on shutdown: ends forwarded calls and streams
	stop     context.CancelFunc
	fallback *a2a.AgentCard
	policy   headerPolicy

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

// upstreamErrKey carries an input down: the byte path, finding the upstream unreachable, hands an
// A2A call to the server's handler with the error under this key, and the decoding path answers
// it with that error in the caller's binding instead of connecting again.
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
func (p *proxy) fail(ctx context.Context, c *a2aclient.Client, err error) error {
	if ctx.Err() != nil {
		return err // the caller went away (the traffic log says so): the upstream did nothing wrong
	}
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
	var params a2aclient.ServiceParams
	if cc, ok := a2asrv.CallContextFrom(ctx); ok && cc.ServiceParams() != nil {
		params = p.policy.decoded(cc.ServiceParams().List())
	}
	return a2aclient.AttachServiceParams(ctx, params), func() { stop(); cancel() }
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
		return zero, p.fail(ctx, c, err)
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
				yield(nil, p.fail(ctx, c, err))
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
