package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
)

var transports = []struct {
	name string
	t    a2a.TransportProtocol
	v03  bool
	noPT bool
}{
	{"jsonrpc", a2a.TransportProtocolJSONRPC, false, false},
	{"rest", a2a.TransportProtocolHTTPJSON, false, false},
	{"grpc", a2a.TransportProtocolGRPC, false, false},
	{"v03-jsonrpc-no-preferredTransport", a2a.TransportProtocolJSONRPC, true, true},
	{"v03-rest", a2a.TransportProtocolHTTPJSON, true, false},
	{"v03-grpc", a2a.TransportProtocolGRPC, true, false},
}

// TestEveryTransport runs discover, send (text, JSON, stream) and get task against a reference agent per transport
// and protocol version, including a v0.3 card without preferredTransport like the Gemini CLI server's.
func TestEveryTransport(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			ag := testagent.Start(t, testagent.Options{Transport: tr.t, V03: tr.v03, NoPreferredTransport: tr.noPT})
			if tr.v03 {
				optIn03(t, ag.URL) // a v0.3 agent is spoken to in v0.3 on the opt-in (§13.2)
			}

			r := run(t, "", "discover", ag.URL)
			wantCode(t, r, 0)
			wantContains(t, "discover", r.stdout, "Name: Test Agent", "Interfaces:", string(tr.t))

			r = run(t, "", "send", ag.URL, "hi there")
			wantCode(t, r, 0)
			if got := field(r.stdout, "State"); got != "completed" {
				t.Fatalf("State = %q, want completed\n%s", got, r)
			}
			wantContains(t, "send", r.stdout, "Task ID: ", "Context ID: ", "echo: hi there")

			r = run(t, "", "send", ag.URL, "json please", "-o", "json")
			wantCode(t, r, 0)
			task := sendTask(t, r)
			if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) == 0 {
				t.Fatalf("task = %+v, want completed with an artifact", task)
			}
			if strings.Count(r.stdout, "\n") != 1 {
				t.Fatalf("-o json in a pipe is not one line:\n%s", r.stdout)
			}

			r = run(t, "", "send", ag.URL, "streamed", "--stream", "-o", "json")
			wantCode(t, r, 0)
			events, errDoc := jsonLines(t, r.stdout)
			if errDoc != nil {
				t.Fatalf("stream ended with an error: %v", errDoc)
			}
			if st := lastState(t, events); st != a2a.TaskStateCompleted {
				t.Fatalf("last streamed state = %s, want completed\n%s", st, r)
			}

			r = run(t, "", "get", "task", ag.URL, string(task.ID), "--with-artifacts", "--history", "5")
			wantCode(t, r, 0)
			if field(r.stdout, "Task ID") != string(task.ID) || field(r.stdout, "State") != "completed" {
				t.Fatalf("get task shows the wrong task\n%s", r)
			}
			wantContains(t, "get task", r.stdout, "echo: json please")
		})
	}
}

// TestForcedTransportWithoutCard treats the URL as the endpoint when --transport is given and there is no card.
func TestForcedTransportWithoutCard(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--transport", "jsonrpc")
	r := run(t, "", "send", srv.url, "x", "--transport", "rest")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, "does not offer --transport rest")
}

// TestServiceParamsTravel checks A2A-Version, --svc-param, --auth and --tenant on every request of every transport.
func TestServiceParamsTravel(t *testing.T) {
	t.Parallel()
	for _, tr := range transports[:3] {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			ag := testagent.Start(t, testagent.Options{Transport: tr.t})
			r := run(t, "", append([]string{"send", ag.URL, "hi", "--svc-param", "X-Trace-Id=abc=1", "--auth", "Bearer sekret", "--tenant", "acme"},
				otherOrigin(tr.t)...)...)
			wantCode(t, r, 0)
			calls := ag.Calls()
			if len(calls) == 0 {
				t.Fatal("agent saw no call")
			}
			c := calls[len(calls)-1]
			for k, want := range map[string]string{"A2a-Version": "1.0", "X-Trace-Id": "abc=1", "Authorization": "Bearer sekret"} {
				if got := http.Header(c.Params).Get(k); got != want {
					t.Errorf("%s = %q, want %q (params %v)", k, got, want, c.Params)
				}
			}
			if c.Tenant != "acme" {
				t.Errorf("tenant = %q, want acme", c.Tenant)
			}
		})
	}
}

func TestVerboseRedactsCredentials(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{})
	r := run(t, "", "send", ag.URL, "hi", "-v", "--auth", "Bearer topsecret", "--svc-param", "X-Api-Key=k123")
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, "card: "+ag.CardURL, "interface: JSONRPC", "first supported interface", "Authorization: ***")
	for _, secret := range []string{"topsecret", "k123"} {
		if strings.Contains(r.stderr, secret) || strings.Contains(r.stdout, secret) {
			t.Fatalf("credential %q leaked into the output\n%s", secret, r)
		}
	}
}

func TestInputRequiredAndResume(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.InputRequired})
	r := run(t, "", "send", ag.URL, "start")
	wantCode(t, r, 0)
	id := field(r.stdout, "Task ID")
	if field(r.stdout, "State") != "input-required" || id == "" {
		t.Fatalf("want an input-required task\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "a2a send "+ag.URL+" --task "+id)

	r = run(t, "", "send", ag.URL, "again", "--fail", "-o", "json")
	wantCode(t, r, 7)
	if doc := errorDoc(t, r); doc["code"] != "A2ANC_ERR_TASK_INTERRUPTED" || doc["taskId"] == "" {
		t.Fatalf("error document %v, want A2ANC_ERR_TASK_INTERRUPTED with the taskId", doc)
	}

	r = run(t, "", "send", ag.URL, "--task", id, "Ada")
	wantCode(t, r, 0)
	if field(r.stdout, "State") != "completed" || field(r.stdout, "Task ID") != id {
		t.Fatalf("the follow-up did not complete the same task\n%s", r)
	}
	wantContains(t, "stdout", r.stdout, "Ada")
}

func TestFailedTask(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Fail})
	r := run(t, "", "send", ag.URL, "x")
	wantCode(t, r, 0)
	if field(r.stdout, "State") != "failed" {
		t.Fatalf("want state failed\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "warning: task", "failed", testagent.FailText)
	r = run(t, "", "send", ag.URL, "x", "--fail")
	wantCode(t, r, 6)
	r = run(t, "", "send", ag.URL, "x", "--fail", "--stream", "-o", "json")
	wantCode(t, r, 6)
	events, _ := jsonLines(t, r.stdout)
	if st := lastState(t, events); st != a2a.TaskStateFailed {
		t.Fatalf("last state %s, want failed", st)
	}
}

// TestManyChunks streams many artifact chunks: all arrive, in order, as JSON Lines and as joined text.
func TestManyChunks(t *testing.T) {
	t.Parallel()
	const n = 300
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Chunks, Chunks: n})
	r := run(t, "", "send", ag.URL, "go", "--stream", "-o", "json")
	wantCode(t, r, 0)
	events, _ := jsonLines(t, r.stdout)
	var got []string
	for _, ev := range events {
		if au, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			for _, p := range au.Artifact.Parts {
				got = append(got, p.Text())
			}
		}
	}
	if len(got) != n {
		t.Fatalf("got %d chunks, want %d", len(got), n)
	}
	for i, s := range got {
		if s != fmt.Sprintf("chunk %d\n", i+1) && s != fmt.Sprintf("chunk %d\n", i) {
			t.Fatalf("chunk %d = %q: out of order", i, s)
		}
	}
	r = run(t, "", "send", ag.URL, "go", "--stream")
	wantCode(t, r, 0)
	if c := strings.Count(r.stdout, "chunk "); c != n {
		t.Fatalf("text stream shows %d chunks, want %d\n%s", c, n, r)
	}
	if field(r.stdout, "State") == "" || !strings.Contains(r.stdout, "State: completed") {
		t.Fatalf("text stream does not end completed\n%s", r)
	}
}

func TestTimeouts(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 20 * time.Second})
	start := time.Now()
	// One blocking call (--blocking) is bounded by --timeout; a plain send would follow the task (below).
	r := run(t, "", "send", ag.URL, "x", "--blocking", "--timeout", "300ms", "-o", "json")
	wantCode(t, r, 5)
	if doc := errorDoc(t, r); doc["code"] != "A2ACLI_ERR_TIMEOUT" {
		t.Fatalf("error code %v, want A2ACLI_ERR_TIMEOUT", doc["code"])
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("timeouts took %s", d)
	}
	// On a stream, silence longer than --timeout is a question (GetTask), not a verdict: the live task is awaited.
	slow := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 2 * time.Second})
	r = run(t, "", "send", slow.URL, "x", "--timeout", "300ms", "--stream", "-v")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "State: completed", "echo: x")
	wantContains(t, "stderr", r.stderr, "no event for 300ms: asking the agent about task", "is working: waiting on")
}

func TestTaskNotFound(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{})
	for _, verb := range [][]string{{"cancel"}, {"get", "task"}} {
		r := run(t, "", append(verb, ag.URL, "no-such-task", "-o", "json")...)
		wantCode(t, r, 1)
		if doc := errorDoc(t, r); doc["code"] != "TaskNotFoundError" || doc["a2aCode"] != float64(-32001) {
			t.Fatalf("%v: error doc %v, want TaskNotFoundError -32001", verb, doc)
		}
		r = run(t, "", append(verb, ag.URL, "no-such-task")...)
		wantCode(t, r, 1)
		wantContains(t, "stderr", r.stderr, "a2a: ", "not found")
	}
}

func TestListTasks(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolHTTPJSON})
	ids := map[string]bool{}
	var ctxID string
	for i := range 3 {
		args := []string{"send", ag.URL, fmt.Sprintf("m%d", i), "-o", "json"}
		if ctxID != "" {
			args = append(args, "--context", ctxID)
		}
		task := sendTask(t, run(t, "", args...))
		ids[string(task.ID)] = true
		ctxID = task.ContextID
	}
	r := run(t, "", "list", "tasks", ag.URL, "--status", "completed", "--context", ctxID, "-o", "json")
	wantCode(t, r, 0)
	var resp a2a.ListTasksResponse
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Tasks) != 3 {
		t.Fatalf("listed %d tasks, want 3\n%s", len(resp.Tasks), r)
	}
	r = run(t, "", "list", "tasks", ag.URL, "--limit", "1")
	wantCode(t, r, 0)
	if field(r.stdout, "Next Page Token") == "" {
		t.Fatalf("one-task page has no Next Page Token\n%s", r)
	}
	r = run(t, "", "list", "tasks", ag.URL, "--limit", "1", "--all", "-o", "json")
	wantCode(t, r, 0)
	resp = a2a.ListTasksResponse{}
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil || len(resp.Tasks) != 3 || resp.NextPageToken != "" {
		t.Fatalf("--all gave %d tasks (token %q), want 3 and no token: %v\n%s", len(resp.Tasks), resp.NextPageToken, err, r)
	}
	for _, task := range resp.Tasks {
		if !ids[string(task.ID)] {
			t.Fatalf("unknown task %s listed", task.ID)
		}
	}
	r = run(t, "", "list", "tasks", ag.URL, "--status", "sideways")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, "invalid --status", "--help")
}

func TestMessageOnlyAndFiles(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.MessageOnly})
	r := run(t, "", "send", ag.URL, "hi", "-o", "json")
	wantCode(t, r, 0)
	if _, ok := sendResult(t, r).(*a2a.Message); !ok {
		t.Fatalf("want a message result\n%s", r)
	}

	files := testagent.Start(t, testagent.Options{Behavior: testagent.Files})
	dir := t.TempDir()
	r = run(t, "", "send", files.URL, "report please", "--save", dir)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, fmt.Sprintf("[file %s %s, %d bytes]", testagent.FileName, testagent.FileMediaType, testagent.FileSize))
	b, err := os.ReadFile(filepath.Join(dir, testagent.FileName))
	if err != nil || len(b) != testagent.FileSize {
		t.Fatalf("saved file: %d bytes, %v; want %d bytes", len(b), err, testagent.FileSize)
	}
	wantContains(t, "stderr", r.stderr, "saved "+filepath.Join(dir, testagent.FileName))
}

func TestHostileAgentText(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Escapes})
	for _, args := range [][]string{{"send", ag.URL, "x"}, {"send", ag.URL, "x", "--stream"}} {
		r := run(t, "", args...)
		wantCode(t, r, 0)
		if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\u009b") {
			t.Fatalf("escape sequences reached the terminal output: %q", r.stdout)
		}
		wantContains(t, "stdout", r.stdout, "red")
	}
}

// TestBigResponse moves a 20 MB artifact, whole and as a stream of 1 KiB chunks. The agent is our own
// `a2a serve --exec` (a separate process, so the race detector of this test does not slow the server down).
func TestBigResponse(t *testing.T) {
	t.Parallel()
	const size = 20 << 20
	whole := startServe(t, "--exec", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a", size), "--quiet")
	r := run(t, "", "send", whole.url, "big", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	n := 0
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			n += len(p.Text())
		}
	}
	if n != size {
		t.Fatalf("artifact text is %d bytes, want %d", n, size)
	}
	r = run(t, "", "send", whole.url, "big")
	wantCode(t, r, 0)
	if len(r.stdout) < size {
		t.Fatalf("text output is %d bytes, want the whole %d-byte artifact", len(r.stdout), size)
	}

	lines := startServe(t, "--exec", fmt.Sprintf("yes %s | head -n %d", strings.Repeat("b", 1023), size/1024), "--chunk=\n", "--quiet")
	r = run(t, "", "send", lines.url, "big", "--stream", "-o", "json")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("big stream did not complete: %v", errDoc)
	}
	n = 0
	for _, ev := range events {
		if au, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			for _, p := range au.Artifact.Parts {
				n += len(p.Text())
			}
		}
	}
	if want := size; n != want { // every line with its newline
		t.Fatalf("streamed %d bytes of text, want %d", n, want)
	}
}

// TestStreamDiesHalfway: the connection dies mid-stream while the task goes on to complete on the agent (an a2a-go
// server, which refuses to resubscribe to a finished task): the CLI resumes by polling and reports the outcome.
func TestStreamDiesHalfway(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.DieMidStream})
	r := run(t, "", "send", ag.URL, "x", "--stream", "-o", "json", "--poll-interval", "100ms")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if len(events) == 0 || errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("want the events received, then the completed task last\n%s", r)
	}
	r = run(t, "", "send", ag.URL, "x", "--stream", "--poll-interval", "100ms")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, testagent.DieMarker, "State: completed")
}

func TestAuth(t *testing.T) {
	t.Parallel()
	for _, tr := range transports[:3] {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			ag := testagent.Start(t, testagent.Options{Transport: tr.t, RequireAuth: "Bearer right"})
			r := run(t, "", "send", ag.URL, "x", "-o", "json")
			wantCode(t, r, 4)
			if code := errorDoc(t, r)["code"]; code != "A2ACLI_ERR_CREDENTIALS_MISSING" {
				t.Fatalf("code %v without --auth, want A2ACLI_ERR_CREDENTIALS_MISSING", code)
			}
			r = run(t, "", append([]string{"send", ag.URL, "x", "--auth", "Bearer wrong", "-o", "json"}, otherOrigin(tr.t)...)...)
			wantCode(t, r, 4)
			if code := errorDoc(t, r)["code"]; code != "A2ACLI_ERR_AUTH_FAILED" {
				t.Fatalf("code %v with a wrong --auth, want A2ACLI_ERR_AUTH_FAILED", code)
			}
			r = run(t, "", append([]string{"send", ag.URL, "x", "--auth", "Bearer wrong"}, otherOrigin(tr.t)...)...)
			wantCode(t, r, 4)
			wantContains(t, "stderr", r.stderr, "--auth")
			r = run(t, "", append([]string{"send", ag.URL, "x", "--auth", "Bearer right"}, otherOrigin(tr.t)...)...)
			wantCode(t, r, 0)
		})
	}
}

// otherOrigin is what a test adds to send credentials to the reference gRPC agent: it serves its card on one port and
// gRPC on another, another origin, which gets no credentials unless the user says so (see security_test.go).
func otherOrigin(tr a2a.TransportProtocol) []string {
	if tr == a2a.TransportProtocolGRPC {
		return []string{"--auth-all-origins"}
	}
	return nil
}

// TestExtendedCard: the authenticated extended card is asked for only with a security scheme the public card
// advertises (the a2a-cli specification, §12.4): the seed's `discover <url> --extended --auth "Bearer <token>"` and
// --bearer against a card declaring a bearer scheme; a credential no declared scheme takes, no credential, or a card
// declaring no scheme is refused before any call (exit 4, A2ACLI_ERR_CREDENTIALS_MISSING, the declared schemes in the
// hint), and so is a card that does not offer an extended card.
func TestExtendedCard(t *testing.T) {
	t.Parallel()
	ext := &a2a.AgentCard{Name: "Secret Extended Agent", Version: "2", SupportedInterfaces: []*a2a.AgentInterface{}}
	schemes := func(s a2a.NamedSecuritySchemes) func(*a2a.AgentCard) {
		return func(c *a2a.AgentCard) { c.SecuritySchemes = s }
	}
	bearer := testagent.Start(t, testagent.Options{ExtendedCard: ext, RequireAuth: "Bearer ok",
		EditCard: schemes(a2a.NamedSecuritySchemes{"token": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}})})
	for _, args := range [][]string{{"--auth", "Bearer ok"}, {"--bearer", "ok"}} {
		r := run(t, "", append([]string{"discover", bearer.URL, "--extended", "-v"}, args...)...)
		wantCode(t, r, 0)
		wantContains(t, "stdout", r.stdout, "Name: Secret Extended Agent")
		wantContains(t, "stderr", r.stderr, "extended card: asked for with the card's security scheme token")
	}

	apiKeyOnly := testagent.Start(t, testagent.Options{ExtendedCard: ext, RequireAuth: "Bearer ok",
		EditCard: schemes(a2a.NamedSecuritySchemes{"key": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Key"}})})
	undeclared := testagent.Start(t, testagent.Options{ExtendedCard: ext, RequireAuth: "Bearer ok"})
	for _, tc := range []struct {
		name string
		ag   *testagent.Agent
		args []string
		msg  string
	}{
		{"bearer to an apiKey card", apiKeyOnly, []string{"--auth", "Bearer ok"}, "declares none that takes an Authorization header of scheme Bearer"},
		{"--bearer to an apiKey card, even with --auth-undeclared", apiKeyOnly, []string{"--bearer", "ok", "--auth-undeclared"}, "declares none that takes --bearer"},
		{"no credentials", apiKeyOnly, nil, "no credentials were given"},
		{"a card declaring no scheme", undeclared, []string{"--auth", "Bearer ok"}, "this card declares none"},
	} {
		r := run(t, "", append([]string{"discover", tc.ag.URL, "--extended", "-o", "json"}, tc.args...)...)
		wantCode(t, r, 4)
		doc := errorDoc(t, r)
		if doc["code"] != "A2ACLI_ERR_CREDENTIALS_MISSING" {
			t.Fatalf("%s: code %v\n%s", tc.name, doc["code"], r)
		}
		wantContains(t, "message", doc["message"].(string), tc.msg)
		if tc.ag == apiKeyOnly {
			wantContains(t, "hint", doc["hint"].(string), "key (apiKey in header X-Key)", "--api-key <key>")
		}
	}
	if n := len(apiKeyOnly.Requests()) + len(undeclared.Requests()); n != 0 {
		t.Fatalf("%d calls reached agents whose public card advertises no scheme for the credentials", n)
	}

	plain := testagent.Start(t, testagent.Options{EditCard: schemes(a2a.NamedSecuritySchemes{"token": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}})})
	r := run(t, "", "discover", plain.URL, "--extended", "--bearer", "ok")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, "does not offer an extended card")
	if n := len(plain.Requests()); n != 0 {
		t.Fatalf("%d calls reached an agent that offers no extended card", n)
	}
}

func TestCardProblems(t *testing.T) {
	t.Parallel()
	html := testagent.StartRaw(t, 200, "text/html", "<!doctype html><html><body>hello</body></html>")
	notFound := testagent.StartRaw(t, 404, "text/plain", "not found")
	malformed := testagent.StartRaw(t, 200, "application/json", `{"name": "x", "supportedInterfaces": [`)
	tests := []struct {
		name, url string
		code      int
		errCode   string
		hint      string
	}{
		{"html", html, 1, "A2ACLI_ERR_CARD_INVALID", "web page"},
		{"404", notFound, 3, "A2ACLI_ERR_CARD_NOT_FOUND", "--transport"},
		{"malformed", malformed, 1, "A2ACLI_ERR_CARD_INVALID", ""},
		{"unreachable", "127.0.0.1:1", 3, "A2ACLI_ERR_UNREACHABLE", "running"},
		{"dns", "http://no-such-host.invalid", 3, "A2ACLI_ERR_UNREACHABLE", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, "", "send", tt.url, "x", "-o", "json")
			wantCode(t, r, tt.code)
			doc := errorDoc(t, r)
			if doc["code"] != tt.errCode {
				t.Fatalf("code %v, want %s\n%s", doc["code"], tt.errCode, r)
			}
			if hint, _ := doc["hint"].(string); !strings.Contains(hint, tt.hint) {
				t.Fatalf("hint %q does not mention %q", hint, tt.hint)
			}
			r = run(t, "", "discover", tt.url)
			wantCode(t, r, tt.code)
			if r.stdout != "" || !strings.HasPrefix(r.stderr, "a2a: ") {
				t.Fatalf("text-mode failure must print nothing on stdout and 'a2a: …' on stderr\n%s", r)
			}
		})
	}
}

func TestCardFile(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolHTTPJSON})
	card := run(t, "", "discover", ag.URL, "-o", "json")
	wantCode(t, card, 0)
	path := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(path, []byte(card.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "send", path, "from a file")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "echo: from a file")
	r = run(t, "", "send", ag.CardURL, "via card url")
	wantCode(t, r, 0)
}

// TestSaveUnnamedFiles: --save names a file part that carries no file name after its artifact (its name, else its
// id) with an extension for its media type, never "_", and keeps two of the same name apart; the same on the
// unary answer and on a stream. The agent is a2a-go's server (testagent).
func TestSaveUnnamedFiles(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.UnnamedFiles})
	for _, stream := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"send", ag.URL, "charts please", "--save", dir, "-o", "json"}
		if stream {
			args = append(args, "--stream")
		}
		r := run(t, "", args...)
		wantCode(t, r, 0)
		var notesID string
		if stream {
			events, _ := jsonLines(t, r.stdout)
			for _, ev := range events {
				if au, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok && au.Artifact.Name == "" {
					notesID = string(au.Artifact.ID)
				}
			}
		} else {
			for _, a := range sendTask(t, r).Artifacts {
				if a.Name == "" {
					notesID = string(a.ID)
				}
			}
		}
		want := map[string]string{
			testagent.ChartArtifact + ".png":   "\x89PNG one",
			testagent.ChartArtifact + "-1.png": "\x89PNG two",
			notesID + ".txt":                   "notes\n",
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			got[e.Name()] = string(b)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream=%v: --save wrote %q, want %q\n%s", stream, got, want, r.stderr)
		}
		wantContains(t, "stderr", r.stderr, "saved "+filepath.Join(dir, testagent.ChartArtifact+".png"))
	}
}
