package e2e

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/syncbuf"
	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
	"github.com/a2acli/a2a/internal/testskip"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The MCP Go SDK's own client drives `a2a mcp` (the built binary) over stdio and streamable HTTP, against serve's
// echo and exec agents, an input-required agent (wire.Asker) and an a2a-js agent.

// mcpClient is what a test's MCP host does besides calling: answer elicitations (nil: the host cannot) and collect
// progress notifications.
type mcpClient struct {
	elicit   func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
	mu       sync.Mutex
	progress []string
	gotProg  chan struct{} // closed at the first progress notification
	once     sync.Once
	stderr   syncbuf.Buffer // what a2a mcp wrote to stderr (stdio)
	env      []string       // extra environment of a2a mcp (KEY=value)
	version  string         // the MCP protocol version asked for ("": the SDK's latest)
	// listChanged, when set, receives (without blocking) a value at each notifications/tools/list_changed.
	listChanged chan struct{}
}

func (h *mcpClient) options() *mcp.ClientOptions {
	h.gotProg = make(chan struct{})
	o := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		h.mu.Lock()
		h.progress = append(h.progress, r.Params.Message)
		h.mu.Unlock()
		h.once.Do(func() { close(h.gotProg) })
	}}
	if h.listChanged != nil {
		o.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case h.listChanged <- struct{}{}:
			default:
			}
		}
	}
	if h.elicit != nil {
		o.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return h.elicit(r) }
	}
	return o
}

// connectMCP starts `a2a mcp args…` over the transport named ("stdio" or "http") and connects the SDK's client.
func connectMCP(t *testing.T, transport string, h *mcpClient, args ...string) *mcp.ClientSession {
	t.Helper()
	if h == nil {
		h = &mcpClient{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var tr mcp.Transport
	switch transport {
	case "stdio":
		cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
		cmd.Env = cmdEnv(h.env...)
		cmd.Stderr = &h.stderr
		tr = &mcp.CommandTransport{Command: cmd}
	case "http":
		srv := startServeCmd(t, exec.Command(bin, append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...), h.env...)
		tr = &mcp.StreamableClientTransport{Endpoint: srv.url}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "a2a-e2e", Version: "1"}, h.options()).Connect(ctx, tr,
		&mcp.ClientSessionOptions{ProtocolVersion: h.version})
	if err != nil {
		t.Fatalf("connect to a2a mcp %s over %s: %v", strings.Join(args, " "), transport, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func callTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	p.SetProgressToken("tok-" + name)
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// resultText is a result's text content, one line per item.
func resultText(r *mcp.CallToolResult) string {
	var s []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, "\n")
}

func structured(t *testing.T, r *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return m
}

func TestMCPEchoStdioAndHTTP(t *testing.T) {
	srv := startServe(t, "--echo")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cs := connectMCP(t, transport, nil, srv.url)
			if got := strings.Join(toolNames(t, cs), " "); got != "a2a_serve continue" {
				t.Fatalf("tools = %q, want \"a2a_serve continue\"", got)
			}
			r := callTool(t, context.Background(), cs, "a2a_serve", map[string]any{"message": "hello over " + transport,
				"data": map[string]any{"n": 1}})
			if r.IsError || !strings.Contains(resultText(r), "hello over "+transport) {
				t.Fatalf("result: error %v, text %q", r.IsError, resultText(r))
			}
			if st := structured(t, r); st["state"] != "completed" || st["taskId"] == "" {
				t.Errorf("structured content = %v", st)
			}
			// A bad argument is the tool's error, not the server's end.
			r = callTool(t, context.Background(), cs, "a2a_serve", map[string]any{"message": "x", "files": []any{map[string]any{"path": "/nonexistent/file"}}})
			if !r.IsError || !strings.Contains(resultText(r), "files[0]") {
				t.Errorf("a missing file: error %v, text %q", r.IsError, resultText(r))
			}
		})
	}
}

// A long task reports progress from its events, and a host that cancels the call cancels the A2A task.
func TestMCPExecProgressAndCancel(t *testing.T) {
	srv := startServe(t, "--exec", `printf "started\n"; sleep 30`, "--chunk=\n", "--quiet")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			h := &mcpClient{}
			cs := connectMCP(t, transport, h, srv.url)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				p := &mcp.CallToolParams{Name: toolNames(t, cs)[0], Arguments: map[string]any{"message": "go"}}
				p.SetProgressToken("long")
				_, err := cs.CallTool(ctx, p)
				errc <- err
			}()
			select {
			case <-h.gotProg:
			case err := <-errc:
				t.Fatalf("the call ended before any progress: %v", err)
			case <-time.After(20 * time.Second):
				t.Fatal("no progress notification within 20s")
			}
			// The first notification may be "submitted": cancel once the task is known to be working.
			eventually(t, 20*time.Second, "a working progress notification", func() bool {
				h.mu.Lock()
				defer h.mu.Unlock()
				return strings.Contains(strings.Join(h.progress, "\n"), "working")
			})
			cancel()
			if err := <-errc; err == nil {
				t.Fatal("a canceled call returned no error")
			}
			// The agent's task is canceled: the host's cancellation reached it.
			eventually(t, 15*time.Second, "a canceled task on the agent after the host canceled", func() bool {
				return strings.Contains(run(t, "", "list", "tasks", srv.url, "-o", "json").stdout, "TASK_STATE_CANCELED")
			})
		})
	}
}

// An input-required task asks the host's user by elicitation when the host can, and goes on with the answer;
// without elicitation, the result carries the question and task id and the continue tool answers it.
func TestMCPInputRequired(t *testing.T) {
	for _, stream := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "poll"}[stream]
		t.Run(name, func(t *testing.T) {
			asker := wire.StartAsker(t, stream)
			var asked string
			h := &mcpClient{elicit: func(r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = r.Params.Message
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "Ada"}}, nil
			}}
			cs := connectMCP(t, "stdio", h, asker.URL)
			tool := toolNames(t, cs)[0]
			r := callTool(t, context.Background(), cs, tool, map[string]any{"message": "ask"})
			if r.IsError || !strings.Contains(resultText(r), "hello, Ada") || !strings.Contains(asked, "what is your name?") {
				t.Fatalf("elicited: asked %q; result error %v, text %q\nstderr:\n%s", asked, r.IsError, resultText(r), h.stderr.String())
			}

			// A host on a protocol version before multi round-trip requests gets elicitation/create, and one whose
			// user declines gets the question for the continue tool.
			asked = ""
			h.version = "2025-06-18"
			older := connectMCP(t, "http", h, asker.URL)
			r = callTool(t, context.Background(), older, tool, map[string]any{"message": "ask"})
			if r.IsError || !strings.Contains(resultText(r), "hello, Ada") || !strings.Contains(asked, "what is your name?") {
				t.Fatalf("elicited on 2025-06-18: asked %q; result error %v, text %q", asked, r.IsError, resultText(r))
			}
			declines := connectMCP(t, "stdio", &mcpClient{elicit: func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}}, asker.URL)
			r = callTool(t, context.Background(), declines, tool, map[string]any{"message": "ask"})
			if st := structured(t, r); st["state"] != "input-required" || !strings.Contains(resultText(r), "continue tool") {
				t.Fatalf("declined: structured %v, text %q", st, resultText(r))
			}

			plain := connectMCP(t, "http", nil, asker.URL)
			r = callTool(t, context.Background(), plain, tool, map[string]any{"message": "ask"})
			st := structured(t, r)
			if st["state"] != "input-required" || !strings.Contains(resultText(r), "what is your name?") ||
				!strings.Contains(resultText(r), st["taskId"].(string)) {
				t.Fatalf("without elicitation: structured %v, text %q", st, resultText(r))
			}
			r = callTool(t, context.Background(), plain, "continue", map[string]any{"taskId": st["taskId"], "answer": "Bob"})
			if r.IsError || !strings.Contains(resultText(r), "hello, Bob") {
				t.Fatalf("continue: error %v, text %q", r.IsError, resultText(r))
			}
		})
	}
}

// An agent built on the a2a-js SDK: its card's skill is a tool, and a call gets its answer.
func TestMCPA2AJSAgent(t *testing.T) {
	dir := needA2AJS(t)
	url := startNodeServer(t, dir, "server10.mjs", "JSONRPC")
	cs := connectMCP(t, "stdio", nil, url)
	names := toolNames(t, cs)
	if len(names) != 2 || !strings.HasSuffix(names[0], "_echo") || names[1] != "continue" {
		t.Fatalf("tools = %q, want the agent's echo skill and continue", names)
	}
	r := callTool(t, context.Background(), cs, names[0], map[string]any{"message": "hello js"})
	if r.IsError || !strings.Contains(resultText(r), "hello js") {
		t.Fatalf("result: error %v, text %q", r.IsError, resultText(r))
	}
}

// The MCP Inspector's CLI mode (npm @modelcontextprotocol/inspector, a real MCP client that runs offline) spawns
// `a2a mcp` as a host does, lists its tools and calls one.
func TestMCPInspectorCLI(t *testing.T) {
	dir := needMCPInspector(t)
	srv := startServe(t, "--echo")
	inspect := func(args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join("node_modules", ".bin", "mcp-inspector"), "--cli", bin, "mcp", srv.url}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcp-inspector %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("mcp-inspector %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return m
	}
	tools := inspect("--method", "tools/list")["tools"].([]any)
	if len(tools) != 2 || tools[0].(map[string]any)["name"] != "a2a_serve" {
		t.Fatalf("tools/list = %v", tools)
	}
	res := inspect("--method", "tools/call", "--tool-name", "a2a_serve", "--tool-arg", "message=from the inspector")
	b, _ := json.Marshal(res["content"])
	if !strings.Contains(string(b), "from the inspector") || res["isError"] == true {
		t.Fatalf("tools/call = %v", res)
	}
}

var (
	inspectorOnce sync.Once
	inspectorDir  string
	inspectorErr  string
)

// needMCPInspector installs the MCP Inspector (e2e/testdata/mcpinspector, exact versions in its package-lock.json)
// once and returns its directory; without node or npm the test is skipped, as needA2AJS does.
func needMCPInspector(t *testing.T) string {
	t.Helper()
	inspectorOnce.Do(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				inspectorErr = "skip: " + tool + " not on PATH"
				return
			}
		}
		dir, err := filepath.Abs(filepath.Join("testdata", "mcpinspector"))
		if err != nil {
			inspectorErr = err.Error()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			inspectorErr = "npm ci in " + dir + ": " + err.Error() + "\n" + string(out)
			return
		}
		inspectorDir = dir
	})
	if why, ok := strings.CutPrefix(inspectorErr, "skip: "); ok {
		if os.Getenv("CI") != "" {
			t.Fatalf("the MCP Inspector test needs node and npm in CI: %s", why)
		}
		testskip.Missing(t, testskip.Node, why)
	}
	if inspectorErr != "" {
		t.Fatal(inspectorErr)
	}
	return inspectorDir
}

// File parts come back as embedded resources, or under --save as files linked; data parts as JSON text.
// Credentials come from the environment as for every verb, and appear in no tool and no result; without them
// the result points to a2a auth login.
func TestMCPFilesAndCredentials(t *testing.T) {
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Files, RequireAuth: "Bearer s3cret-token"})
	h := &mcpClient{env: []string{"A2ACLI_AUTH=Bearer s3cret-token"}}
	cs := connectMCP(t, "stdio", h, ag.URL)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tool := tools.Tools[0].Name
	if tool == "continue" { // tools are listed by name
		tool = tools.Tools[1].Name
	}
	r := callTool(t, context.Background(), cs, tool, map[string]any{"message": "files please"})
	var blob *mcp.ResourceContents
	for _, c := range r.Content {
		if e, ok := c.(*mcp.EmbeddedResource); ok {
			blob = e.Resource
		}
	}
	if r.IsError || blob == nil || len(blob.Blob) != testagent.FileSize || blob.MIMEType != testagent.FileMediaType ||
		!strings.Contains(resultText(r), `{"ok":true}`) {
		t.Fatalf("result: error %v, resource %v, text %q", r.IsError, blob != nil, resultText(r))
	}
	for what, v := range map[string]any{"tools": tools, "result": r} {
		if b, _ := json.Marshal(v); strings.Contains(string(b), "s3cret") {
			t.Errorf("the credential is in the %s: %s", what, b)
		}
	}

	dir := t.TempDir()
	saved := connectMCP(t, "http", &mcpClient{env: h.env}, ag.URL, "--save", dir)
	r = callTool(t, context.Background(), saved, tool, map[string]any{"message": "files please"})
	var link *mcp.ResourceLink
	for _, c := range r.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			link = l
		}
	}
	if link == nil || !strings.HasPrefix(link.URI, "file://") {
		t.Fatalf("--save: no file link in %q", resultText(r))
	}
	if b, err := os.ReadFile(strings.TrimPrefix(link.URI, "file://")); err != nil || len(b) != testagent.FileSize {
		t.Fatalf("--save: %s: %d bytes, %v", link.URI, len(b), err)
	}

	anon := connectMCP(t, "stdio", nil, ag.URL)
	r = callTool(t, context.Background(), anon, tool, map[string]any{"message": "files please"})
	if !r.IsError || !strings.Contains(resultText(r), "a2a auth login") {
		t.Fatalf("without credentials: error %v, text %q", r.IsError, resultText(r))
	}
}

// --http has serve's guard: on loopback, a Host that is not a loopback name (DNS rebinding) and a browser page of
// another origin are refused before the MCP handler sees the request; --allow-host and --allow-origin widen it.
func TestMCPHTTPGuard(t *testing.T) {
	srv := startServe(t, "--echo")
	m := startServeCmd(t, exec.Command(bin, "mcp", srv.url, "--http", ":0", "--allow-origin", "http://ok.example"))
	if !strings.HasPrefix(m.url, "http://127.0.0.1:") {
		t.Fatalf("--http :0 listens on %q, want loopback", m.url)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func(host, origin string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, m.url, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"", "", http.StatusOK},
		{"evil.example", "", http.StatusMisdirectedRequest},
		{"", "http://evil.example", http.StatusForbidden},
		{"", "http://ok.example", http.StatusOK},
	} {
		if got := post(c.host, c.origin); got != c.want {
			t.Errorf("POST /mcp with Host %q, Origin %q: %d, want %d", c.host, c.origin, got, c.want)
		}
	}
}

// Each skill on the card is a tool: named after the agent and the skill (valid MCP names, a clash numbered), its
// description the skill's description, tags, input modes and examples, with a card's control bytes removed.
func TestMCPToolsFromCard(t *testing.T) {
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, EditCard: func(c *a2a.AgentCard) {
		c.Name = "Currency Agent"
		c.Skills = []a2a.AgentSkill{
			{ID: "convert", Name: "Convert", Description: "converts an amount \x1b[31mbetween\x1b[0m currencies",
				Tags: []string{"money", "fx"}, InputModes: []string{"text/plain"},
				Examples: []string{"100 USD in EUR", "what is 5 GBP in JPY?"}},
			{ID: "Convert!", Name: "convert again", Description: "a second skill whose name clashes"},
		}
	}})
	cs := connectMCP(t, "stdio", nil, ag.URL)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	if len(tools) != 3 || tools["currency_agent_convert"] == nil || tools["currency_agent_convert_2"] == nil || tools["continue"] == nil {
		t.Fatalf("tools = %v, want currency_agent_convert, currency_agent_convert_2 and continue", slices.Collect(maps.Keys(tools)))
	}
	d := tools["currency_agent_convert"].Description
	for _, want := range []string{"Convert (A2A agent Currency Agent): converts an amount", "Tags: money, fx",
		"Accepts: text/plain", "- 100 USD in EUR", "- what is 5 GBP in JPY?"} {
		if !strings.Contains(d, want) {
			t.Errorf("description %q lacks %q", d, want)
		}
	}
	if strings.Contains(d, "\x1b") {
		t.Errorf("description %q carries the card's escape bytes", d)
	}
	r := callTool(t, context.Background(), cs, "currency_agent_convert_2", map[string]any{"message": "via the second skill"})
	if r.IsError || !strings.Contains(resultText(r), "via the second skill") {
		t.Fatalf("result: error %v, text %q", r.IsError, resultText(r))
	}
}

// A task that stops at auth-required is a tool error that names the task and points to `a2a auth login URL`.
func TestMCPAuthRequiredTask(t *testing.T) {
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired})
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cs := connectMCP(t, transport, nil, ag.URL)
			r := callTool(t, context.Background(), cs, toolNames(t, cs)[1], map[string]any{"message": "start"})
			st := structured(t, r)
			if !r.IsError || st["state"] != "auth-required" || !strings.Contains(resultText(r), "a2a auth login "+ag.URL) ||
				!strings.Contains(resultText(r), st["taskId"].(string)) {
				t.Fatalf("auth-required: error %v, structured %v, text %q", r.IsError, st, resultText(r))
			}
		})
	}
}

// After `a2a auth login`, which a tool result points to, the running `a2a mcp` and a new one (hosts start one per
// session) send the token stored for each agent's origin, as every verb does, and to no other agent they serve.
func TestMCPAfterAuthLogin(t *testing.T) {
	t.Parallel()
	op := startOP(t)
	tokenURL, userinfoURL := opEndpoints(t, op)
	var userinfo atomic.Value
	userinfo.Store(userinfoURL)
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, Authorize: userinfoCheck(&userinfo), EditCard: func(c *a2a.AgentCard) {
		c.Name = "Secured"
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oauth": a2a.OAuth2SecurityScheme{
			Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: tokenURL, Scopes: map[string]string{"openid": "who you are"}}}}
		c.SecurityRequirements = a2a.SecurityRequirementsOptions{{"oauth": {"openid"}}}
	}})
	other := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, EditCard: func(c *a2a.AgentCard) { c.Name = "Other" }})
	// waiter's tasks stop at auth-required (A2A §7.6) until a call about the task carries a token the OP knows.
	waiter := testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired, TaskAuth: userinfoCheck(&userinfo), EditCard: func(c *a2a.AgentCard) {
		c.Name = "Waiter"
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oauth": a2a.OAuth2SecurityScheme{
			Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: tokenURL, Scopes: map[string]string{"openid": "who you are"}}}}
	}})
	home := t.TempDir()
	env := authEnv(home)
	secret := filepath.Join(home, "secret")
	if err := os.WriteFile(secret, []byte("verysecret\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	cs := connectMCP(t, "stdio", &mcpClient{env: env}, agent.URL, other.URL, waiter.URL)
	r := callTool(t, context.Background(), cs, "secured_echo", map[string]any{"message": "before login"})
	if !r.IsError || !strings.Contains(resultText(r), "a2a auth login "+agent.URL) {
		t.Fatalf("before login: error %v, text %q", r.IsError, resultText(r))
	}
	r = callTool(t, context.Background(), cs, "waiter_auth-required", map[string]any{"message": "start"})
	waiting := structured(t, r)
	if !r.IsError || waiting["state"] != "auth-required" || !strings.Contains(resultText(r), "a2a auth login "+waiter.URL) {
		t.Fatalf("auth-required before login: error %v, structured %v, text %q", r.IsError, waiting, resultText(r))
	}

	login := runEnv(t, "", env, "", "auth", "login", agent.URL, "--client-id", "sid1", "--client-secret", "@"+secret)
	wantCode(t, login, 0)
	login = runEnv(t, "", env, "", "auth", "login", waiter.URL, "--client-id", "sid1", "--client-secret", "@"+secret)
	wantCode(t, login, 0)
	// As the auth-required result says: after the login, continue the task, in the same session.
	r = callTool(t, context.Background(), cs, "continue", map[string]any{"taskId": waiting["taskId"], "answer": "go on"})
	if st := structured(t, r); r.IsError || st["state"] != "completed" || !strings.Contains(resultText(r), "authorized: start") {
		t.Fatalf("continue after login: error %v, structured %v, text %q", r.IsError, st, resultText(r))
	}
	tok := runEnv(t, "", env, "", "auth", "token", agent.URL)
	wantCode(t, tok, 0)
	token := strings.TrimSpace(tok.stdout)

	// The same session, as the result asked: the call refused for credentials makes the next one read the token.
	r = callTool(t, context.Background(), cs, "secured_echo", map[string]any{"message": "after login, same session"})
	if r.IsError || !strings.Contains(resultText(r), "after login, same session") {
		t.Fatalf("after login, same session: error %v, text %q", r.IsError, resultText(r))
	}

	h := &mcpClient{env: env}
	cs = connectMCP(t, "stdio", h, agent.URL, other.URL)
	r = callTool(t, context.Background(), cs, "secured_echo", map[string]any{"message": "with the stored token"})
	if r.IsError || !strings.Contains(resultText(r), "with the stored token") {
		t.Fatalf("after login: error %v, text %q\nstderr:\n%s", r.IsError, resultText(r), h.stderr.String())
	}
	if got := lastAuth(agent); got != "Bearer "+token {
		t.Fatalf("the agent got Authorization %q, want the stored token", got)
	}
	r = callTool(t, context.Background(), cs, "other_echo", map[string]any{"message": "to the other agent"})
	if r.IsError || !strings.Contains(resultText(r), "to the other agent") {
		t.Fatalf("other agent: error %v, text %q", r.IsError, resultText(r))
	}
	for _, hdr := range other.Requests() {
		if hdr.Get("Authorization") != "" {
			t.Fatalf("the stored token of %s went to the other agent: %q", agent.URL, hdr.Get("Authorization"))
		}
	}
	if strings.Contains(h.stderr.String(), token) {
		t.Errorf("the token is on stderr:\n%s", h.stderr.String())
	}
}

// Credentials given (environment or --config) go to every agent a2a mcp serves, each on its own origin: not only
// to the agent named last.
func TestMCPCredentialsEachAgent(t *testing.T) {
	first := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, RequireAuth: "Bearer s3cret-token",
		EditCard: func(c *a2a.AgentCard) { c.Name = "First" }})
	second := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, RequireAuth: "Bearer s3cret-token",
		EditCard: func(c *a2a.AgentCard) { c.Name = "Second" }})
	// From the environment, and from a dotenv file named by --config: the configuration every verb reads.
	config := filepath.Join(t.TempDir(), "agents.env")
	if err := os.WriteFile(config, []byte("A2ACLI_AUTH=Bearer s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		env  []string
		args []string
	}{
		"env":    {env: []string{"A2ACLI_AUTH=Bearer s3cret-token"}},
		"config": {args: []string{"--config", config}},
	} {
		h := &mcpClient{env: c.env}
		cs := connectMCP(t, "stdio", h, append([]string{first.URL, second.URL}, c.args...)...)
		for _, tool := range []string{"first_echo", "second_echo"} {
			r := callTool(t, context.Background(), cs, tool, map[string]any{"message": "to " + tool})
			if r.IsError || !strings.Contains(resultText(r), "to "+tool) {
				t.Errorf("%s, %s: error %v, text %q\nstderr:\n%s", name, tool, r.IsError, resultText(r), h.stderr.String())
			}
		}
	}
}

// What else a call can come to: a failed task is a tool error with the agent's message; an agent that answers with
// a bare message gives that message; and a host's cancellation cancels the task of an agent that does not stream,
// which the bridge polls.
func TestMCPTaskOutcomes(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		ag := testagent.Start(t, testagent.Options{Behavior: testagent.Fail})
		cs := connectMCP(t, "stdio", nil, ag.URL)
		r := callTool(t, context.Background(), cs, toolNames(t, cs)[1], map[string]any{"message": "go"})
		if st := structured(t, r); !r.IsError || st["state"] != "failed" || !strings.Contains(resultText(r), testagent.FailText) ||
			!strings.Contains(resultText(r), "task "+st["taskId"].(string)+" failed") {
			t.Fatalf("failed: error %v, structured %v, text %q", r.IsError, st, resultText(r))
		}
	})
	t.Run("message", func(t *testing.T) {
		ag := testagent.Start(t, testagent.Options{Behavior: testagent.MessageOnly})
		cs := connectMCP(t, "stdio", nil, ag.URL)
		r := callTool(t, context.Background(), cs, toolNames(t, cs)[1], map[string]any{"message": "just a message"})
		if r.IsError || resultText(r) != "echo: just a message" || r.StructuredContent != nil {
			t.Fatalf("message: error %v, structured %v, text %q", r.IsError, r.StructuredContent, resultText(r))
		}
	})
	t.Run("cancel_polled", func(t *testing.T) {
		ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute, NoStreaming: true})
		h := &mcpClient{}
		cs := connectMCP(t, "stdio", h, ag.URL)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			p := &mcp.CallToolParams{Name: "test_agent_slow_slow", Arguments: map[string]any{"message": "slowly"}}
			p.SetProgressToken("slow")
			_, err := cs.CallTool(ctx, p)
			errc <- err
		}()
		select {
		case <-h.gotProg: // the task exists: the agent answered SendMessage with it
		case err := <-errc:
			t.Fatalf("the call ended before any progress: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatal("no progress notification within 20s")
		}
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("a canceled call returned no error")
		}
		eventually(t, 15*time.Second, "a canceled task on the agent after the host canceled", func() bool {
			return strings.Contains(run(t, "", "list", "tasks", ag.URL, "-o", "json").stdout, "TASK_STATE_CANCELED")
		})
	})
}
