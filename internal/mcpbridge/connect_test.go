package mcpbridge

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/syncbuf"
	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The bridge in the process, under the race detector (e2e runs a binary built without it): agents connected at
// once, a silent one, one whose card comes while calls run, and calls from several goroutines meanwhile.
func TestConnectConcurrently(t *testing.T) {
	good := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, EditCard: func(c *a2a.AgentCard) { c.Name = "Good" }})
	late := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, EditCard: func(c *a2a.AgentCard) { c.Name = "Late" }})
	heldURL, release := testagent.Held(t, late.URL)
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts (the kernel's backlog) and never answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	silent := "http://" + ln.Addr().String()

	var log syncbuf.Buffer
	opts := &client.Options{Timeout: 3 * time.Second}
	if err := opts.LoadTLS(); err != nil { // as the verbs' flags are checked, before any connect
		t.Fatal(err)
	}
	vlog := &client.Log{W: &log, Enabled: true} // one -v log for every agent, as a run has
	connect := func(ctx context.Context, u string) (*client.Conn, error) {
		o := *opts // each agent's Dialer has its own copy of the options, as package cli's forAgent makes
		return client.NewDialer(&o, vlog, &log).Connect(ctx, u)
	}
	const wait = 300 * time.Millisecond
	start := time.Now()
	b, err := New(context.Background(), Config{Connect: connect, StartWait: wait, Log: &log}, []string{good.URL, heldURL, silent})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if took := time.Since(start); took > wait+opts.Timeout/2 {
		t.Errorf("New took %s with StartWait %s", took, wait)
	}
	lateTool := strings.ReplaceAll(strings.TrimPrefix(heldURL, "http://"), ":", "_")
	silentTool := strings.ReplaceAll(ln.Addr().String(), ":", "_")
	if got, want := strings.Join(b.Tools(), " "), "good_echo "+lateTool+" "+silentTool; got != want {
		t.Fatalf("tools = %q, want %q", got, want)
	}

	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := b.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	call := func(tool string) *mcp.CallToolResult {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "to " + tool}})
		if err != nil {
			t.Errorf("call %s: %v", tool, err)
			return &mcp.CallToolResult{IsError: true}
		}
		return r
	}
	text := func(r *mcp.CallToolResult) string {
		var s []string
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				s = append(s, tc.Text)
			}
		}
		return strings.Join(s, "\n")
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if r := call("good_echo"); r.IsError || !strings.Contains(text(r), "to good_echo") {
				t.Errorf("good_echo: %v %q", r.IsError, text(r))
			}
		})
		wg.Go(func() {
			if r := call(lateTool); r.IsError || !strings.Contains(text(r), "to "+lateTool) {
				t.Errorf("%s: %v %q", lateTool, r.IsError, text(r))
			}
		})
		wg.Go(func() {
			if r := call(silentTool); !r.IsError || !strings.Contains(text(r), "the A2A agent at "+silent+" cannot be reached") {
				t.Errorf("%s: %v %q", silentTool, r.IsError, text(r))
			}
		})
	}
	release()
	wg.Wait()
	if got := strings.Join(b.Tools(), " "); !strings.Contains(got, "late_echo") {
		t.Errorf("tools after the late card = %q, want late_echo among them", got)
	}
}
