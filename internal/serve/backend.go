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

// Backend produces the answers of the server: Echo, Exec, Proxy, Replay or one of a caller's own.
type Backend interface {
	// Setup runs once in Run, before the server listens, and returns the backend's parts.
	Setup(e *Env) (*Parts, error)
}

// Env is what Run hands a backend.
type Env struct {
	Config *Config      // normalised: defaults filled in
	Store  *tasks.Store // the task store of backends that keep tasks here (echo, exec, replay)
	// Logf writes a line to the server's log (sanitised; whether or not Config.Quiet: a backend's
	// own notes check it).
	Logf tasks.Logf
	log  *traffic.Log // the traffic log, for this package's backends (exec's stderr lines, the proxy's calls)
	// Recording says the backend's handler is wrapped by a recorder (Record), which needs the events of
	// A2A calls: a backend that could forward them without decoding (the proxy's byte path) must not.
	Recording bool
	// FlushHints finds the flush hint of a stream's request context (package hotpath's flush
	// gate, put there by the response writer); hand it to tasks.NewHandler with tasks.WithFlushHints.
	FlushHints func(context.Context) tasks.FlushHint
	exposed    bool // the listener is reachable from other machines
}

// PushOptions are the options of the backend's tasks.NewPusher that follow from how the server listens: once it
// is reachable from other machines, loopback webhooks need a loopback host named in --push-allow.
func (e *Env) PushOptions() []tasks.PusherOption {
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

// taskBackend is the parts of a backend whose agent runs on the task runner: served on the hot
// path, its streams detached.
func taskBackend(e *Env, a tasks.Agent) *Parts {
	ts := tasks.NewRunner(e.Store, a, tasks.NewPusher(e.Config.PushAllow, e.log.Printf, e.PushOptions()...))
	return &Parts{Handler: tasks.NewHandler(ts, tasks.WithFlushHints(e.FlushHints)), Shutdown: ts.Shutdown, Push: PushOn, FastPath: true, DetachStreams: true}
}

// Echo returns a backend that answers every message with a completed task whose artifact carries
// the message's parts (text, data and file parts alike), so every task verb works against it.
func Echo() Backend { return echoBackend{} }

type echoBackend struct{}

func (echoBackend) Setup(e *Env) (*Parts, error) { return taskBackend(e, echoAgent{}), nil }

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
