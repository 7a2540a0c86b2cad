package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// a2a (no MCP server linked in) hands `a2a mcp` to a2a-mcp with the run's own arguments; a2a-mcp (MainMCP) serves
// it with the flags, the tenant and the streams the run parsed.
func TestMCPHandsOver(t *testing.T) {
	t.Parallel()
	args := []string{"mcp", "localhost:1", "localhost:2", "--http", ":0", "--save", "out", "--allow-host", "h.test", "--tenant", "t1"}

	s, _, _, errOut := TestStreams()
	var gotName string
	var gotArgs []string
	s.Exec = func(name string, a []string) error { gotName, gotArgs = name, a; return errors.New("no such file") }
	if code := Main(context.Background(), args, s); code != 1 {
		t.Fatalf("Main = %d, want 1 (the exec failed)\n%s", code, errOut)
	}
	if gotName != "a2a-mcp" || !cmp.Equal(gotArgs, args) {
		t.Errorf("exec %q %q, want a2a-mcp %q", gotName, gotArgs, args)
	}
	if !strings.Contains(errOut.String(), "a2a: start a2a-mcp, the MCP server of a2a mcp") || !strings.Contains(errOut.String(), "no such file") {
		t.Errorf("stderr = %q", errOut)
	}

	s, _, _, errOut = TestStreams()
	var got *MCPRun
	code := MainMCP(context.Background(), args, s, func(_ context.Context, r *MCPRun) error { got = r; return nil })
	if code != 0 || got == nil {
		t.Fatalf("MainMCP = %d\n%s", code, errOut)
	}
	if !cmp.Equal(got.URLs, []string{"localhost:1", "localhost:2"}) || got.HTTP != ":0" || got.Save != "out" ||
		!cmp.Equal(got.AllowHosts, []string{"h.test"}) || got.Env.Tenant != "t1" || got.Dialer == nil || got.Out != s.Out {
		t.Errorf("MCPRun = %+v", got)
	}
}
