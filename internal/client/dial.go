package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2acli/a2a/internal/termsafe"
)

// Options say how a run reaches agents: the global flags every client verb shares.
type Options struct {
	Transport  string   // --transport: rest, jsonrpc, grpc, a comma list in preference order, or "" for the card's choice
	SvcParams  []string // --svc-param key=value
	Auth       string   // --auth
	Bearer     string   // --bearer
	APIKey     string   // --api-key
	Extensions []string // --extension
	Tenant     string
	Timeout    time.Duration
	Insecure   bool
	// CACert, Cert and Key are the TLS files; TLS is what LoadTLS made of them.
	CACert, Cert, Key string
	TLS               *tls.Config
	// AuthAllOrigins sends credentials to every origin, not only the named one (see credGuard).
	AuthAllOrigins bool
	// AuthUndeclared sends --bearer and --api-key to an agent whose card declares no scheme that takes them
	// (schemes.go); BearerFrom names where Bearer came from when not --bearer (a token of `auth login`).
	AuthUndeclared bool
	BearerFrom     string
	// Legacy speaks A2A 0.3 to an agent that offers nothing newer without being asked (a server fronting an
	// upstream, outside the a2a-cli specification's client rules); a client speaks it only when A2A-Version
	// forces it (--a2a-version 0.3, --svc-param A2A-Version=0.3), the explicit opt-in of the specification's §13.2.
	Legacy bool
	// MaxResponseBytes bounds every reply but an event stream (0: no bound; see capResponse).
	MaxResponseBytes int64
	// NoRefusedRetry fails a refused loopback connection at once (a proxy's upstream: its callers wait on it); the
	// retry of retryRefused is for a person starting an agent and a client in one shell line.
	NoRefusedRetry bool
	// NoCard (-e/--endpoint) uses the reference as the endpoint of the one --transport, without fetching a card.
	NoCard bool
	// NoCardCache (--no-card-cache) neither reads nor writes the card cache (cardcache.go).
	NoCardCache bool
}

// Dialer connects to agents for one run of the CLI. Every connection of the run shares its state: one HTTP client
// and keep-alive pool, the connection tracker, the credential guard, the addresses reached. Options are read when a
// connection is made, so flags parsed after NewDialer count.
type Dialer struct {
	opts *Options
	log  *Log
	warn io.Writer // stderr, for the credential guard's warnings
	st   *dialState
}

// dialState is what every Dialer of a run shares.
type dialState struct {
	once    sync.Once
	hc      *http.Client
	conns   *ConnTracker
	guard   *credGuard
	reached sync.Map // addresses a connection succeeded to: only a never-reached loopback agent is waited for
	query   queryKey // --api-key as a query parameter, when the card's apiKey scheme says so
	// withheld are the credentials the card declared no scheme for (schemes.go).
	mu       sync.Mutex
	withheld []WithheldCredential
}

// NewDialer returns the run's dialer. log may be nil (no -v); warn receives the guard's warnings (nil: discarded).
func NewDialer(opts *Options, log *Log, warn io.Writer) *Dialer {
	if warn == nil {
		warn = io.Discard
	}
	return &Dialer{opts: opts, log: log, warn: warn, st: &dialState{}}
}

// WithTransport is a dialer of the same run (same HTTP client and pool) that chooses its transport as t says.
func (d *Dialer) WithTransport(t string) *Dialer {
	opts := *d.opts
	opts.Transport = t
	cp := *d
	cp.opts = &opts
	return &cp
}

// Conns is the tracker of the run's HTTP connections, nil until the first connection.
func (d *Dialer) Conns() *ConnTracker { return d.st.conns }

// WithheldFrom lists the origins credentials were kept from.
func (d *Dialer) WithheldFrom() []string { return d.st.guard.WithheldFrom() }

// HTTPClient is the run's one HTTP client.
func (d *Dialer) HTTPClient() *http.Client { return d.httpClient() }

// Conn is a connected client with what was learnt while connecting.
type Conn struct {
	*a2aclient.Client
	Card    *a2a.AgentCard
	CardURL string
	// CardBytes is the card as it arrived, for its signatures (nil without a card).
	CardBytes []byte
	Iface     *a2a.AgentInterface
	Ref       *Ref
	Timeout   time.Duration
	// MaxResponse is --max-response-bytes: what a client may hold of one answer (0: no bound).
	MaxResponse int64
	// params are the headers every request carries; hc is the process's HTTP client. Plain HTTP calls beside the
	// protocol (a coding agent's slash commands) use both.
	Params map[string][]string
	HC     *http.Client
}

var transportNames = map[string]a2a.TransportProtocol{
	"jsonrpc": a2a.TransportProtocolJSONRPC,
	"rest":    a2a.TransportProtocolHTTPJSON,
	"grpc":    a2a.TransportProtocolGRPC,
}

func ParseTransport(name string) (a2a.TransportProtocol, error) {
	if name == "" {
		return "", nil
	}
	if t, ok := transportNames[strings.ToLower(name)]; ok {
		return t, nil
	}
	return "", Usagef("invalid --transport %q: want rest, jsonrpc or grpc", name)
}

// ParseTransports reads a --transport preference list: bindings separated by commas, highest preference first.
func ParseTransports(list string) ([]a2a.TransportProtocol, error) {
	var out []a2a.TransportProtocol
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		t, err := ParseTransport(name)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// ServiceParams turns --svc-param and --auth into the parameters sent with every request.
func (o *Options) ServiceParams() (map[string][]string, error) {
	params := map[string][]string{}
	for _, kv := range o.SvcParams {
		// key=value (the seed's form) or key:value (the a2a-cli specification's): a header name holds neither
		// character, so the first of the two is the separator.
		i := strings.IndexAny(kv, "=:")
		if i < 0 || strings.TrimSpace(kv[:i]) == "" {
			return nil, Usagef("invalid --svc-param %q: want key=value or key:value", kv)
		}
		k, v := strings.TrimSpace(kv[:i]), kv[i+1:]
		params[http.CanonicalHeaderKey(k)] = append(params[http.CanonicalHeaderKey(k)], v)
	}
	if o.Auth != "" {
		params["Authorization"] = []string{o.Auth}
	}
	if err := o.credentialParams(params); err != nil {
		return nil, err
	}
	if len(o.Extensions) > 0 {
		params[a2a.SvcParamExtensions] = []string{strings.Join(o.Extensions, ",")}
	}
	return params, nil
}

// httpClient returns the run's one HTTP client, built on first use. Every request of a command goes through the
// same keep-alive pool: the Gemini CLI A2A server ties a turn to the TCP connection that started it (see
// connTracker), so connections must be reused and never closed early.
func (d *Dialer) httpClient() *http.Client {
	d.st.once.Do(func() {
		base := d.newTransport()
		base.ResponseHeaderTimeout = 0
		// Keep a connection per concurrent call: with the default 2 idle connections per host, a proxy
		// serving many clients would open and close upstream connections all the time.
		base.MaxIdleConnsPerHost = 64
		d.st.conns = newConnTracker()
		dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		base.DialContext = d.st.conns.wrapDial(d.retryRefused(resolveErrors(dialer.DialContext)))
		d.st.guard = newCredGuard(d.opts.AuthAllOrigins, d.warn, d.log)
		d.st.hc = &http.Client{Transport: &roundTripper{base: base, log: d.log, guard: d.st.guard, maxBody: d.opts.MaxResponseBytes, query: &d.st.query}}
	})
	return d.st.hc
}

// Resolved is an agent reference with its card, before any client exists.
type Resolved struct {
	ref  *Ref
	Card *a2a.AgentCard // nil when --transport forced an endpoint that has no card
	// CardBytes is the card as it arrived (what its signatures cover); nil with Card.
	CardBytes []byte
	cardURL   string
	forced    a2a.TransportProtocol   // the first --transport: the binding of an endpoint with no card
	prefs     []a2a.TransportProtocol // every --transport, highest preference first
	params    map[string][]string
	hc        *http.Client
}

// Resolve reads the reference and fetches the agent card, bounded by --timeout.
func (d *Dialer) Resolve(ctx context.Context, rawURL string) (*Resolved, error) {
	ref, err := ParseRef(rawURL)
	if err != nil {
		return nil, err
	}
	prefs, err := ParseTransports(d.opts.Transport)
	if err != nil {
		return nil, err
	}
	var forced a2a.TransportProtocol
	if len(prefs) > 0 {
		forced = prefs[0]
	}
	params, err := d.opts.ServiceParams()
	if err != nil {
		return nil, err
	}
	r := &Resolved{ref: ref, forced: forced, prefs: prefs, params: params, hc: d.httpClient()}
	d.st.guard.name(refOrigin(ref))
	if d.opts.NoCard && forced != "" && ref.Base != nil {
		d.log.Printf("--endpoint: using %s as the %s endpoint, no card fetched", ref.Raw, forced)
		return r, nil
	}
	cctx, cancel := TimeoutContext(ctx, d.opts.Timeout)
	defer cancel()
	// The public card is fetched without credentials: they go out per request once the agent declared how it wants
	// them (the a2a-cli specification, §12.1). A card behind authentication (401, 403) is asked for again with them.
	public, withheld := withoutCredentials(params)
	card, raw, cardURL, err := fetchCard(cctx, r.hc, ref, cardHeaders(public), d.cardCache())
	if withheld && cardUnauthorized(err) {
		d.log.Printf("the card wants credentials (%v): asking again with them", err)
		card, raw, cardURL, err = fetchCard(cctx, r.hc, ref, cardHeaders(params), nil)
	}
	if err != nil {
		if ce, ok := asCardError(err); ok && ce.NotFound && forced != "" && ref.Base != nil {
			d.log.Printf("no agent card (%v): using %s as the %s endpoint", ce.Err, ref.Raw, forced)
			return r, nil
		}
		if gerr := d.grpcOnlyPort(ctx, ref, forced, err); gerr != nil {
			return nil, TimeoutCause(cctx, gerr)
		}
		return r, nil
	}
	r.Card, r.CardBytes, r.cardURL = card, raw, cardURL
	d.log.Printf("card: %s (%s)", cardURL, termsafe.Line(card.Name))
	d.attachCredentials(card, params)
	fixLocalhost(card, ref)
	return r, nil
}

// Connect resolves the agent named by rawURL and opens a client on the chosen interface.
func (d *Dialer) Connect(ctx context.Context, rawURL string) (*Conn, error) {
	r, err := d.Resolve(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	card, ref, params := r.Card, r.ref, r.params
	d.requiredExtensions(card, params)
	version, err := forcedVersion(params)
	if err != nil {
		return nil, err
	}
	iface, why, err := chooseInterface(card, ref, r.prefs, version, d.opts.Legacy)
	if err != nil {
		return nil, err
	}
	iface = grpcOverTLS(iface, r.cardURL)
	if card == nil && iface.ProtocolBinding == a2a.TransportProtocolGRPC && version == "" {
		iface.ProtocolVersion = d.grpcVersion(ctx, iface.URL, params)
		if iface.ProtocolVersion == a2av0.Version && !d.opts.Legacy {
			return nil, legacyError(termsafe.Line(ref.Raw), "its gRPC endpoint serves only the v0.3 service")
		}
	}
	return d.open(ctx, r, iface, why)
}

// CardURL is where the card was read from ("" when none was).
func (r *Resolved) CardURL() string { return r.cardURL }

// Params are the headers every request to the agent carries (--svc-param, --auth and the other credentials).
func (r *Resolved) Params() map[string][]string { return r.params }

// ConnectTo opens a client on one interface of a resolved card, whatever the card's order or --transport say:
// the conformance verb tests every interface. The connection shares the run's HTTP client and credential guard.
func (d *Dialer) ConnectTo(ctx context.Context, r *Resolved, iface *a2a.AgentInterface) (*Conn, error) {
	return d.open(ctx, r, grpcOverTLS(iface, r.cardURL), "named by the caller")
}

// open builds the client on iface, the interface chosen for r.
func (d *Dialer) open(ctx context.Context, r *Resolved, iface *a2a.AgentInterface, why string) (*Conn, error) {
	card, ref, params, hc := r.Card, r.ref, r.params, r.hc
	c := &Conn{Ref: ref, Timeout: d.opts.Timeout, MaxResponse: d.opts.MaxResponseBytes, Card: card, CardURL: r.cardURL, CardBytes: r.CardBytes, Params: params, HC: hc}
	c.Iface = iface
	if ref.File != "" {
		// A card file names no origin: the interface the user's own file points at is the one.
		d.st.guard.name(ifaceOrigin(iface.URL))
	}
	d.log.Printf("interface: %s %s %s (%s)", iface.ProtocolBinding, iface.ProtocolVersion, iface.URL, why)
	// The bindings share the process's one transport, each behind the answer check of its wire format.
	rpcHC := &http.Client{Transport: &answerCheck{base: hc.Transport, jsonrpc: true}}
	restHC := &http.Client{Transport: &answerCheck{base: hc.Transport}}
	rpcHC03 := &http.Client{Transport: &answerCheck{base: hc.Transport, jsonrpc: true, errorEvents: true}}
	opts := []a2aclient.FactoryOption{
		a2aclient.WithDefaultsDisabled(),
		// a2a-go's v1.0 transports, with our reader of their event streams (fastsse.go).
		a2aclient.WithTransport(a2a.TransportProtocolJSONRPC, streamEnds(fastTransport(rpcHC, true))),
		a2aclient.WithTransport(a2a.TransportProtocolHTTPJSON, streamEnds(fastTransport(restHC, false))),
		a2aclient.WithTransport(a2a.TransportProtocolGRPC, streamEnds(d.grpcFactory(false))),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC, streamEnds(a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{Client: rpcHC03}))),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolHTTPJSON, streamEnds(a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{Client: restHC}))),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolGRPC, streamEnds(d.grpcFactory(true))),
		// The client sends A2A-Version itself: the version of the interface, whose body it writes.
		a2aclient.WithCallInterceptors(&paramsInterceptor{params: withoutVersion(params)}, &callLogger{log: d.log}),
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

// cardCache is the user's card cache, nil under --no-card-cache.
func (d *Dialer) cardCache() *cardCache {
	if d.opts.NoCardCache {
		return nil
	}
	return newCardCache(d.log)
}

func asCardError(err error) (*CardError, bool) {
	ce, ok := err.(*CardError)
	return ce, ok
}

// chooseInterface picks the first interface of the card we support, or, with --transport, the first the card
// offers of the bindings asked for, in the order they were asked for (a binding the card lacks is skipped). A
// version the user forces (--svc-param A2A-Version, --a2a-version) picks an interface of that version where the
// card has one, and is otherwise the version the chosen interface is spoken in: the A2A-Version header and the body
// always agree.
//
// Without a forced version, an interface older than 1.0 (v0.3) is chosen only when legacy allows it: the a2a-cli
// specification (§13.2) negotiates down only within 1.x and speaks a version before 1.0 only on an explicit opt-in.
// A card that offers nothing newer is then an error that says how to opt in.
func chooseInterface(card *a2a.AgentCard, ref *Ref, prefs []a2a.TransportProtocol, version a2a.ProtocolVersion, legacy bool) (*a2a.AgentInterface, string, error) {
	if card == nil {
		u := *ref.Base
		v, why := a2a.Version, "forced by --transport, no card"
		if version != "" {
			v, why = version, why+", version forced by A2A-Version"
		}
		var binding a2a.TransportProtocol
		if len(prefs) > 0 {
			binding = prefs[0]
		}
		return &a2a.AgentInterface{URL: u.String(), ProtocolBinding: binding, ProtocolVersion: v}, why, nil
	}
	var offered []string
	for _, iface := range card.SupportedInterfaces {
		offered = append(offered, string(iface.ProtocolBinding))
	}
	rounds := [][]a2a.TransportProtocol{nil} // nil: any binding, in the card's order
	if len(prefs) > 0 {
		rounds = rounds[:0]
		for _, p := range prefs {
			rounds = append(rounds, []a2a.TransportProtocol{p})
		}
		if len(prefs) > 1 {
			// Several bindings are a preference list (the a2a-cli specification, §13.1): when the card offers none
			// of them, its own order decides. One --transport forces that binding (the seed's meaning): an error.
			rounds = append(rounds, nil)
		}
	}
	sawLegacy := false
	for _, want := range rounds {
		var first *a2a.AgentInterface
		firstWhy := ""
		for _, iface := range card.SupportedInterfaces {
			if !supported(iface) || (want != nil && !strings.EqualFold(string(iface.ProtocolBinding), string(want[0]))) {
				continue
			}
			if version == "" && !legacy && isLegacy(iface.ProtocolVersion) {
				sawLegacy = true
				continue
			}
			why := "first supported interface in the card"
			switch {
			case want != nil:
				why = "forced by --transport"
			case len(prefs) > 0:
				why = "first supported interface in the card (it offers none of the bindings --transport prefers)"
			}
			if version == "" {
				return iface, why, nil
			}
			if sameMajorMinor(iface.ProtocolVersion, version) {
				return iface, why + ", of the version A2A-Version forces", nil
			}
			if first == nil {
				first, firstWhy = iface, why
			}
		}
		if first != nil {
			cp := *first
			cp.ProtocolVersion = version
			return &cp, firstWhy + ", spoken in the version A2A-Version forces", nil
		}
	}
	if sawLegacy {
		why := "its card offers nothing newer"
		if len(prefs) > 0 {
			why = "its card offers the bindings --transport asks for only in A2A 0.3"
		}
		return nil, "", legacyError(termsafe.Line(ref.Raw), why)
	}
	if len(prefs) > 0 {
		var asked []string
		for _, p := range prefs {
			asked = append(asked, bindingFlag(p))
		}
		return nil, "", WithHint(Usagef("the agent does not offer --transport %s (card offers %s)", strings.Join(asked, ", "), strings.Join(offered, ", ")),
			"drop --transport to use what the card offers")
	}
	return nil, "", &CardError{URL: ref.Raw, Err: fmt.Errorf("no supported transport among %s", strings.Join(offered, ", "))}
}

// forcedVersion is the protocol version the user forces with --svc-param A2A-Version, "" when none.
func forcedVersion(params map[string][]string) (a2a.ProtocolVersion, error) {
	v := strings.TrimSpace(http.Header(params).Get(a2a.SvcParamVersion))
	if v == "" {
		return "", nil
	}
	v = majorMinor(v) // "1" and "v1.0" are 1.0
	if !supported(&a2a.AgentInterface{ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.ProtocolVersion(v)}) {
		return "", Usagef("--svc-param A2A-Version=%s: a2a speaks protocol versions 1.0 and 0.3", v)
	}
	return a2a.ProtocolVersion(v), nil
}

func sameMajorMinor(a, b a2a.ProtocolVersion) bool {
	return majorMinor(string(a)) == majorMinor(string(b))
}

// majorMinor is "1.0" of "1", "1.0" and "1.0.2".
func majorMinor(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(v), "v"), ".", 3)
	if len(parts) == 1 {
		return parts[0] + ".0"
	}
	return parts[0] + "." + parts[1]
}

// withoutVersion is params without A2A-Version.
func withoutVersion(params map[string][]string) map[string][]string {
	out := make(map[string][]string, len(params))
	for k, v := range params {
		if !strings.EqualFold(k, a2a.SvcParamVersion) {
			out[k] = v
		}
	}
	return out
}

// cardHeaders are the headers of the card fetch: the service parameters, with the A2A-Version the user forces or
// else the newest we speak (servers exist that choose the card's shape by it).
// withoutCredentials is params without the credentials of --auth, --bearer and --api-key (and an Authorization
// service parameter); withheld says whether there were any.
func withoutCredentials(params map[string][]string) (map[string][]string, bool) {
	out := make(map[string][]string, len(params))
	withheld := false
	for k, v := range params {
		switch ck := http.CanonicalHeaderKey(k); {
		case ck == "Authorization", ck == "Proxy-Authorization", ck == http.CanonicalHeaderKey(defaultAPIKeyHeader):
			withheld = true
			continue
		}
		out[k] = v
	}
	return out, withheld
}

// cardUnauthorized reports whether a card fetch failed for want of credentials (401 or 403).
func cardUnauthorized(err error) bool {
	if ce, ok := asCardError(err); ok && ce.Unauthorized {
		return true
	}
	var he *HTTPStatusError
	return errors.As(err, &he) && (he.Code == http.StatusUnauthorized || he.Code == http.StatusForbidden)
}

func cardHeaders(params map[string][]string) http.Header {
	h := http.Header{}
	for k, v := range params {
		h[k] = v
	}
	if h.Get(a2a.SvcParamVersion) == "" {
		h.Set(a2a.SvcParamVersion, string(a2a.Version))
	}
	return h
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
func fixLocalhost(card *a2a.AgentCard, ref *Ref) {
	if ref.Base == nil {
		return
	}
	for _, iface := range card.SupportedInterfaces {
		u, err := url.Parse(iface.URL)
		if err != nil || u.Host == "" {
			continue
		}
		host := u.Hostname()
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			u.Host = net.JoinHostPort(ref.Base.Hostname(), u.Port())
			iface.URL = u.String()
		}
	}
}

// grpcFactory dials gRPC interfaces: http:// and bare host:port in plaintext, https:// with TLS.
func (d *Dialer) grpcFactory(v03 bool) a2aclient.TransportFactory {
	return a2aclient.TransportFactoryFn(func(ctx context.Context, _ *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
		cc, err := d.dialGRPC(iface.URL)
		if err != nil {
			return nil, err
		}
		if v03 {
			return a2agrpcv0.NewGRPCTransport(cc), nil
		}
		return grpcPageSize{a2agrpc.NewGRPCTransport(cc)}, nil
	})
}

// dialGRPC opens a client connection to the gRPC endpoint raw: plaintext for http:// and bare host:port, TLS for
// https://.
func (d *Dialer) dialGRPC(raw string) (*grpc.ClientConn, error) {
	target, useTLS := grpcTarget(raw)
	creds := insecure.NewCredentials()
	if useTLS {
		creds = credentials.NewTLS(d.tlsConfig())
	}
	guardUnary, guardStream := d.st.guard.grpcInterceptors(ifaceOrigin(raw))
	debugUnary, debugStream := d.log.grpcDebug()
	limit := d.opts.MaxResponseBytes
	cc, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpcRecvLimit(limit), grpc.MaxCallSendMsgSize(1<<30)),
		grpc.WithChainUnaryInterceptor(grpcUnaryErrors(limit), guardUnary, debugUnary),
		grpc.WithChainStreamInterceptor(grpcStreamErrors(limit), guardStream, debugStream),
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

// requiredExtensions adds the extensions the card marks required to the A2A-Extensions header: the agent refuses
// requests that do not activate them, and the user cannot do anything but agree.
func (d *Dialer) requiredExtensions(card *a2a.AgentCard, params map[string][]string) {
	if card == nil {
		return
	}
	var have []string
	if v := params[a2a.SvcParamExtensions]; len(v) > 0 {
		have = strings.Split(v[0], ",")
	}
	added := false
	for _, ext := range card.Capabilities.Extensions {
		if ext.Required && ext.URI != "" && !slices.Contains(have, ext.URI) {
			have = append(have, ext.URI)
			added = true
			d.log.Printf("extension %s: required by the card, activated", ext.URI)
		}
	}
	if added {
		params[a2a.SvcParamExtensions] = []string{strings.Join(have, ",")}
	}
}

// isLegacy reports whether v is a protocol version before 1.0 (0.3).
func isLegacy(v a2a.ProtocolVersion) bool {
	return strings.HasPrefix(strings.TrimPrefix(string(v), "v"), "0.")
}

// legacyError is an agent that speaks only A2A 0.3, reached without the opt-in: the protocol's
// VersionNotSupportedError, with the ways to opt in.
func legacyError(ref, why string) error {
	return WithHint(&LegacyVersionError{Msg: fmt.Sprintf("%s speaks only A2A 0.3 (%s); a2a speaks a version before 1.0 only when asked", ref, why)},
		"speak 0.3 to it with --a2a-version 0.3 (or A2ACLI_A2A_VERSION=0.3, or a2a-version: 0.3 under this agent in a config file)")
}

// LegacyVersionError is an agent that speaks only a protocol version before 1.0, reached without the opt-in: the
// protocol's VersionNotSupportedError, raised by the client before any call (so with no a2aCode of the agent's).
type LegacyVersionError struct{ Msg string }

func (e *LegacyVersionError) Error() string        { return e.Msg }
func (e *LegacyVersionError) Is(target error) bool { return target == a2a.ErrVersionNotSupported }

// WithLegacy is a dialer of the same run that speaks A2A 0.3 to an agent offering nothing newer (see
// Options.Legacy): serve --proxy fronts whatever its upstream speaks.
func (d *Dialer) WithLegacy() *Dialer {
	opts := *d.opts
	opts.Legacy = true
	cp := *d
	cp.opts = &opts
	return &cp
}
