package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// commandAgent is an httptest agent: a JSON-RPC endpoint at /rpc (commands/get only when rfc is set) and, when
// gemini is set, GET /listCommands. It records the requests it saw.
type commandAgent struct {
	rfc, gemini bool
	mu          sync.Mutex
	seen        []string
	headers     []string
}

func (a *commandAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body) // a test agent: a short body is fine
	var rpc struct{ Method string }
	json.Unmarshal(body, &rpc) //nolint:errcheck // GET has no body
	a.mu.Lock()
	a.seen = append(a.seen, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+rpc.Method))
	a.headers = append(a.headers, r.Header.Get("X-Test"))
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/rpc" && rpc.Method == "commands/get" && a.rfc:
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"commands":[{"name":"rfc-cmd"}]}}`)
	case r.URL.Path == "/rpc":
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
	case r.URL.Path == "/listCommands" && a.gemini:
		io.WriteString(w, `{"commands":[{"name":"gemini-cmd"}]}`)
	default:
		http.NotFound(w, r)
	}
}

func TestFetchCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		agent    *commandAgent
		want     string
		wantErr  error
		wantSeen []string
	}{
		{name: "rfc", agent: &commandAgent{rfc: true, gemini: true}, want: "rfc-cmd",
			wantSeen: []string{"POST /rpc commands/get"}},
		{name: "gemini after -32601", agent: &commandAgent{gemini: true}, want: "gemini-cmd",
			wantSeen: []string{"POST /rpc commands/get", "GET /listCommands"}},
		{name: "neither", agent: &commandAgent{}, wantErr: client.ErrNoCommands,
			wantSeen: []string{"POST /rpc commands/get", "GET /listCommands"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.agent)
			defer srv.Close()
			f := &factory{opts: &globalOptions{}, log: &client.Log{}}
			c := &client.Conn{
				Iface:   &a2a.AgentInterface{URL: srv.URL + "/rpc", ProtocolBinding: a2a.TransportProtocolJSONRPC},
				HC:      f.dialer().HTTPClient(),
				Params:  map[string][]string{"X-Test": {"yes"}},
				Timeout: 10 * time.Second,
			}
			cmds, _, err := fetchCommands(context.Background(), f, c)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("fetchCommands() = %v, want %v", err, tt.wantErr)
				}
			} else if err != nil || len(cmds) != 1 || cmds[0].Name != tt.want {
				t.Fatalf("fetchCommands() = %v, %v, want [%s]", cmds, err, tt.want)
			}
			if diff := cmp.Diff(tt.wantSeen, tt.agent.seen); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			for i, h := range tt.agent.headers {
				if h != "yes" {
					t.Errorf("request %d (%s) lacks the --svc-param header", i, tt.agent.seen[i])
				}
			}
		})
	}
}

func TestDecodeEvent(t *testing.T) {
	t.Parallel()
	v03 := `{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"working"},"final":false}}`
	ev, err := client.DecodeEvent([]byte(v03))
	if err != nil {
		t.Fatal(err)
	}
	su, ok := ev.(*a2a.TaskStatusUpdateEvent)
	if !ok || su.TaskID != "t1" || su.Status.State != a2a.TaskStateWorking {
		t.Errorf("decodeEvent(v0.3) = %#v, want a working status update of t1", ev)
	}
	_, err = client.DecodeEvent([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"canceled"}}`))
	if !errors.Is(err, a2a.ErrInvalidRequest) {
		t.Errorf("decodeEvent(error) = %v, want ErrInvalidRequest", err)
	}
}
