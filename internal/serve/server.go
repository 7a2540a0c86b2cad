// Package serve owns the server behind `a2a serve`: one A2A request handler mounted on the chosen
// transports (REST, JSON-RPC and gRPC together on one port), the agent card, the guard and
// conformance layers, and the exported Backend API every backend plugs into: Setup gets an Env (the
// config, the task store, the traffic log, the route table, Env.TaskParts to put an agent on the task
// runner) and returns Parts that declare how it is served. Echo is the reference backend, here in
// backend.go; every other backend is a package of its own that imports serve, never the other way
// round: serve/execbackend, serve/proxy (the proxy's backend reads the route table and traffic log
// through its own interfaces), serve/replay, serve/a3sbackend. Tasks live in serve/tasks, the hot
// calls' encoder and detached streams in serve/hotpath, the traffic log (lines, metrics, the
// observer hook) in serve/traffic, which this package builds from Config (trafficlog.go) and mounts.
// The inspector page (internal/inspect) comes in as Config.Inspector and sees the calls through the
// observer hook (inspector.go; the types are package traffic's).
//
// It has no flags and no cobra, never touches the process's standard streams (logs go to
// Config.Log) and never builds clients itself: the proxy gets its upstream client from the caller.
// It must not import internal/cli or any backend subpackage.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/a2acli/a2a/internal/cardsig"
	"github.com/a2acli/a2a/internal/serve/hotpath"
	"github.com/a2acli/a2a/internal/serve/tasks"
	"github.com/a2acli/a2a/internal/serve/traffic"
)

// Config configures Run.
type Config struct {
	Host       string                  // bind address; "" => 127.0.0.1
	Port       int                     // 0 => any free port
	Transports []a2a.TransportProtocol // served together on one port; empty => HTTP+JSON
	Protocol   string                  // "latest" (or "") or "0.3"
	Card       *a2a.AgentCard          // custom card; nil => generated from Name and Description
	CardCaps   CardCaps                // the capabilities Card declares: serve does what they say (cardcaps.go)
	// Name and Description of the generated card.
	Name, Description string
	CardCompat        bool             // serve a card both v0.3 and v1.0 clients read, and both protocol versions
	Quiet             bool             // no traffic log
	Verbose           bool             // payloads and parameters in the traffic log, exec stderr lines
	Log               io.Writer        // traffic log and the "listening on" line; nil => discarded
	MaxTasks          int              // finished tasks kept; 0 => 1000
	TaskTTL           time.Duration    // finished tasks older than this are dropped; 0 => 1h
	Backend           Backend          // nil => Echo
	Grace             time.Duration    // shutdown grace; 0 => 5s
	Ready             func(url string) // called once when listening; nil => not called

	// MaxArtifactBytes bounds the artifact bytes kept per task: beyond it the oldest streamed parts are
	// dropped from the stored task (streams still get them all); 0 => 8 MiB, negative => no bound.
	MaxArtifactBytes int64
	// MaxTaskBytes bounds what the finished tasks kept hold together (their messages and artifacts, ~128 bytes a
	// part): past it the oldest are forgotten, like past MaxTasks; 0 => 256 MiB, negative => no bound.
	MaxTaskBytes int64

	// Store names where tasks are kept besides memory: "" or "memory" => nowhere else; "sqlite:PATH" => an
	// embedded file that survives restarts; "postgres://..." => a database shared by replicas (tasks/durable.go).
	Store string
	// Lease is how long a replica may go without renewing its lease before other replicas fail its running
	// tasks (shared stores only); 0 => 60s.
	Lease time.Duration
	// StoreBacklog bounds the bytes of events a shared store keeps while PostgreSQL is away; past it running tasks
	// pause until it is back. 0 => 64 MiB.
	StoreBacklog int64

	// PublicURL is the URL clients reach the server at (behind a reverse proxy or a tunnel): the card advertises
	// it, and its host and origin are accepted like the server's own. "" => the address it listens on.
	PublicURL string
	// CardSigner signs the card served (--sign-card) and publishes its key set at cardsig.JWKSPath; nil: unsigned.
	CardSigner *cardsig.Signer
	// AllowOrigins are the browser origins ("scheme://host:port", or "*") that may call besides the server's own;
	// they get CORS headers. AllowHosts are the Host names accepted on a loopback listener besides loopback ones.
	AllowOrigins, AllowHosts []string
	// Token, when set, must come with every call but the agent card as "Authorization: Bearer <Token>"; the card
	// declares it as an HTTP bearer security scheme. "" => no token.
	Token string
	// MaxRequestBytes bounds a request body (and a gRPC message); 0 => 4 MiB, negative => no bound.
	MaxRequestBytes int64
	// PushAllow lists the webhook hosts push notifications may go to besides loopback hosts
	// (host names or IP literals, "*" for any); nil => loopback only.
	PushAllow []string
	// TLSCertFile and TLSKeyFile (PEM), both set, make every transport speak TLS on the port and the card list
	// https:// URLs; "" => plain HTTP.
	TLSCertFile, TLSKeyFile string
	// LogFormat is the traffic log's form: "text" (or "") or "json", one object per line (package traffic).
	LogFormat string
	// NoMetrics turns GET /metrics off; false => served (ops.go).
	NoMetrics bool
	// Inspector, when set, serves its page under InspectorPath on the same port, behind the guard, and sees
	// every call (inspector.go); nil => none.
	Inspector Inspector

	// MaxSubscriptionsPerTask and MaxSubscriptions bound the subscriptions (SubscribeToTask) held open on one
	// task and in all (--max-subscriptions-per-task, --max-subscriptions); 0 => tasks.MaxSubscriptionsPerTask,
	// tasks.MaxSubscriptions.
	MaxSubscriptionsPerTask, MaxSubscriptions int

	clock func() time.Time // tests: the task store's clock; nil => time.Now
	// tests: the connection timeouts; 0 => the defaults (guard.go).
	readTimeout, writeTimeout, idleTimeout time.Duration
}

// The default bounds of Config.MaxSubscriptionsPerTask and MaxSubscriptions.
const (
	MaxSubscriptionsPerTask = tasks.MaxSubscriptionsPerTask
	MaxSubscriptions        = tasks.MaxSubscriptions
)

const (
	defaultGrace      = 5 * time.Second
	readHeaderTimeout = 10 * time.Second
	// maxHeaderBytes bounds a request's headers (net/http's default, 1 MiB, let 600 connections that send
	// headers slowly hold 800 MB): A2A's headers are a few kilobytes, a large bearer token included.
	maxHeaderBytes = 64 << 10
)

func (cfg *Config) normalize() error {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if len(cfg.Transports) == 0 {
		cfg.Transports = []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}
	}
	for _, tr := range cfg.Transports {
		switch tr {
		case a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC:
		default:
			return fmt.Errorf("unsupported transport %q", tr)
		}
	}
	switch cfg.Protocol {
	case "", "latest", "0.3":
	default:
		return fmt.Errorf("unsupported protocol version %q (want latest or 0.3)", cfg.Protocol)
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Grace <= 0 {
		cfg.Grace = defaultGrace
	}
	if cfg.Backend == nil {
		cfg.Backend = Echo()
	}
	if cfg.MaxRequestBytes == 0 {
		cfg.MaxRequestBytes = defaultMaxRequestBytes
	}
	if cfg.readTimeout == 0 {
		cfg.readTimeout = defaultReadTimeout
	}
	if cfg.writeTimeout == 0 {
		cfg.writeTimeout = defaultWriteTimeout
	}
	if cfg.idleTimeout == 0 {
		cfg.idleTimeout = defaultIdleTimeout
	}
	switch cfg.LogFormat {
	case "", "text", "json":
	default:
		return fmt.Errorf("unsupported log format %q (want text or json)", cfg.LogFormat)
	}
	if cfg.PublicURL != "" {
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("invalid public URL %q: want http(s)://host[:port][/path]", cfg.PublicURL)
		}
	}
	return nil
}

// Run listens, writes "listening on <url>" to Log once ready, serves until ctx is done, then shuts
// down: stops accepting, ends open streams with a final status, stops every subprocess and
// returns within Grace. It returns nil after a clean shutdown.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.normalize(); err != nil {
		return err
	}
	tlsConf, err := cfg.tlsConfig()
	if err != nil {
		return err
	}
	tl := newTrafficLog(&cfg)
	store := tasks.NewStore(cfg.MaxTasks, cfg.TaskTTL, cfg.clock)
	if cfg.MaxArtifactBytes != 0 {
		store.SetMaxArtifactBytes(cfg.MaxArtifactBytes)
	}
	if cfg.MaxTaskBytes != 0 {
		store.SetMaxTaskBytes(cfg.MaxTaskBytes)
	}
	if !tasks.MemoryOnly(cfg.Store) {
		if err := store.OpenDurable(ctx, cfg.Store, tasks.DurableOptions{Lease: cfg.Lease, MaxBacklog: cfg.StoreBacklog}, tl.Printf); err != nil {
			return err
		}
		defer store.CloseDurable() //nolint:errcheck // after the shutdown: a failed last write was logged
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hostport := advertisedHost(ln.Addr())
	exposed := !isLoopback(ln.Addr())
	e := &Env{Config: &cfg, Store: store, Log: tl, Routes: Routes{frontsOf(&cfg)}, FlushHints: flushHints,
		exposed: exposed || published(&cfg)}
	parts, err := cfg.Backend.Setup(e)
	if err != nil {
		ln.Close()
		return fmt.Errorf("set up backend: %w", err)
	}
	srv := buildServers(&cfg, hostport, parts, tl, exposed)
	sp := hotpath.NewSplitter(ln, srv.grpc != nil)
	sp.TLS, sp.TLSRefused = tlsConf, tl.TLSRefused
	sp.OnError = func(err error) { tl.Printf("accept: %v; retrying\n", err) }
	if srv.detach != nil {
		srv.detach.Requeue = sp.HTTP.Put
	}
	go sp.Serve()
	errc := make(chan error, 2)
	go func() { errc <- srv.http.Serve(sp.HTTP) }()
	if srv.grpc != nil {
		go func() { errc <- srv.grpc.Serve(sp.GRPC) }()
	}
	url := cfg.scheme() + "://" + hostport
	bound := boundAddress(&cfg, ln.Addr())
	warnExposed(tl, &cfg, bound, exposed) // before the line scripts wait for
	if cfg.Inspector != nil {
		tl.Plainf("inspector on %s\n", cfg.Inspector.Link(cfg.scheme()+"://"+bound))
	}
	tl.Plainf("listening on %s\n", cfg.scheme()+"://"+bound) // plain in JSON logs too: scripts wait for it
	if cfg.Ready != nil {
		cfg.Ready(url)
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	ln.Close()
	if err := srv.shutdown(cfg.Grace, parts.Shutdown); err != nil {
		return err
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}

type servers struct {
	http   *http.Server
	grpc   *grpc.Server
	detach *hotpath.Detacher // streams taken off the HTTP server; nil when none are
}

func buildServers(cfg *Config, hostport string, parts *Parts, tl *traffic.Log, exposed bool) *servers {
	v03 := cfg.Protocol == "0.3"
	ver := versions{v1: !v03, v03: v03 || cfg.CardCompat}
	base := parts.Card
	if base == nil {
		card := BaseCard(cfg)
		base = func(context.Context) (*a2a.AgentCard, error) { return card, nil }
	}
	caps := capsOf(cfg, parts)
	stale := &dropStaleSignatures{log: cfg.Log, signed: cfg.CardSigner != nil}
	producer := cardProducer(withSecurity(base, cfg.Token), stale, httpsInterfaces(cfg, cardInterfaces(cfg, hostport, ver, exposed)), caps.streaming, caps.push)
	h := caps.gate(parts.Handler, producer) // what the card says the agent does not do is refused (cardcaps.go)
	if tl.Records() {
		h = tl.Handler(h)
	}
	h = &a2asrv.InterceptedHandler{Handler: h, Logger: tl.Slogger()}
	mux := http.NewServeMux()
	ch := withRequestHost(cardHandler(producer, ver.v03))
	if cfg.CardSigner != nil {
		ch = withRequestHost(signedCard(cardHandler(producer, ver.v03), cfg.CardSigner, cfg.Log))
		mux.Handle(cardsig.JWKSPath, jwksHandler(cfg.CardSigner))
	}
	mux.Handle(a2asrv.WellKnownAgentCardPath, ch)
	mux.Handle(legacyCardPath, ch)
	s := &servers{}
	g := newGuard(cfg, nil, !exposed)
	g.log = tl
	g.bodies.log = tl
	fast := parts.FastPath
	if fast && parts.DetachStreams {
		s.detach = hotpath.NewDetacher(cfg.writeTimeout)
	}
	for _, tr := range cfg.Transports {
		switch tr {
		case a2a.TransportProtocolHTTPJSON:
			mountREST(mux, h, ver, fast, s.detach)
		case a2a.TransportProtocolJSONRPC:
			mountJSONRPC(mux, h, ver, fast, s.detach)
		case a2a.TransportProtocolGRPC:
			s.grpc = newGRPCServer(h, ver, g.grpcOptions(cfg.idleTimeout)...)
		}
	}
	s.http = &http.Server{
		Handler:           hotpath.GateFlushes(mux),
		ReadHeaderTimeout: readHeaderTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		IdleTimeout:       cfg.idleTimeout,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	s.http.ConnState = connState(s.detach, parts.Conns)
	if cfg.Verbose && !cfg.Quiet {
		s.http.ErrorLog = tl.ErrorLog("http: ") // sanitised, like every log line
	}
	if c := parts.Conns; c != nil {
		s.http.ConnContext = c.Context
		if c.IdleTimeout > 0 {
			s.http.IdleTimeout = c.IdleTimeout
		}
	}
	if parts.Front != nil {
		s.http.Handler = parts.Front(s.http.Handler)
	}
	s.http.Handler = conformHTTP(s.http.Handler, frontsOf(cfg)) // in front of every backend's handlers (conform.go)
	if cfg.Inspector != nil {
		s.http.Handler = withInspector(cfg.Inspector, frontsOf(cfg), s.http.Handler) // /_a2a/ (inspector.go)
		s.http.RegisterOnShutdown(cfg.Inspector.Close)
		g.inspector = cfg.Inspector
	}
	g.next = opsHandler(s.http.Handler, tl)     // /healthz and /metrics (ops.go)
	s.http.Handler = tl.Front(g, g.jsonrpcCall) // the guard in front of everything, the proxy's byte path included (guard.go), its refusals logged (package traffic)
	return s
}

// shutdown stops the servers within grace: running tasks are stopped first so that their open
// streams end with a final status, then the servers drain; whatever is left at the deadline is
// closed.
func (s *servers) shutdown(grace time.Duration, backend func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var errs []error
	if backend != nil {
		if err := backend(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.detach.Wait(ctx); err != nil {
		errs = append(errs, fmt.Errorf("end detached streams: %w", err))
	}
	grpcDone := make(chan struct{})
	go func() {
		defer close(grpcDone)
		if s.grpc != nil {
			s.grpc.GracefulStop()
		}
	}()
	if err := s.http.Shutdown(ctx); err != nil {
		s.http.Close()
		errs = append(errs, fmt.Errorf("drain HTTP connections: %w", err))
	}
	select {
	case <-grpcDone:
	case <-ctx.Done():
		if s.grpc != nil {
			s.grpc.Stop()
		}
		<-grpcDone
		errs = append(errs, fmt.Errorf("drain gRPC connections: %w", ctx.Err()))
	}
	if len(errs) > 0 {
		return fmt.Errorf("shutdown: %w", errors.Join(errs...))
	}
	return nil
}

// connState composes the HTTP server's ConnState hook: the detacher's (which must see every
// connection it hands back) first, then the backend's; nil when neither is set.
func connState(d *hotpath.Detacher, c *ConnHooks) func(net.Conn, http.ConnState) {
	var backend func(net.Conn, http.ConnState)
	if c != nil {
		backend = c.State
	}
	switch {
	case d == nil:
		return backend
	case backend == nil:
		return d.ConnState
	}
	return func(conn net.Conn, st http.ConnState) {
		d.ConnState(conn, st)
		backend(conn, st)
	}
}
