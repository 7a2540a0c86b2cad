package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
)

// The verbs in-process through Main against reference agents (internal/testagent, built on a2a-go's server, not
// on our serve code): what each prints and the exit code of every error class.

type verbCase struct {
	name    string
	stdin   string
	args    []string
	code    int
	stdout  []string // substrings stdout must hold
	stderr  []string // substrings stderr must hold
	jsonDoc bool     // stdout is one JSON document
}

func runVerbCases(t *testing.T, cases []verbCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("a2a %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(tc.args, " "), code, tc.code, stdout, stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if tc.jsonDoc {
				var v map[string]any
				if err := json.Unmarshal([]byte(stdout), &v); err != nil {
					t.Errorf("stdout is not one JSON document: %v\n%s", err, stdout)
				}
			}
		})
	}
}

func TestVerbsEcho(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{})
	rest := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolHTTPJSON})
	grpcAg := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC})
	v03 := testagent.Start(t, testagent.Options{V03: true})
	msgOnly := testagent.Start(t, testagent.Options{Behavior: testagent.MessageOnly})
	runVerbCases(t, []verbCase{
		{name: "send text", args: []string{"send", ag.URL, "hi"}, stdout: []string{"echo: hi", "State: completed"}},
		{name: "send json", args: []string{"send", ag.URL, "hi", "-o", "json"}, stdout: []string{`"echo: hi"`}, jsonDoc: true},
		{name: "send raw", args: []string{"send", ag.URL, "hi", "-o", "raw"}, stdout: []string{"echo: hi"}},
		{name: "send stream", args: []string{"send", ag.URL, "hi", "--stream"}, stdout: []string{"echo: hi"}},
		{name: "send stream json", args: []string{"send", ag.URL, "hi", "--stream", "-o", "json"}, stdout: []string{`"echo: hi"`}},
		{name: "send stream raw", args: []string{"send", ag.URL, "hi", "--stream", "-o", "raw"}, stdout: []string{"echo: hi"}},
		{name: "send immediate", args: []string{"send", ag.URL, "hi", "--immediate", "-o", "json"}, jsonDoc: true},
		{name: "send parts", args: []string{"send", ag.URL, "--parts", `[{"text":"from parts"}]`}, stdout: []string{"echo: from parts"}},
		{name: "send message json", args: []string{"send", ag.URL, "--json", `{"role":"ROLE_USER","parts":[{"text":"whole"}]}`}, stdout: []string{"echo: whole"}},
		{name: "send jq", args: []string{"send", ag.URL, "hi", "--jq", ".task.status.state"}, stdout: []string{"TASK_STATE_COMPLETED"}},
		{name: "send history", args: []string{"send", ag.URL, "hi", "--history", "1", "-o", "json"}, jsonDoc: true},
		{name: "send verbose", args: []string{"send", ag.URL, "hi", "-v", "--auth", "Bearer secret"}, stderr: []string{"card:", "interface:"}},
		{name: "send rest", args: []string{"send", rest.URL, "hi"}, stdout: []string{"echo: hi"}},
		{name: "send rest stream", args: []string{"send", rest.URL, "hi", "--stream"}, stdout: []string{"echo: hi"}},
		{name: "send grpc", args: []string{"send", grpcAg.URL, "hi"}, stdout: []string{"echo: hi"}},
		{name: "send grpc stream", args: []string{"send", grpcAg.URL, "hi", "--stream"}, stdout: []string{"echo: hi"}},
		{name: "send v0.3 unasked", args: []string{"send", v03.URL, "hi"}, code: 1, stderr: []string{"speaks only A2A 0.3", "hint: speak 0.3 to it with --a2a-version 0.3"}},
		{name: "send v0.3", args: []string{"send", v03.URL, "hi", "--a2a-version", "0.3"}, stdout: []string{"echo: hi"}},
		{name: "send v0.3 stream", args: []string{"send", v03.URL, "hi", "--stream", "--a2a-version", "0.3"}, stdout: []string{"echo: hi"}},
		{name: "send message only", args: []string{"send", msgOnly.URL, "hi"}, stdout: []string{"echo: hi"}},
		{name: "discover", args: []string{"discover", ag.URL}, stdout: []string{ag.Card.Name}},
		{name: "get card json", args: []string{"get", "card", ag.URL, "-o", "json"}, jsonDoc: true},
		{name: "discover card file", args: []string{"discover", ag.CardURL}, stdout: []string{ag.Card.Name}},
		{name: "list tasks", args: []string{"list", "tasks", ag.URL}},
		{name: "list tasks json", args: []string{"list", "tasks", ag.URL, "-o", "json"}, jsonDoc: true},
		{name: "get task missing", args: []string{"get", "task", ag.URL, "no-such-task"}, code: exitFailure, stderr: []string{"a2a:"}},
		{name: "get task missing json", args: []string{"get", "task", ag.URL, "no-such-task", "-o", "json"}, code: exitFailure, stdout: []string{`"TaskNotFoundError"`}, jsonDoc: true},
		{name: "cancel missing", args: []string{"cancel", ag.URL, "no-such-task"}, code: exitFailure},
		{name: "subscribe missing", args: []string{"subscribe", ag.URL, "no-such-task"}, code: exitFailure},
		{name: "transport not offered", args: []string{"send", ag.URL, "hi", "--transport", "grpc"}, code: exitUsage, stderr: []string{"does not offer --transport grpc"}},
	})
}

// TestVerbsTaskLifecycle follows one task through get, list, subscribe and cancel.
func TestVerbsTaskLifecycle(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{})
	code, stdout, stderr := runMain(t, "", "send", ag.URL, "hi", "--jq", ".task.id")
	id := strings.TrimSpace(stdout)
	if code != 0 || id == "" {
		t.Fatalf("send: exit %d, id %q\n%s", code, id, stderr)
	}
	runVerbCases(t, []verbCase{
		{name: "get task", args: []string{"get", "task", ag.URL, id}, stdout: []string{id, "completed"}},
		{name: "get task json", args: []string{"get", "task", ag.URL, id, "-o", "json", "--history", "5"}, stdout: []string{id}, jsonDoc: true},
		{name: "list tasks", args: []string{"list", "tasks", ag.URL, "--status", "completed"}, stdout: []string{id}},
		{name: "subscribe finished", args: []string{"subscribe", ag.URL, id}, stdout: []string{"completed"}},
		{name: "cancel finished", args: []string{"cancel", ag.URL, id}, code: exitFailure},
		{name: "follow-up", args: []string{"send", ag.URL, "--task", id, "again"}, code: exitFailure},
	})
}

func TestVerbsOutcomes(t *testing.T) {
	t.Parallel()
	fail := testagent.Start(t, testagent.Options{Behavior: testagent.Fail})
	input := testagent.Start(t, testagent.Options{Behavior: testagent.InputRequired})
	chunks := testagent.Start(t, testagent.Options{Behavior: testagent.Chunks, Chunks: 5})
	files := testagent.Start(t, testagent.Options{Behavior: testagent.Files})
	dir := t.TempDir()
	runVerbCases(t, []verbCase{
		{name: "failed", args: []string{"send", fail.URL, "hi"}, code: exitOK, stdout: []string{"failed"}},
		{name: "failed --fail", args: []string{"send", fail.URL, "hi", "--fail"}, code: exitTaskFailed},
		{name: "failed --fail json", args: []string{"send", fail.URL, "hi", "--fail", "-o", "json"}, code: exitTaskFailed, jsonDoc: true},
		{name: "input required", args: []string{"send", input.URL, "hi"}, code: exitOK, stdout: []string{"input-required"}, stderr: []string{"a2a send"}},
		{name: "input required --fail", args: []string{"send", input.URL, "hi", "--fail"}, code: exitTaskPaused},
		{name: "input required stream", args: []string{"send", input.URL, "hi", "--stream", "--fail"}, code: exitTaskPaused},
		{name: "chunks stream", args: []string{"send", chunks.URL, "hi", "--stream", "-o", "raw"}, stdout: []string{"chunk 1", "chunk 5"}},
		{name: "chunks stream save", args: []string{"send", chunks.URL, "hi", "--stream", "--save", dir}},
		{name: "files save", args: []string{"send", files.URL, "hi", "--save", dir}},
		{name: "files raw", args: []string{"send", files.URL, "hi", "-o", "raw"}, stdout: []string{`{"ok":true}`}},
	})
}

func TestVerbsErrorClasses(t *testing.T) {
	t.Parallel()
	auth := testagent.Start(t, testagent.Options{RequireAuth: "Bearer right", EditCard: func(c *a2a.AgentCard) {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"token": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}
	}})
	slow := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 2 * time.Second})
	hold := wire.Start(t, wire.Options{Kind: wire.HoldSend, Hold: time.Minute})
	notFound := testagent.StartRaw(t, http.StatusNotFound, "text/plain", "no")
	garbage := testagent.StartRaw(t, http.StatusOK, "application/json", `{"name":`)
	html := testagent.StartRaw(t, http.StatusOK, "text/html", "<html>hi</html>")
	badCard := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(badCard, []byte(`{"name":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	runVerbCases(t, []verbCase{
		{name: "credentials missing", args: []string{"send", auth.URL, "hi"}, code: exitAuth},
		{name: "credentials missing json", args: []string{"send", auth.URL, "hi", "-o", "json"}, code: exitAuth, stdout: []string{codeCredentialsMissing}, jsonDoc: true},
		{name: "credentials wrong", args: []string{"send", auth.URL, "hi", "--auth", "Bearer wrong"}, code: exitAuth},
		{name: "credentials right", args: []string{"send", auth.URL, "hi", "--bearer", "right"}, stdout: []string{"echo: hi"}},
		{name: "wait", args: []string{"send", slow.URL, "hi", "--wait", "200ms"}, code: exitTimeout, stderr: []string{"still working when --wait expired", "hint: the task may still be running; follow it with: a2a subscribe"}},
		{name: "wait json", args: []string{"send", slow.URL, "hi", "--wait", "200ms", "-o", "json"}, code: exitTimeout, stdout: []string{codeTimeout, `"taskId":"`}, jsonDoc: true},
		// A task longer than --timeout is waited for, not failed (the agent streams: silence is a question).
		{name: "long task", args: []string{"send", slow.URL, "hi", "--timeout", "200ms"}, stdout: []string{"State: completed", "echo: hi"}},
		// --history on a streamed wait: the settled task is read again with it (the stream's task has the history).
		{name: "long task history", args: []string{"send", slow.URL, "hi", "--timeout", "200ms", "--history", "1", "-o", "json"}, stdout: []string{`"history":[{`, "echo: hi"}, jsonDoc: true},
		{name: "long task no history", args: []string{"send", slow.URL, "hi", "--timeout", "200ms", "--history", "0", "-o", "json", "--jq", ".task.history | length"}, stdout: []string{"0\n"}},
		// An agent that holds the call although asked to answer at once: --timeout bounds the call.
		{name: "timeout", args: []string{"send", hold.URL, "hi", "--timeout", "200ms"}, code: exitTimeout, stderr: []string{"hint: the agent held the call past --timeout", "a2a list tasks " + hold.URL}},
		{name: "timeout blocking", args: []string{"send", slow.URL, "hi", "--timeout", "200ms", "--blocking"}, code: exitTimeout, stderr: []string{"hint: the agent may still be working on the task; without --blocking", "a2a list tasks " + slow.URL}},
		{name: "blocking and stream", args: []string{"send", slow.URL, "hi", "--blocking", "--stream"}, code: exitUsage},
		{name: "blocking and approve", args: []string{"send", slow.URL, "hi", "--blocking", "--approve"}, code: exitUsage, stderr: []string{"drop --blocking"}},
		{name: "wait expired", args: []string{"send", slow.URL, "hi", "--immediate"}},
		{name: "card not found", args: []string{"discover", notFound}, code: exitUnreachable, stderr: []string{"agent card not found"}},
		{name: "card not found json", args: []string{"discover", notFound, "-o", "json"}, code: exitUnreachable, stdout: []string{codeCardNotFound}, jsonDoc: true},
		{name: "card invalid", args: []string{"discover", garbage}, code: exitFailure},
		{name: "card html", args: []string{"discover", html}, code: exitFailure},
		{name: "unreachable", args: []string{"send", "http://no-such-host.invalid", "hi"}, code: exitUnreachable},
		{name: "card file invalid", args: []string{"discover", badCard}, code: exitFailure, stderr: []string{"invalid agent card"}},
		{name: "bad cacert", args: []string{"send", auth.URL, "hi", "--cacert", "/no/such/ca.pem"}, code: exitUsage},
		{name: "cert without key", args: []string{"send", auth.URL, "hi", "--cert", "x.pem"}, code: exitUsage},
		{name: "bad color", args: []string{"send", auth.URL, "hi", "--color", "pink"}, code: exitUsage},
		{name: "jq with text", args: []string{"send", auth.URL, "hi", "--jq", ".", "-o", "text"}, code: exitUsage},
		{name: "bad jq", args: []string{"send", auth.URL, "hi", "--jq", ".[["}, code: exitUsage},
		{name: "negative timeout", args: []string{"send", auth.URL, "hi", "--timeout", "-1s"}, code: exitUsage},
		{name: "negative max response", args: []string{"send", auth.URL, "hi", "--max-response-bytes", "-1"}, code: exitUsage},
		{name: "bearer and auth", args: []string{"send", auth.URL, "hi", "--bearer", "a", "--auth", "b"}, code: exitUsage},
	})
}

func TestVerbsLocal(t *testing.T) {
	t.Parallel()
	runVerbCases(t, []verbCase{
		{name: "version", args: []string{"version"}, stdout: []string{"a2a"}},
		{name: "version json", args: []string{"version", "-o", "json"}, jsonDoc: true},
		{name: "config show", args: []string{"config", "show"}},
		{name: "help send", args: []string{"send", "--help"}, stdout: []string{"Usage:"}},
		{name: "help env", args: []string{"help", "environment"}},
		{name: "unknown noun hint", args: []string{"get", "taks", "h:1"}, code: exitUsage, stderr: []string{"unknown noun"}},
	})
}

// TestSendFlagsToOptions checks how send's flags land in its options through the runF seam, without a network.
func TestSendFlagsToOptions(t *testing.T) {
	t.Parallel()
	s, _, _, _ := TestStreams()
	f := &factory{io: s, opts: &globalOptions{}, log: &client.Log{}}
	var got *sendOptions
	ws := t.TempDir()
	cmd := newSendCmd(f, func(_ context.Context, o *sendOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"h:1", "hello", "--stream", "--task", "t1", "--context", "c1", "--history", "3", "--save", "d", "--fail", "--approve", "--workspace", ws})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.url != "h:1" || got.msg.Text != "hello" || !got.stream || got.msg.TaskID != "t1" || got.msg.ContextID != "c1" ||
		got.history != 3 || got.save != "d" || !f.opts.fail || !got.dt.approve {
		t.Fatalf("options = %+v", got)
	}
	req, err := got.request()
	if err != nil || req.Message.TaskID != "t1" || req.Config == nil || *req.Config.HistoryLength != 3 {
		t.Fatalf("request = %+v, %v", req, err)
	}
}

// TestVerbsLiveTask follows, polls, waits for and cancels tasks that are still working.
func TestVerbsLiveTask(t *testing.T) {
	t.Parallel()
	slow := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 300 * time.Millisecond})
	long := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute})
	start := func(url string) string {
		t.Helper()
		code, stdout, stderr := runMain(t, "", "send", url, "hi", "--immediate", "--jq", ".task.id")
		if code != 0 {
			t.Fatalf("send --immediate: exit %d\n%s", code, stderr)
		}
		return strings.TrimSpace(stdout)
	}
	followed, canceled := start(slow.URL), start(long.URL)
	runVerbCases(t, []verbCase{
		{name: "subscribe live", args: []string{"subscribe", slow.URL, followed}, stdout: []string{"completed"}},
		{name: "cancel live", args: []string{"cancel", long.URL, canceled}, stdout: []string{"canceled"}},
		{name: "wait expired", args: []string{"send", long.URL, "hi", "--stream", "--wait", "1s"}, code: exitTimeout, stderr: []string{"a2a get task"}},
	})
}

// TestSpinnerOnTerminal runs a slow send with stderr on a "terminal": the spinner runs and clears itself, stdout
// keeps only the result.
func TestSpinnerOnTerminal(t *testing.T) {
	t.Parallel()
	slow := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 300 * time.Millisecond})
	s, _, out, errb := TestStreams()
	s.ErrTTY = true
	if code := Main(context.Background(), []string{"send", slow.URL, "hi"}, s); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	if !strings.Contains(out.String(), "echo: hi") || strings.Contains(out.String(), "waiting") {
		t.Errorf("stdout = %q", out)
	}
	// The spinner names the task and its state once the agent has named it.
	if !strings.Contains(errb.String(), "ms task ") || !strings.Contains(errb.String(), " working") || !strings.HasSuffix(errb.String(), "\r\x1b[K") {
		t.Errorf("no spinner on stderr, or not erased: %q", errb)
	}
}

// TestSaveFileOnly: --save writes a file part's bytes and nothing beside it (here a data part in the same artifact),
// whichever way the send went: streamed (the default where the agent streams), --stream, or one blocking call. The
// streamed saver used to append the data part's JSON to the file.
func TestSaveFileOnly(t *testing.T) {
	t.Parallel()
	files := testagent.Start(t, testagent.Options{Behavior: testagent.Files})
	for _, extra := range [][]string{nil, {"--stream"}, {"--blocking"}} {
		dir := t.TempDir()
		code, _, stderr := runMain(t, "", append([]string{"send", files.URL, "hi", "--save", dir}, extra...)...)
		if code != 0 {
			t.Fatalf("send %v: exit %d\n%s", extra, code, stderr)
		}
		got, err := os.ReadFile(filepath.Join(dir, testagent.FileName))
		if err != nil || len(got) != testagent.FileSize || got[testagent.FileSize-1] != byte((testagent.FileSize-1)%256) {
			t.Errorf("send %v: saved %d bytes (%v), want the %d bytes of the file part", extra, len(got), err, testagent.FileSize)
		}
	}
}

// TestQuietStreamBounded: a send that holds a streamed task whole to print it (no --stream) holds at most
// --max-response-bytes of it, as a unary answer is bounded; --stream prints as it goes and holds nothing.
func TestQuietStreamBounded(t *testing.T) {
	t.Parallel()
	big := testagent.Start(t, testagent.Options{Behavior: testagent.Big, BigSize: 1 << 20})
	code, _, stderr := runMain(t, "", "send", big.URL, "hi", "--max-response-bytes", "65536")
	if code != exitFailure || !strings.Contains(stderr, "larger than --max-response-bytes (64 KiB)") {
		t.Fatalf("exit %d, want %d and the limit named\n%s", code, exitFailure, stderr)
	}
	if code, _, stderr := runMain(t, "", "send", big.URL, "hi", "--max-response-bytes", "65536", "--stream", "-o", "raw"); code != 0 {
		t.Fatalf("--stream: exit %d, want 0\n%s", code, stderr)
	}
}

// TestLongTaskEveryBinding: a plain send waits for a task longer than --timeout on every binding and both protocol
// versions (a2a-go's agents, v1.0 and v0.3), and prints the task whole: the chunks of a streamed artifact joined.
// --timeout bounds each call, so on a loaded machine it is derived from how long a whole send of the chunks takes
// there (at least 300 ms), and the slow task works three times as long as that bound: a send that gave up at
// --timeout would still fail, whatever the load.
func TestLongTaskEveryBinding(t *testing.T) {
	t.Parallel()
	for _, v03 := range []bool{false, true} {
		for _, tr := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
			t.Run(fmt.Sprintf("%s v0.3=%t", tr, v03), func(t *testing.T) {
				t.Parallel()
				var optIn []string // a v0.3 agent is spoken to in v0.3 on the opt-in (the a2a-cli specification, §13.2)
				if v03 {
					optIn = []string{"--a2a-version", "0.3"}
				}
				chunks := testagent.Start(t, testagent.Options{Transport: tr, V03: v03, Behavior: testagent.Chunks, Chunks: 5})
				start := time.Now()
				code, stdout, stderr := runMain(t, "", append([]string{"send", chunks.URL, "hi", "-o", "raw"}, optIn...)...)
				if code != 0 || stdout != "chunk 1\nchunk 2\nchunk 3\nchunk 4\nchunk 5\n" {
					t.Errorf("chunks: exit %d\n%q\n%s", code, stdout, stderr)
				}
				timeout := max(300*time.Millisecond, 3*time.Since(start)).Round(time.Millisecond)
				slow := testagent.Start(t, testagent.Options{Transport: tr, V03: v03, Behavior: testagent.Slow, Delay: 3 * timeout})
				code, stdout, stderr = runMain(t, "", append([]string{"send", slow.URL, "hi", "--timeout", timeout.String(), "-o", "json"}, optIn...)...)
				if code != 0 || !strings.Contains(stdout, "TASK_STATE_COMPLETED") || !strings.Contains(stdout, "echo: hi") {
					t.Errorf("long task (%s, --timeout %s): exit %d\n%s\n%s", 3*timeout, timeout, code, stdout, stderr)
				}
			})
		}
	}
}
