// Package servetest holds what the tests of serve and of its backends share: a server run in-process on a free
// loopback port and stopped with the test, a2a-go clients connected to it on a chosen transport, and small
// helpers for messages, streams and logs. It is imported only from tests; it imports no package of this
// repository but syncbuf (the log a server writes while a test reads it) and store/pgtest (a PostgreSQL of a
// test's own): serve's own internal tests use it too, so the server to run is handed in as a function.
package servetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2acli/a2a/internal/store/pgtest"
	"github.com/a2acli/a2a/internal/syncbuf"
)

// SyncBuffer is a log writer safe for concurrent use.
type SyncBuffer = syncbuf.Buffer

// Server is a server started by Start.
type Server struct {
	URL  string
	stop context.CancelFunc
	done chan error
	once sync.Once
	err  error // run's, once it returned
}

// Start runs run (serve.Run with the config's Ready set to ready, on 127.0.0.1:0) until the test ends, and
// returns once ready was called with the server's URL.
func Start(t testing.TB, run func(ctx context.Context, ready func(url string)) error) *Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	s := &Server{stop: cancel, done: make(chan error, 1)}
	go func() { s.done <- run(ctx, func(u string) { urls <- u }) }()
	select {
	case s.URL = <-urls:
	case err := <-s.done:
		cancel()
		t.Fatalf("Run() = %v before listening", err)
	}
	t.Cleanup(func() {
		cancel()
		s.once.Do(func() {
			select {
			case s.err = <-s.done:
			case <-time.After(30 * time.Second):
				t.Errorf("Run did not return after cancel")
			}
		})
	})
	return s
}

// Shutdown stops the server and returns Run's error.
func (s *Server) Shutdown() error {
	s.stop()
	s.once.Do(func() { s.err = <-s.done })
	return s.err
}

// InsecureGRPC lets a2a-go's client reach a plaintext gRPC interface.
var InsecureGRPC = grpcv1.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))

// NewClient resolves the card at url and connects over tr; the client is destroyed with the test.
func NewClient(t testing.TB, url string, tr a2a.TransportProtocol, opts ...a2aclient.FactoryOption) *a2aclient.Client {
	t.Helper()
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, url)
	if err != nil {
		t.Fatalf("Resolve(%s) = %v", url, err)
	}
	opts = append(opts, InsecureGRPC, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{tr}}))
	c, err := a2aclient.NewFromCard(ctx, card, opts...)
	if err != nil {
		t.Fatalf("NewFromCard(%s) = %v", tr, err)
	}
	t.Cleanup(func() { c.Destroy() })
	return c
}

// TextMessage is a request with one user text part.
func TextMessage(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// Collect drains a stream, returning the events before the first error and that error.
func Collect(t testing.TB, seq func(yield func(a2a.Event, error) bool)) ([]a2a.Event, error) {
	t.Helper()
	var evs []a2a.Event
	for ev, err := range seq {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// Chunks returns the bytes of the artifact events (text, or raw bytes marked "raw:") and whether the last one
// had lastChunk.
func Chunks(evs []a2a.Event) (texts []string, last bool, state a2a.TaskState) {
	for _, ev := range evs {
		switch v := ev.(type) {
		case *a2a.TaskArtifactUpdateEvent:
			var b strings.Builder
			for _, p := range v.Artifact.Parts {
				if raw := p.Raw(); raw != nil {
					b.WriteString("raw:" + string(raw))
					continue
				}
				b.WriteString(p.Text())
			}
			texts = append(texts, b.String())
			last = v.LastChunk
		case *a2a.TaskStatusUpdateEvent:
			state = v.Status.State
		}
	}
	return texts, last, state
}

// Eventually polls cond until it holds or timeout passes, and reports whether it held.
func Eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
	return true
}

// PartsText joins the text parts.
func PartsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// AllTransports are the three bindings, for a server that serves them all.
var AllTransports = []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC}

// ErrorIs is errors.Is of a non-nil err.
func ErrorIs(err, target error) bool { return err != nil && errors.Is(err, target) }

// Connector connects to the agent at url as the CLI's client factory does: the card resolved, gRPC in plaintext (a
// proxy backend's Connect).
func Connector(url string) func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	return func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		card, err := agentcard.DefaultResolver.Resolve(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		c, err := a2aclient.NewFromCard(ctx, card, InsecureGRPC)
		if err != nil {
			return nil, nil, err
		}
		return c, card, nil
	}
}

// OwnPostgres starts a PostgreSQL server of the test's own, one it may stop and start, closed when the test ends,
// and returns it with the URL of a fresh database on it. Without PostgreSQL binaries it skips the test (CI=1 makes
// that a failure).
func OwnPostgres(t testing.TB) (*pgtest.Server, string) {
	t.Helper()
	srv, stop, err := pgtest.Main()
	if err != nil {
		t.Fatal("start PostgreSQL: ", err)
	}
	pgtest.Need(t, srv)
	t.Cleanup(stop)
	db, err := srv.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	return srv, db
}

// StartTask sends text with ReturnImmediately and returns the task the agent made of it.
func StartTask(t testing.TB, c *a2aclient.Client, text string) a2a.TaskID {
	t.Helper()
	req := TextMessage(text)
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	res, err := c.SendMessage(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("the agent answered %T, want a task", res)
	}
	return task.ID
}
