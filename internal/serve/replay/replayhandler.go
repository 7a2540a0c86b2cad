package replay

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// Config configures the Replay backend.
type Config struct {
	// Recordings are served together: a new task picks those whose first user message matches,
	// and each later message narrows them down (recordings sharing a prefix are branches).
	Recordings []*Recording
	// Speed scales the recorded pace: 0 replays at once, 1 in real time, N N times faster.
	Speed float64
	// UnmatchedError answers a message that matches no branch with an invalid-params error
	// instead of the default, which is what the Gemini server does with unknown answers: accept
	// the request (a stream gets its SSE headers) and never send an event.
	UnmatchedError bool
	// ConnectionRule is "auto" (or ""): on for recordings of the Gemini server; "on"; or "off".
	ConnectionRule string
	// IdleTimeout is how long the server keeps an idle connection open when the connection rule
	// is on; 0 => 5s, like the Gemini server.
	IdleTimeout time.Duration
}

const defaultReplayIdle = 5 * time.Second

// New returns a backend that serves recorded sessions turn by turn: it streams the recorded
// events up to the next user message and waits there for the client's matching answer.
func New(c Config) serve.Backend { return replayBackend{cfg: c} }

type replayBackend struct{ cfg Config }

func (b replayBackend) Setup(e *serve.Env) (*serve.Parts, error) {
	if len(b.cfg.Recordings) == 0 {
		return nil, errors.New("replay: no recording")
	}
	if b.cfg.Speed < 0 {
		return nil, fmt.Errorf("replay: invalid speed %v", b.cfg.Speed)
	}
	// No agent: every turn is a recorded script handed to Start (replaysession.go).
	h, parts := e.TaskParts(nil)
	r := &replayer{cfg: b.cfg, ts: h.Runner(), quiet: e.Config.Quiet, log: e.Log.Printf, Handler: h, sessions: map[a2a.TaskID]*session{}}
	for _, rec := range b.cfg.Recordings {
		r.cmds.merge(rec.Commands)
		if rec.Shape == "gemini" {
			r.gemini = true
		}
		if rec.Shape != "" {
			r.devtool = true
		}
	}
	switch b.cfg.ConnectionRule {
	case "", "auto":
		r.rule = r.gemini
	case "on":
		r.rule = true
	case "off":
	default:
		return nil, fmt.Errorf("replay: invalid connection rule %q (want auto, on or off)", b.cfg.ConnectionRule)
	}
	r.idle = b.cfg.IdleTimeout
	if r.idle <= 0 {
		r.idle = defaultReplayIdle
	}
	card := serve.BaseCard(e.Config)
	if e.Config.Card == nil && r.devtool {
		card.Capabilities.Extensions = append(card.Capabilities.Extensions, a2a.AgentExtension{
			URI: devtool.URI, Description: "development-tool events (replayed)"})
	}
	parts.Handler = r
	parts.Card = func(context.Context) (*a2a.AgentCard, error) { return card, nil }
	parts.Front = r.commandsHandler
	// The hot path, but not detached streams: the connection rule follows a turn's connection through
	// net/http (replayconn.go).
	parts.DetachStreams = false
	if r.rule {
		parts.Conns = &serve.ConnHooks{State: r.conns.hook(r.idle), Context: r.conns.context, IdleTimeout: r.idle}
	}
	return parts, nil
}

// replayer is the replay backend's request handler. Get, list, cancel and subscribe are the
// task handler's; sending is matched against the recordings.
type replayer struct {
	*tasks.Handler
	cfg     Config
	ts      *tasks.Runner
	cmds    CommandsExt
	gemini  bool // some recording came from the Gemini server
	devtool bool // some recording is development-tool traffic
	rule    bool // emulate the connection rule
	idle    time.Duration
	conns   connTable
	log     tasks.Logf // the server's log
	quiet   bool       // no traffic log: replay's notes are not written either

	mu       sync.Mutex
	sessions map[a2a.TaskID]*session
}

var _ a2asrv.RequestHandler = (*replayer)(nil)

var errNoMatch = errors.New("message matches no recorded branch")

// connClosed applies the connection rule when the connection of a turn that ends waiting for
// permission closes.
func (r *replayer) connClosed(p *play, byClient bool) {
	if !byClient {
		r.logf("replay: task %s: the server closed the idle connection of its turn; pending tools kept\n", p.sess.taskID)
		return
	}
	if p.sess.abort(p.waitPos) {
		r.logf("replay: task %s: the client closed the connection of its turn; pending tools aborted (connection rule)\n", p.sess.taskID)
	}
}

func (r *replayer) logf(format string, args ...any) {
	if r.log != nil && !r.quiet {
		r.log(format, args...)
	}
}

// unmatched is what a message that matches no branch gets: an error, or nothing until the caller
// goes away.
func (r *replayer) unmatched(ctx context.Context, msg *a2a.Message) error {
	if r.cfg.UnmatchedError {
		return a2a.NewError(a2a.ErrInvalidParams, "replay: "+errNoMatch.Error())
	}
	<-ctx.Done()
	return ctx.Err()
}

// SendMessage implements a2asrv.RequestHandler.
func (r *replayer) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if err := tasks.CheckMessage(req); err != nil {
		return nil, err
	}
	immediate := req.Config != nil && req.Config.ReturnImmediately
	var sub *tasks.Subscriber
	if !immediate {
		sub = tasks.NewSubscriber()
	}
	p, err := r.begin(req.Message, sub)
	if errors.Is(err, errNoMatch) {
		return nil, r.unmatched(ctx, req.Message)
	}
	if err != nil {
		return nil, err
	}
	if immediate {
		return p.snap, nil
	}
	defer r.ts.Unsubscribe(p.snap.ID, sub)
	for {
		select {
		case _, ok := <-sub.Events():
			if !ok {
				if err := sub.Err(); err != nil {
					return nil, err
				}
				return r.ts.Store().View(p.snap.ID, tasks.HistoryLength(req))
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (r *replayer) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if err := tasks.CheckMessage(req); err != nil {
			yield(nil, err)
			return
		}
		sub := tasks.NewSubscriber()
		p, err := r.begin(req.Message, sub)
		if errors.Is(err, errNoMatch) {
			if err := r.unmatched(ctx, req.Message); ctx.Err() == nil {
				yield(nil, err)
			}
			return
		}
		if err != nil {
			yield(nil, err)
			return
		}
		defer r.ts.Unsubscribe(p.snap.ID, sub)
		if r.rule && p.waits {
			if c := connFrom(ctx); c != nil {
				c.onClose(func(byClient bool) { r.connClosed(p, byClient) })
			}
		}
		if p.leadSnap && !yield(p.snap, nil) {
			return
		}
		r.Forward(ctx, sub, yield)
	}
}
