package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/termsafe"
)

// Backend produces the answers of the server: Echo, Exec or Proxy.
type Backend interface {
	setup(e *env) (*backendParts, error)
}

// env is what Run hands a backend.
type env struct {
	cfg   *Config
	store *memStore
	log   *trafficLog
}

// backendParts is a set-up backend.
type backendParts struct {
	handler  a2asrv.RequestHandler
	shutdown func(ctx context.Context) error
	// card returns the card the backend wants to publish before our interfaces are substituted;
	// nil means the card built from Config.
	card func(ctx context.Context) (*a2a.AgentCard, error)
	// http, when set, adjusts the HTTP server before it starts (handlers in front, connection hooks).
	http func(*http.Server)
	// push says what the card says about push notifications.
	push pushSupport
}

// pushSupport is what a backend's card says about push notifications.
type pushSupport int

const (
	pushOff      pushSupport = iota // not supported: the push methods answer PushNotificationNotSupportedError
	pushOn                          // the task store keeps configs and delivers (push.go)
	pushUpstream                    // as the backend's own card says (the proxy forwards the methods)
)

func taskBackend(e *env, a agent) *backendParts {
	ts := newTasks(e.store, a, newPusher(e.cfg.PushAllow, e.log))
	if d := e.store.durable; d != nil {
		cancel := func(id a2a.TaskID) { ts.cancel(context.Background(), id) } //nolint:errcheck // the requester reads the outcome from the store
		d.cancelLocal.Store(&cancel)
	}
	return &backendParts{handler: &taskHandler{ts: ts}, shutdown: ts.shutdown, push: pushOn}
}

// Echo returns a backend that answers every message with a completed task whose artifact carries
// the message's parts (text, data and file parts alike), so every task verb works against it.
func Echo() Backend { return echoBackend{} }

type echoBackend struct{}

func (echoBackend) setup(e *env) (*backendParts, error) { return taskBackend(e, echoAgent{}), nil }

type echoAgent struct{}

func (echoAgent) reply(*a2a.Message) *a2a.Message { return nil }

func (echoAgent) run(_ context.Context, t *turn) (a2a.TaskState, *a2a.Message) {
	t.emit(a2a.NewStatusUpdateEvent(t.info, a2a.TaskStateWorking, nil))
	ev := a2a.NewArtifactEvent(t.info, t.Message.Parts...)
	ev.Artifact.Name = "echo"
	ev.LastChunk = true
	t.emit(ev)
	return a2a.TaskStateCompleted, nil
}

// lockedWriter serialises writes of whole lines to the log. Every line goes through termsafe.Sanitize: the log
// prints what clients chose (task ids from the path, methods, error messages, headers), which must never carry an
// escape sequence to the operator's terminal.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) printf(format string, args ...any) {
	line := termsafe.Sanitize(fmt.Sprintf(format, args...))
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, line) //nolint:errcheck // a log line that cannot be written has nowhere else to go
}
