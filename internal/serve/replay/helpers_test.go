package replay

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2acli/a2a/internal/serve"
)

// syncBuffer is a log writer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testServer struct {
	url    string
	stop   context.CancelFunc
	done   chan error
	stopMu sync.Once
	err    error // Run's, once it returned
}

// startServer runs cfg on 127.0.0.1:0 and stops it when the test ends.
func startServer(t testing.TB, cfg serve.Config) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	cfg.Ready = func(u string) { urls <- u }
	s := &testServer{stop: cancel, done: make(chan error, 1)}
	go func() { s.done <- serve.Run(ctx, cfg) }()
	select {
	case s.url = <-urls:
	case err := <-s.done:
		t.Fatalf("Run() = %v before listening", err)
	}
	t.Cleanup(func() {
		cancel()
		s.stopMu.Do(func() {
			select {
			case s.err = <-s.done:
			case <-time.After(30 * time.Second):
				t.Errorf("Run did not return after cancel")
			}
		})
	})
	return s
}

var insecureGRPC = grpcv1.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))

// newClient resolves the card at url and connects over tr.
func newClient(t testing.TB, url string, tr a2a.TransportProtocol, opts ...a2aclient.FactoryOption) *a2aclient.Client {
	t.Helper()
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, url)
	if err != nil {
		t.Fatalf("Resolve(%s) = %v", url, err)
	}
	opts = append(opts, insecureGRPC, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{tr}}))
	c, err := a2aclient.NewFromCard(ctx, card, opts...)
	if err != nil {
		t.Fatalf("NewFromCard(%s) = %v", tr, err)
	}
	t.Cleanup(func() { c.Destroy() })
	return c
}

func textMessage(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// collect drains a stream.
func collect(t testing.TB, seq func(yield func(a2a.Event, error) bool)) ([]a2a.Event, error) {
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

// connector connects to url like the CLI's client factory does.
func connector(url string) func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	return func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		card, err := agentcard.DefaultResolver.Resolve(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		c, err := a2aclient.NewFromCard(ctx, card, insecureGRPC)
		if err != nil {
			return nil, nil, err
		}
		return c, card, nil
	}
}
