package serve_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/proxy"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// connector connects to url like the CLI's client factory does.
func Connector(url string) func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	return func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		card, err := agentcard.DefaultResolver.Resolve(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		c, err := a2aclient.NewFromCard(ctx, card, servetest.InsecureGRPC)
		if err != nil {
			return nil, nil, err
		}
		return c, card, nil
	}
}

func TestProxyForwards(t *testing.T) {
	t.Parallel()
	up := startServer(t, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "cat", Chunk: []byte(" ")}), Name: "Upstream", Quiet: true, Transports: servetest.AllTransports})
	px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: servetest.Connector(up.URL)}), Quiet: true, Transports: servetest.AllTransports})
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, px.URL)
	if err != nil || card.Name != "Upstream" || card.SupportedInterfaces[0].URL != px.URL {
		t.Fatalf("proxy card = %+v, %v; want upstream name with proxy URL", card, err)
	}
	for _, tr := range servetest.AllTransports {
		c := servetest.NewClient(t, px.URL, tr)
		res, err := c.SendMessage(ctx, servetest.TextMessage("a b"))
		if err != nil {
			t.Fatalf("%s: SendMessage() = %v", tr, err)
		}
		task := res.(*a2a.Task)
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		if err != nil || got.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("%s: GetTask() = %v, %v", tr, got, err)
		}
		evs, err := servetest.Collect(t, c.SendStreamingMessage(ctx, servetest.TextMessage("x y z")))
		texts, last, state := servetest.Chunks(evs)
		if err != nil || strings.Join(texts, ",") != "x ,y ,z," || !last || state != a2a.TaskStateCompleted {
			t.Errorf("%s: stream = %q last=%v state=%v err=%v", tr, texts, last, state, err)
		}
		if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID}); !servetest.ErrorIs(err, a2a.ErrTaskNotCancelable) {
			t.Errorf("%s: CancelTask(completed) = %v, want ErrTaskNotCancelable", tr, err)
		}
	}
	c := servetest.NewClient(t, px.URL, a2a.TransportProtocolHTTPJSON)
	list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 6 {
		t.Errorf("ListTasks() = %d tasks, %v; want 6", len(list.Tasks), err)
	}
}

func TestProxyUpstreamDownThenUp(t *testing.T) {
	t.Parallel()
	up := startServer(t, serve.Config{Backend: serve.Echo(), Name: "Late", Quiet: true})
	var online atomic.Bool
	connect := func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		if !online.Load() {
			return nil, nil, errors.New("dial tcp: connection refused")
		}
		return servetest.Connector(up.URL)(ctx)
	}
	px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: connect, Upstream: "http://late"}), Quiet: true})
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, px.URL)
	if err != nil || card.Name != "proxy for http://late" {
		t.Fatalf("card while down = %v, %v; want fallback name", card, err)
	}
	c := servetest.NewClient(t, px.URL, a2a.TransportProtocolHTTPJSON)
	_, err = c.SendMessage(ctx, servetest.TextMessage("x"))
	if err == nil || !strings.Contains(err.Error(), "upstream unreachable: dial tcp: connection refused") {
		t.Fatalf("SendMessage() while down = %v, want upstream unreachable", err)
	}
	online.Store(true)
	if _, err := c.SendMessage(ctx, servetest.TextMessage("x")); err != nil {
		t.Fatalf("SendMessage() after up = %v", err)
	}
	card, err = agentcard.DefaultResolver.Resolve(ctx, px.URL)
	if err != nil || card.Name != "Late" {
		t.Errorf("card after up = %v, %v; want upstream card", card, err)
	}
}

func TestProxyUpstreamDiesMidStream(t *testing.T) {
	t.Parallel()
	up := startServer(t, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "printf '1\\n'; sleep 30", Chunk: []byte("\n"), Grace: 100e6}), Quiet: true})
	px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: servetest.Connector(up.URL)}), Quiet: true})
	c := servetest.NewClient(t, px.URL, a2a.TransportProtocolHTTPJSON)
	var final a2a.TaskState
	var streamErr error
	stopped := make(chan error, 1)
	var once sync.Once
	for ev, err := range c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")) {
		if err != nil {
			streamErr = err
			break
		}
		switch v := ev.(type) {
		case *a2a.TaskArtifactUpdateEvent:
			once.Do(func() { go func() { stopped <- up.Shutdown() }() })
		case *a2a.TaskStatusUpdateEvent:
			final = v.Status.State
		}
	}
	if streamErr == nil && !final.Terminal() {
		t.Errorf("stream ended with state %v and no error, want a final status or an error", final)
	}
	<-stopped
}

func TestProxyAuthAndRedaction(t *testing.T) {
	t.Parallel()
	for _, injected := range []bool{false, true} {
		var mu sync.Mutex
		var seen http.Header
		ts := tasks.NewRunner(tasks.NewStore(0, 0, nil), serve.EchoAgent{}, nil)
		h := &a2asrv.InterceptedHandler{Handler: tasks.NewHandler(ts)}
		mux := http.NewServeMux()
		upSrv := httptest.NewServer(mux)
		t.Cleanup(upSrv.Close)
		card := &a2a.AgentCard{Name: "up", SupportedInterfaces: []*a2a.AgentInterface{{URL: upSrv.URL, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version}}}
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
		rest := a2asrv.NewRESTHandler(h)
		mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = r.Header.Clone()
			mu.Unlock()
			rest.ServeHTTP(w, r)
		}))
		log := &servetest.SyncBuffer{}
		px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: servetest.Connector(upSrv.URL), AuthInjected: injected}), Verbose: true, Log: log})
		c := servetest.NewClient(t, px.URL, a2a.TransportProtocolHTTPJSON)
		ctx := a2aclient.AttachServiceParams(context.Background(), a2aclient.ServiceParams{
			"Authorization": {"Bearer s3cr3t"}, "X-Trace": {"t1"}, "X-Api-Key": {"k3y"}})
		if _, err := c.SendMessage(ctx, servetest.TextMessage("x")); err != nil {
			t.Fatalf("SendMessage() = %v", err)
		}
		mu.Lock()
		gotAuth, gotTrace := seen.Get("Authorization"), seen.Get("X-Trace")
		mu.Unlock()
		wantAuth := "Bearer s3cr3t"
		if injected {
			wantAuth = ""
		}
		if gotAuth != wantAuth || gotTrace != "t1" {
			t.Errorf("injected=%v: upstream saw Authorization=%q X-Trace=%q, want %q t1", injected, gotAuth, gotTrace, wantAuth)
		}
		// The call line is written once the answer went out, so it may trail the client's return.
		hasLine := servetest.Eventually(5*time.Second, func() bool { return strings.Contains(log.String(), "SendMessage task=") })
		out := log.String()
		if strings.Contains(out, "s3cr3t") || strings.Contains(out, "k3y") || !strings.Contains(strings.ToLower(out), "authorization=***") {
			t.Errorf("log leaks or lacks redaction:\n%s", out)
		}
		if !hasLine {
			t.Errorf("log lacks the call line:\n%s", out)
		}
		ts.Shutdown(context.Background())
	}
}
