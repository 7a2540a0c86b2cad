package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// globalOptions are the flags every client verb shares.
type globalOptions struct {
	output     string
	transport  string
	svcParams  []string
	auth       string
	tenant     string
	timeout    time.Duration
	verbose    bool
	insecure   bool
	fail       bool
	extensions []string
	// wait is --poll-interval and --wait of the verbs that wait for a task (send, subscribe); zero elsewhere.
	wait waitOptions
	// authAllOrigins sends credentials to every origin, not only the named one (see credGuard).
	authAllOrigins bool
	// maxResponseBytes bounds every reply but an event stream (0: no bound; see capResponse).
	maxResponseBytes int64
	// everyday holds --bearer, --api-key, --config, the TLS files, --color and --jq (see everyday.go).
	everyday
}

// factory builds connected clients. Every verb reaches agents through withClient and nothing else.
type factory struct {
	io   *Streams
	opts *globalOptions
	log  *verboseLog
	// started is set once flags and arguments were accepted: an error before that is a usage error.
	started bool
	// cmdPath is the running command's path, for help hints.
	cmdPath string
	// hc is the one HTTP client of the process (see httpClient); conns tracks its connections.
	hc    *http.Client
	conns *connTracker
	// guard keeps credentials on the named origin; built with hc.
	guard *credGuard
	// sources says where each option's value came from (see applyConfig); jq filters stdout under --jq.
	sources map[string]source
	jq      *jqWriter
	// reached holds the addresses a connection succeeded to: only a never-reached loopback agent is waited for.
	reached *sync.Map
}

// withClient connects to the agent named by rawURL, runs fn, and closes the client.
func (f *factory) withClient(ctx context.Context, rawURL string, fn func(ctx context.Context, c *conn) error) error {
	if f.opts.tenant != "" {
		ctx = a2a.AttachTenant(ctx, f.opts.tenant)
	}
	c, err := f.connect(ctx, rawURL)
	if err != nil {
		return err
	}
	defer c.Destroy() //nolint:errcheck // closing a client has nothing useful to report
	return fn(ctx, c)
}

// printer renders to stdout in the chosen format.
func (f *factory) printer() *output.Printer {
	return output.New(f.io.Out, output.Options{
		Format: output.Format(f.opts.output),
		Color:  f.outputColor(),
		Indent: false, // -o json: the same bytes on a terminal and in a pipe
		Width:  f.io.Width,
	})
}

// conn is a connected client with what was learnt while connecting.
type conn struct {
	*a2aclient.Client
	card    *a2a.AgentCard
	cardURL string
	iface   *a2a.AgentInterface
	ref     *agentRef
	timeout time.Duration
	// params are the headers every request carries; hc is the process's HTTP client. Plain HTTP calls beside the
	// protocol (a coding agent's slash commands) use both.
	params map[string][]string
	hc     *http.Client
}

// withClientFunc is the shape of factory.withClient; verbs hold one so tests may swap it.
type withClientFunc func(ctx context.Context, rawURL string, fn func(ctx context.Context, c *conn) error) error

var transportNames = map[string]a2a.TransportProtocol{
	"jsonrpc": a2a.TransportProtocolJSONRPC,
	"rest":    a2a.TransportProtocolHTTPJSON,
	"grpc":    a2a.TransportProtocolGRPC,
}

func parseTransport(name string) (a2a.TransportProtocol, error) {
	if name == "" {
		return "", nil
	}
	if t, ok := transportNames[strings.ToLower(name)]; ok {
		return t, nil
	}
	return "", usagef("invalid --transport %q: want rest, jsonrpc or grpc", name)
}

// serviceParams turns --svc-param and --auth into the parameters sent with every request.
func (o *globalOptions) serviceParams() (map[string][]string, error) {
	params := map[string][]string{}
	for _, kv := range o.svcParams {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usagef("invalid --svc-param %q: want key=value", kv)
		}
		params[http.CanonicalHeaderKey(k)] = append(params[http.CanonicalHeaderKey(k)], v)
	}
	if o.auth != "" {
		params["Authorization"] = []string{o.auth}
	}
	if err := o.credentialParams(params); err != nil {
		return nil, err
	}
	if len(o.extensions) > 0 {
		params[a2a.SvcParamExtensions] = []string{strings.Join(o.extensions, ",")}
	}
	return params, nil
}

// httpClient returns the process's one HTTP client, built on first use. Every request of a command goes through the
// same keep-alive pool: the Gemini CLI A2A server ties a turn to the TCP connection that started it (see
// connTracker), so connections must be reused and never closed early.
func (f *factory) httpClient() *http.Client {
	if f.hc != nil {
		return f.hc
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = f.tlsConfig()
	base.ResponseHeaderTimeout = 0
	// Keep a connection per concurrent call: with the default 2 idle connections per host, a proxy
	// serving many clients would open and close upstream connections all the time.
	base.MaxIdleConnsPerHost = 64
	f.conns = newConnTracker()
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	base.DialContext = f.conns.wrapDial(f.retryRefused(dialer.DialContext))
	f.guard = newCredGuard(f)
	f.hc = &http.Client{Transport: &roundTripper{base: base, log: f.log, guard: f.guard, maxBody: f.opts.maxResponseBytes}}
	return f.hc
}

// resolved is an agent reference with its card, before any client exists.
type resolved struct {
	ref     *agentRef
	card    *a2a.AgentCard // nil when --transport forced an endpoint that has no card
	cardURL string
	forced  a2a.TransportProtocol
	params  map[string][]string
	hc      *http.Client
}

// resolve reads the reference and fetches the agent card, bounded by --timeout.
func (f *factory) resolve(ctx context.Context, rawURL string) (*resolved, error) {
	ref, err := parseRef(rawURL)
	if err != nil {
		return nil, err
	}
	forced, err := parseTransport(f.opts.transport)
	if err != nil {
		return nil, err
	}
	params, err := f.opts.serviceParams()
	if err != nil {
		return nil, err
	}
	r := &resolved{ref: ref, forced: forced, params: params, hc: f.httpClient()}
	f.guard.name(refOrigin(ref))
	cctx, cancel := timeoutContext(ctx, f.opts.timeout)
	defer cancel()
	card, cardURL, err := fetchCard(cctx, r.hc, ref, http.Header(params))
	if err != nil {
		if ce, ok := asCardError(err); ok && ce.notFound && forced != "" && ref.base != nil {
			f.log.printf("no agent card (%v): using %s as the %s endpoint", ce.err, ref.raw, forced)
			return r, nil
		}
		if gerr := f.grpcOnlyPort(ctx, ref, forced, err); gerr != nil {
			return nil, timeoutCause(cctx, gerr)
		}
		return r, nil
	}
	r.card, r.cardURL = card, cardURL
	f.log.printf("card: %s (%s)", cardURL, card.Name)
	f.apiKeyHeader(card, params)
	fixLocalhost(card, ref)
	return r, nil
}

// connect resolves the agent named by rawURL and opens a client on the chosen interface.
func (f *factory) connect(ctx context.Context, rawURL string) (*conn, error) {
	r, err := f.resolve(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	card, ref, forced, params, hc := r.card, r.ref, r.forced, r.params, r.hc
	f.requiredExtensions(card, params)
	c := &conn{ref: ref, timeout: f.opts.timeout, card: card, cardURL: r.cardURL, params: params, hc: hc}
	iface, why, err := chooseInterface(card, ref, forced)
	if err != nil {
		return nil, err
	}
	iface = grpcOverTLS(iface, r.cardURL)
	if card == nil && iface.ProtocolBinding == a2a.TransportProtocolGRPC {
		iface.ProtocolVersion = f.grpcVersion(ctx, iface.URL, params)
	}
	c.iface = iface
	if ref.file != "" {
		// A card file names no origin: the interface the user's own file points at is the one.
		f.guard.name(ifaceOrigin(iface.URL))
	}
	f.log.printf("interface: %s %s %s (%s)", iface.ProtocolBinding, iface.ProtocolVersion, iface.URL, why)
	// The bindings share the process's one transport, each behind the answer check of its wire format.
	rpcHC := &http.Client{Transport: &answerCheck{base: hc.Transport, jsonrpc: true}}
	restHC := &http.Client{Transport: &answerCheck{base: hc.Transport}}
	opts := []a2aclient.FactoryOption{
		a2aclient.WithDefaultsDisabled(),
		// a2a-go's v1.0 transports, with our reader of their event streams (fastsse.go).
		a2aclient.WithTransport(a2a.TransportProtocolJSONRPC, fastTransport(rpcHC, true)),
		a2aclient.WithTransport(a2a.TransportProtocolHTTPJSON, fastTransport(restHC, false)),
		a2aclient.WithTransport(a2a.TransportProtocolGRPC, f.grpcFactory(false)),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC, a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{Client: rpcHC})),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolHTTPJSON, a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{Client: restHC})),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolGRPC, f.grpcFactory(true)),
		a2aclient.WithCallInterceptors(&paramsInterceptor{params: params}, &callLogger{log: f.log}),
	}
	single := &a2a.AgentCard{}
	if card != nil {
		cp := *card
		single = &cp
	}
	single.SupportedInterfaces = []*a2a.AgentInterface{iface}
	client, err := a2aclient.NewFactory(opts...).CreateFromCard(ctx, single)
	if err != nil {
		return nil, fmt.Errorf("open %s client: %w", iface.ProtocolBinding, err)
	}
	c.Client = client
	return c, nil
}

func asCardError(err error) (*cardError, bool) {
	ce, ok := err.(*cardError)
	return ce, ok
}

// chooseInterface picks the first interface of the card we support, or the one --transport forces.
func chooseInterface(card *a2a.AgentCard, ref *agentRef, forced a2a.TransportProtocol) (*a2a.AgentInterface, string, error) {
	if card == nil {
		u := *ref.base
		return &a2a.AgentInterface{URL: u.String(), ProtocolBinding: forced, ProtocolVersion: a2a.Version}, "forced by --transport, no card", nil
	}
	var offered []string
	for _, iface := range card.SupportedInterfaces {
		offered = append(offered, string(iface.ProtocolBinding))
		if !supported(iface) {
			continue
		}
		if forced == "" {
			return iface, "first supported interface in the card", nil
		}
		if strings.EqualFold(string(iface.ProtocolBinding), string(forced)) {
			return iface, "forced by --transport", nil
		}
	}
	if forced != "" {
		return nil, "", withHint(usagef("the agent does not offer --transport %s (card offers %s)", bindingFlag(forced), strings.Join(offered, ", ")),
			"drop --transport to use what the card offers")
	}
	return nil, "", &cardError{url: ref.raw, err: fmt.Errorf("no supported transport among %s", strings.Join(offered, ", "))}
}

func bindingFlag(t a2a.TransportProtocol) string {
	for k, v := range transportNames {
		if v == t {
			return k
		}
	}
	return string(t)
}

func supported(iface *a2a.AgentInterface) bool {
	switch iface.ProtocolBinding {
	case a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC:
	default:
		return false
	}
	v := string(iface.ProtocolVersion)
	return v == "" || strings.HasPrefix(v, "1.") || strings.HasPrefix(v, "0.3")
}

// fixLocalhost rewrites interface hosts a client cannot dial (0.0.0.0, [::]) to the host the card came from.
func fixLocalhost(card *a2a.AgentCard, ref *agentRef) {
	if ref.base == nil {
		return
	}
	for _, iface := range card.SupportedInterfaces {
		u, err := url.Parse(iface.URL)
		if err != nil || u.Host == "" {
			continue
		}
		host := u.Hostname()
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			u.Host = net.JoinHostPort(ref.base.Hostname(), u.Port())
			iface.URL = u.String()
		}
	}
}

// grpcFactory dials gRPC interfaces: http:// and bare host:port in plaintext, https:// with TLS.
func (f *factory) grpcFactory(v03 bool) a2aclient.TransportFactory {
	return a2aclient.TransportFactoryFn(func(ctx context.Context, _ *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
		cc, err := f.dialGRPC(iface.URL)
		if err != nil {
			return nil, err
		}
		if v03 {
			return a2agrpcv0.NewGRPCTransport(cc), nil
		}
		return a2agrpc.NewGRPCTransport(cc), nil
	})
}

// dialGRPC opens a client connection to the gRPC endpoint raw: plaintext for http:// and bare host:port, TLS for
// https://.
func (f *factory) dialGRPC(raw string) (*grpc.ClientConn, error) {
	target, useTLS := grpcTarget(raw)
	creds := insecure.NewCredentials()
	if useTLS {
		creds = credentials.NewTLS(f.tlsConfig())
	}
	guardUnary, guardStream := f.guard.grpcInterceptors(ifaceOrigin(raw))
	limit := f.opts.maxResponseBytes
	cc, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpcRecvLimit(limit), grpc.MaxCallSendMsgSize(1<<30)),
		grpc.WithChainUnaryInterceptor(grpcUnaryErrors(limit), guardUnary),
		grpc.WithChainStreamInterceptor(grpcStreamErrors(limit), guardStream),
	)
	if err != nil {
		return nil, fmt.Errorf("grpc dial %s: %w", target, err)
	}
	return cc, nil
}

func grpcTarget(raw string) (target string, useTLS bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw, false
	}
	switch u.Scheme {
	case "https", "grpcs":
		useTLS = true
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if useTLS {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	return host, useTLS
}
