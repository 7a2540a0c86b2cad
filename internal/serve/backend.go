package serve

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/serve/hotpath"
	"github.com/a2acli/a2a/internal/serve/tasks"
	"github.com/a2acli/a2a/internal/serve/traffic"
)

// Backend produces the answers of the server: Echo (the reference, in this package), or a package of its own
// (serve/execbackend, serve/proxy, serve/replay, serve/a3sbackend). Every backend has the one shape: Setup reads
// what the server hands it (Env) and returns its Parts; a backend whose tasks live here builds them with
// Env.TaskParts. docs/development.md says how to add one.
type Backend interface {
	// Setup runs once in Run, before the server listens, and returns the backend's parts.
	Setup(e *Env) (*Parts, error)
}

// Env is what Run hands a backend: the plug-in API, the same for echo and for every backend package.
type Env struct {
	Config *Config      // normalised: defaults filled in
	Store  *tasks.Store // the task store of backends that keep tasks here (TaskParts)
	// Log is the server's traffic log (package traffic): Printf writes a line (sanitised; whether or not
	// Config.Quiet: a backend's own notes check it), ProcStarted and ProcEnded count subprocesses, Record
	// records a call no request handler sees (the proxy's byte path).
	Log *traffic.Log
	// Routes is the server's route table over HTTP: which binding and protocol version its mux hands a
	// request to (the proxy's byte path forwards by it).
	Routes Routes
	// Recording says the backend's handler is wrapped by a recorder (replay.Record), which needs the events of
	// A2A calls: a backend that could forward them without decoding (the proxy's byte path) must not.
	Recording bool
	// FlushHints finds the flush hint of a stream's request context (package hotpath's flush gate, put
	// there by the response writer); TaskParts hands it to the task handler.
	FlushHints func(context.Context) tasks.FlushHint
	// exposed: the server is reachable from other machines: its listener is, or it is published to them under
	// a name that is not loopback (--public-url, --allow-host: a reverse proxy or a tunnel on this machine).
	exposed bool
}

// TaskParts assembles a backend whose agent runs on the task runner (package tasks), so that no backend
// does it by hand: the runner over Env.Store, its push notifications (the server's --push-allow and
// listener rule), its request handler given the hot path's flush hints, and the parts that serve it: the
// hot path, detached streams, push notifications on, the runner's Shutdown. a is nil for a backend that
// starts every turn itself (Runner.Start: replay). The backend then changes what it must in the parts
// (wraps Handler, composes Shutdown, adds Card, Front or Conns); h is the handler, h.Runner() its runner.
func (e *Env) TaskParts(a tasks.Agent) (h *tasks.Handler, p *Parts) {
	ts := tasks.NewRunner(e.Store, a, tasks.NewPusher(e.Config.PushAllow, e.Log.Printf, e.pushOptions()...))
	h = tasks.NewHandler(ts, tasks.WithFlushHints(e.FlushHints), tasks.WithSubscriptionLimits(e.Config.MaxSubscriptionsPerTask, e.Config.MaxSubscriptions))
	return h, &Parts{Handler: h, Shutdown: ts.Shutdown, Push: PushOn, FastPath: true, DetachStreams: true}
}

// pushOptions are the options of the backend's tasks.NewPusher that follow from how the server listens: once
// it is reachable from other machines (Env.exposed), loopback webhooks need a loopback host named in --push-allow.
func (e *Env) pushOptions() []tasks.PusherOption {
	if e.exposed {
		return []tasks.PusherOption{tasks.OffLoopback()}
	}
	return nil
}

// flushHints is Env.FlushHints.
func flushHints(ctx context.Context) tasks.FlushHint {
	if g := hotpath.FlushGateFrom(ctx); g != nil {
		return g
	}
	return nil
}

// Parts is a set-up backend: its request handler and what it declares about how it is served.
type Parts struct {
	Handler  a2asrv.RequestHandler
	Shutdown func(ctx context.Context) error // stops the backend within ctx; nil => nothing to stop
	// Card returns the card the backend wants to publish before our interfaces are substituted;
	// nil means the card built from Config.
	Card func(ctx context.Context) (*a2a.AgentCard, error)
	// Push says what the card says about push notifications.
	Push PushSupport
	// FastPath serves the hot v1.0 calls through package hotpath (its encoder writes a2asrv's bytes);
	// DetachStreams (with FastPath) lets their streams leave net/http (hotpath.Detacher).
	FastPath, DetachStreams bool
	// Front, when set, wraps the server's HTTP handler (the mux and what the backend adds): handlers
	// the backend serves in front of the A2A bindings (replay's commands, the proxy's byte path).
	Front func(next http.Handler) http.Handler
	// Conns, when set, follows the HTTP server's connections; its hooks run after the server's own.
	Conns *ConnHooks
}

// ConnHooks follow the HTTP server's connections (replay's connection rule).
type ConnHooks struct {
	State   func(net.Conn, http.ConnState)                        // after the server's own ConnState hook
	Context func(ctx context.Context, c net.Conn) context.Context // the server's ConnContext
	// IdleTimeout replaces the server's idle timeout when positive.
	IdleTimeout time.Duration
}

// PushSupport is what a backend's card says about push notifications.
type PushSupport int

const (
	PushOff      PushSupport = iota // not supported: the push methods answer PushNotificationNotSupportedError
	PushOn                          // the task store keeps configs and delivers (package tasks)
	PushUpstream                    // as the backend's own card says (the proxy forwards the methods)
)

// Echo returns a backend that answers every message with a completed task whose artifact carries
// the message's parts (text, data and file parts alike), so every task verb works against it.
func Echo() Backend { return echoBackend{} }

type echoBackend struct{}

func (echoBackend) Setup(e *Env) (*Parts, error) {
	_, p := e.TaskParts(echoAgent{})
	return p, nil
}

type echoAgent struct{}

func (echoAgent) Reply(*a2a.Message) *a2a.Message { return nil }

func (echoAgent) Run(_ context.Context, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	t.Emit(a2a.NewStatusUpdateEvent(t.Info, a2a.TaskStateWorking, nil))
	ev := a2a.NewArtifactEvent(t.Info, t.Message.Parts...)
	ev.Artifact.Name = "echo"
	ev.LastChunk = true
	t.Emit(ev)
	return a2a.TaskStateCompleted, nil
}
