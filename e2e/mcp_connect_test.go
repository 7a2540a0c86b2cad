package e2e

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// An agent that never answers does not hold up `a2a mcp`'s start, nor the other agents' tools: the agents are
// connected at once, the server answers the host within its short start-up wait (mcpbridge.StartWait, 4 s), well
// before --timeout, and the silent agent's stand-in tool says why it cannot be reached.

// silentAgent is an address that accepts connections and never answers a byte.
func silentAgent(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

func TestMCPSilentAgentDoesNotHoldStartup(t *testing.T) {
	good := startServe(t, "--echo")
	silent := silentAgent(t)
	standIn := strings.ReplaceAll(strings.TrimPrefix(silent, "http://"), ":", "_")
	const timeout = 20 * time.Second
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			h := &mcpClient{}
			start := time.Now()
			cs := connectMCP(t, transport, h, "--timeout", timeout.String(), good.url, silent)
			tools := toolNames(t, cs)
			took := time.Since(start)
			t.Logf("initialize and tools/list with a silent agent and --timeout %s: %s", timeout, took.Round(time.Millisecond))
			// The old bridge read the cards one after the other before answering: it took the whole --timeout.
			if took > timeout/3 {
				t.Errorf("initialize and tools/list took %s, want under a third of --timeout %s", took, timeout)
			}
			if want := []string{"a2a_serve", standIn, "continue"}; !sameSet(tools, want) {
				t.Fatalf("tools = %q, want %q", tools, want)
			}
			r := callTool(t, context.Background(), cs, "a2a_serve", map[string]any{"message": "while the other is silent"})
			if r.IsError || !strings.Contains(resultText(r), "while the other is silent") {
				t.Fatalf("the good agent's tool: error %v, text %q", r.IsError, resultText(r))
			}
			if took := time.Since(start); took > timeout/2 {
				t.Errorf("the good agent's answer came %s after the start, want under half of --timeout %s", took, timeout)
			}
			// The silent agent's tool waits for its connect, bounded by --timeout, and says which agent and why.
			r = callTool(t, context.Background(), cs, standIn, map[string]any{"message": "anyone there?"})
			text := resultText(r)
			if !r.IsError || !strings.Contains(text, "the A2A agent at "+silent+" cannot be reached") ||
				!strings.Contains(text, "timeout expired") {
				t.Errorf("the silent agent's tool: error %v, text %q", r.IsError, text)
			}
			if took := time.Since(start); took > timeout+timeout/2 {
				t.Errorf("the silent agent's failure came %s after the start: it waited for a second connect", took)
			}
		})
	}
}

// An agent whose card comes after the server answered the host gets its skills' tools then, and the host hears of
// them (notifications/tools/list_changed); until then its stand-in tool sends to it once it answers.
func TestMCPLateAgentListed(t *testing.T) {
	good := startServe(t, "--echo")
	late := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, EditCard: func(c *a2a.AgentCard) { c.Name = "Late" }})
	heldURL, release := testagent.Held(t, late.URL)
	changed := make(chan struct{}, 1)
	h := &mcpClient{listChanged: changed}
	cs := connectMCP(t, "stdio", h, "--timeout", "30s", good.url, heldURL)
	standIn := strings.ReplaceAll(strings.TrimPrefix(heldURL, "http://"), ":", "_")
	if tools, want := toolNames(t, cs), []string{"a2a_serve", standIn, "continue"}; !sameSet(tools, want) {
		t.Fatalf("tools before the card = %q, want %q", tools, want)
	}
	release()
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no notifications/tools/list_changed after the late card came\nstderr:\n%s", h.stderr.String())
	}
	if tools, want := toolNames(t, cs), []string{"a2a_serve", standIn, "late_echo", "continue"}; !sameSet(tools, want) {
		t.Fatalf("tools after the card = %q, want %q", tools, want)
	}
	for _, tool := range []string{"late_echo", standIn} {
		r := callTool(t, context.Background(), cs, tool, map[string]any{"message": "via " + tool})
		if r.IsError || !strings.Contains(resultText(r), "via "+tool) {
			t.Errorf("%s: error %v, text %q", tool, r.IsError, resultText(r))
		}
	}
	if !strings.Contains(h.stderr.String(), "answered: its tools are listed") {
		t.Errorf("stderr does not say the late agent was listed:\n%s", h.stderr.String())
	}
}

// sameSet says whether a and b hold the same names, in any order (the SDK lists tools by name).
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
