package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testskip"
)

// The A2A JavaScript SDK (a2a-js, npm @a2a-js/sdk), an implementation nobody on this project wrote, on both sides of
// the wire: as a client of `a2a serve` and as a server the a2a client drives. The scripts live in testdata/a2ajs with
// exact versions pinned in its package-lock.json; `npm ci` installs them once per run.

var (
	a2ajsOnce sync.Once
	a2ajsDir  string
	a2ajsErr  string // why the install failed (or "skip: …" off CI)
)

// needA2AJS installs the a2a-js scripts' dependencies once and returns their directory. Without node or npm the
// test is skipped on a developer's machine and fails in CI (CI set), where .ci/run installs them.
func needA2AJS(t *testing.T) string {
	t.Helper()
	a2ajsOnce.Do(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				a2ajsErr = "skip: " + tool + " not on PATH"
				return
			}
		}
		dir, err := filepath.Abs(filepath.Join("testdata", "a2ajs"))
		if err != nil {
			a2ajsErr = err.Error()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			a2ajsErr = "npm ci in " + dir + ": " + err.Error() + "\n" + string(out)
			return
		}
		a2ajsDir = dir
	})
	if why, ok := strings.CutPrefix(a2ajsErr, "skip: "); ok {
		if os.Getenv("CI") != "" {
			t.Fatalf("a2a-js tests need node and npm in CI: %s", why)
		}
		testskip.Missing(t, testskip.Node, why)
	}
	if a2ajsErr != "" {
		t.Fatal(a2ajsErr)
	}
	return a2ajsDir
}

// runNode runs `node script args…` in the a2a-js directory, bounded by a minute, and decodes each stdout line as
// one JSON object keyed by its "step".
func runNode(t *testing.T, dir string, args ...string) map[string]map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("node %s: did not finish within a minute\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out.String(), errb.String())
	}
	if err != nil {
		t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	steps := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("node %s: stdout line is not JSON: %v\n%s", strings.Join(args, " "), err, line)
		}
		steps[m["step"].(string)] = m
	}
	return steps
}

// startNodeServer starts `node script args…`, waits for its "listening on URL" stdout line and returns the URL. At
// cleanup the server gets SIGTERM and must be gone within 10 s.
func startNodeServer(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	var errb bytes.Buffer
	var mu sync.Mutex
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return errb.Write(p) })
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	urlc := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				select {
				case urlc <- strings.TrimSpace(u):
				default:
				}
			}
		}
		io.Copy(io.Discard, out)
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("node %s did not exit within 10s of SIGTERM", strings.Join(args, " "))
		}
		wantGone(t, 5*time.Second, pid)
	})
	select {
	case u := <-urlc:
		return u
	case <-done:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("node %s exited before listening:\n%s", strings.Join(args, " "), errb.String())
	case <-time.After(30 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("node %s: no 'listening on' line within 30s:\n%s", strings.Join(args, " "), errb.String())
	}
	return ""
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// wantStep checks that step's fields hold the wanted values.
func wantStep(t *testing.T, steps map[string]map[string]any, step string, want map[string]any) {
	t.Helper()
	got, ok := steps[step]
	if !ok {
		t.Fatalf("a2a-js printed no %q step: %v", step, steps)
	}
	for k, v := range want {
		gj, _ := json.Marshal(got[k])
		wj, _ := json.Marshal(v)
		if string(gj) != string(wj) {
			t.Errorf("a2a-js %s: %s = %s, want %s\n%v", step, k, gj, wj, got)
		}
	}
}

// TestA2AJSClientAgainstServe: a2a-js 0.3.14's client (ClientFactory from the card, JSON-RPC, REST and gRPC) sends a
// message, gets the task, resubscribes to it, streams a message and cancels an unknown task against
// `a2a serve --protocol 0.3`, and
// a2a-js 1.3.0's (v1.0) against `a2a serve` at v1.0, through the serve guards (Host/Origin checks, content types, a
// bearer token).
func TestA2AJSClientAgainstServe(t *testing.T) {
	dir := needA2AJS(t)
	stream := []any{"task", "status-update", "artifact-update", "status-update"}
	cases := []struct {
		name      string
		script    string // client03.mjs: a2a-js 0.3.14 (v0.3); client10.mjs: a2a-js 1.3.0 (v1.0)
		serve     []string
		transport string // a2a-js's preferred transport
		token     string
		text      func(string) string
	}{
		{"echo-rest", "client03.mjs", []string{"--echo", "--protocol", "0.3", "--card-compat"}, "HTTP+JSON", "", func(s string) string { return s }},
		{"echo-jsonrpc", "client03.mjs", []string{"--echo", "--protocol", "0.3", "--card-compat", "--transport", "jsonrpc"}, "JSONRPC", "", func(s string) string { return s }},
		{"echo-both-prefer-jsonrpc", "client03.mjs", []string{"--echo", "--protocol", "0.3", "--card-compat", "--transport", "rest,jsonrpc"}, "JSONRPC", "", func(s string) string { return s }},
		{"exec-rest", "client03.mjs", []string{"--exec", "tr a-z A-Z", "--protocol", "0.3", "--card-compat"}, "HTTP+JSON", "", strings.ToUpper},
		{"exec-jsonrpc-token", "client03.mjs", []string{"--exec", "tr a-z A-Z", "--protocol", "0.3", "--card-compat", "--transport", "jsonrpc", "--token", "s3cret"}, "JSONRPC", "s3cret", strings.ToUpper},
		// a2a-js 0.3 dials the card's GRPC url as its gRPC target, as it stands ("Name resolution failed
		// for target dns:http://127.0.0.1:P" when the card named it http://host:port).
		{"echo-grpc", "client03.mjs", []string{"--echo", "--protocol", "0.3", "--card-compat", "--transport", "grpc"}, "GRPC", "", func(s string) string { return s }},
		{"exec-grpc", "client03.mjs", []string{"--exec", "tr a-z A-Z", "--protocol", "0.3", "--transport", "grpc"}, "GRPC", "", strings.ToUpper},
		{"echo-all-prefer-grpc", "client03.mjs", []string{"--echo", "--protocol", "0.3", "--card-compat", "--transport", "rest,jsonrpc,grpc"}, "GRPC", "", func(s string) string { return s }},
		{"v1-echo-rest", "client10.mjs", []string{"--echo"}, "HTTP+JSON", "", func(s string) string { return s }},
		{"v1-echo-jsonrpc", "client10.mjs", []string{"--echo", "--transport", "jsonrpc"}, "JSONRPC", "", func(s string) string { return s }},
		{"v1-exec-both-token", "client10.mjs", []string{"--exec", "tr a-z A-Z", "--transport", "rest,jsonrpc", "--token", "s3cret"}, "HTTP+JSON", "s3cret", strings.ToUpper},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startServe(t, tc.serve...)
			args := []string{tc.script, s.url, tc.transport}
			if tc.token != "" {
				args = append(args, tc.token)
			}
			steps := runNode(t, dir, args...)
			wantStep(t, steps, "send", map[string]any{"kind": "task", "state": "completed", "text": tc.text("hello from a2a-js")})
			wantStep(t, steps, "get", map[string]any{"same": true, "state": "completed", "text": tc.text("hello from a2a-js")})
			wantStep(t, steps, "stream", map[string]any{"kinds": stream, "final": "completed", "text": tc.text("streamed from a2a-js")})
			if tc.script == "client03.mjs" {
				wantStep(t, steps, "stream", map[string]any{"final_flag": true}) // v0.3's "final" on the last status
				// v0.3 answers a subscription to a finished task with the task as it ended, then ends the stream
				// (TestV03SubscribeFinishedTask says where the specification says so).
				wantStep(t, steps, "resubscribe", map[string]any{"kinds": []any{"task"}, "states": []any{"completed"},
					"error": nil, "text": tc.text("hello from a2a-js")})
			}
			switch {
			case tc.script == "client10.mjs":
				// a2a-js 1.x names the error class after the binding: RestTaskNotFoundError, JsonRpcTaskNotFoundError.
				binding := map[string]string{"JSONRPC": "JsonRpc", "HTTP+JSON": "Rest"}[tc.transport]
				wantStep(t, steps, "cancel", map[string]any{"error": binding + "TaskNotFoundError", "notFound": true})
			case tc.transport == "GRPC":
				// a2a-js 0.3's gRPC client maps the NOT_FOUND status to its TaskNotFoundError.
				wantStep(t, steps, "cancel", map[string]any{"error": "TaskNotFoundError", "notFound": true})
			case tc.transport == "JSONRPC":
				// a2a-js raises its TaskNotFoundJSONRPCError, a subclass of TaskNotFoundError, for the -32001 answer.
				wantStep(t, steps, "cancel", map[string]any{"error": "TaskNotFoundJSONRPCError", "notFound": true})
			default:
				// a2a-js 0.3's REST client maps only an error body with a numeric top-level "code" (-32001) to its
				// TaskNotFoundError; serve answers REST errors as AIP-193 (google.rpc.Status, HTTP 404, reason
				// TASK_NOT_FOUND), which a2a-js reports as a plain Error carrying the status and the body.
				wantStep(t, steps, "cancel", map[string]any{"error": "Error", "notFound": false})
				wantContains(t, "a2a-js REST cancel error", steps["cancel"]["message"].(string), "404", "TASK_NOT_FOUND", "no-such-task")
			}
			if tc.token != "" {
				// The same client without the token is refused before it reaches a task.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, "node", tc.script, s.url, tc.transport)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if err == nil {
					t.Fatalf("a2a-js without the token succeeded:\n%s", out)
				}
				wantContains(t, "a2a-js without the token", string(out), "401")
			}
		})
	}
}

// TestA2AJSServerDrivenByClient: the a2a client against a2a-js's express server (DefaultRequestHandler, JSON-RPC
// and REST; 0.3.14 at v0.3, 1.3.0 at v1.0, and 1.3.0's gRPC server): discover, send, send --stream, get task, subscribe, cancel, and A2A error names.
func TestA2AJSServerDrivenByClient(t *testing.T) {
	dir := needA2AJS(t)
	for _, tc := range []struct{ script, preferred string }{
		{"server03.mjs", "JSONRPC"}, {"server03.mjs", "HTTP+JSON"}, // a2a-js 0.3.14, v0.3
		{"server10.mjs", "JSONRPC"}, {"server10.mjs", "HTTP+JSON"}, // a2a-js 1.3.0, v1.0 (REST errors as application/a2a+json)
		{"server10.mjs", "GRPC"}, // a2a-js 1.3.0's gRPC server: a list without --limit must not send page_size 0
	} {
		t.Run(strings.TrimSuffix(tc.script, ".mjs")+"-"+tc.preferred, func(t *testing.T) {
			u := startNodeServer(t, dir, tc.script, tc.preferred)
			if tc.script == "server03.mjs" {
				optIn03(t, u) // a v0.3 agent is spoken to in v0.3 on the opt-in (§13.2)
			}

			r := run(t, "", "discover", u, "-o", "json")
			wantCode(t, r, 0)
			var card map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &card); err != nil {
				t.Fatalf("discover -o json: %v\n%s", err, r)
			}
			if card["name"] != "a2a-js test agent" {
				t.Errorf("card name %v", card["name"])
			}

			r = run(t, "", "send", u, "hi", "-o", "json")
			wantCode(t, r, 0)
			task := sendTask(t, r)
			if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 || artifactText(task) != "echo: hi" {
				t.Fatalf("send: want completed with artifact 'echo: hi'\n%s", r)
			}

			r = run(t, "", "get", "task", u, string(task.ID), "--with-artifacts", "-o", "json")
			wantCode(t, r, 0)
			var got a2a.Task
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("get task -o json: %v\n%s", err, r)
			}
			if got.ID != task.ID || got.Status.State != a2a.TaskStateCompleted || artifactText(&got) != "echo: hi" {
				t.Fatalf("get task: want the completed task %s\n%s", task.ID, r)
			}

			// A task longer than --timeout, silent while it works: a plain send waits for it; one
			// blocking SendMessage (--blocking) is bounded by --timeout.
			r = run(t, "", "send", u, "slow 1500", "--timeout", "500ms", "-o", "json")
			wantCode(t, r, 0)
			if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "echo: slow 1500" {
				t.Fatalf("send of a long task: want completed with 'echo: slow 1500'\n%s", r)
			}
			r = run(t, "", "send", u, "slow 1500", "--timeout", "500ms", "--blocking")
			wantCode(t, r, 5)

			r = run(t, "", "send", u, "--stream", "streamed", "-o", "json")
			wantCode(t, r, 0)
			events, errDoc := jsonLines(t, r.stdout)
			if errDoc != nil {
				t.Fatalf("send --stream ended in an error: %v", errDoc)
			}
			if st := lastState(t, events); st != a2a.TaskStateCompleted {
				t.Fatalf("send --stream: last state %s\n%s", st, r)
			}
			var chunks string
			for _, ev := range events {
				if s, ok := chunkText(ev); ok {
					chunks += s
				}
			}
			if chunks != "echo: streamed" {
				t.Errorf("send --stream artifact text %q, want %q", chunks, "echo: streamed")
			}

			// A task that stays working until canceled: subscribe sees the cancel end it.
			r = run(t, "", "send", u, "--immediate", "wait", "-o", "json")
			wantCode(t, r, 0)
			held := sendTask(t, r)
			if held.Status.State.Terminal() {
				t.Fatalf("send --immediate wait: task already %s", held.Status.State)
			}
			sub := startClient(t, "subscribe", u, string(held.ID), "-o", "json")
			first := sub.event(t, 30*time.Second) // the task as it stands, sent first by a2a-js on resubscribe
			if ft, ok := first.(*a2a.Task); !ok || ft.ID != held.ID {
				t.Fatalf("subscribe: first event %T %+v, want the task %s", first, first, held.ID)
			}
			r = run(t, "", "cancel", u, string(held.ID), "-o", "json")
			wantCode(t, r, 0)
			var canceled a2a.Task
			if err := json.Unmarshal([]byte(r.stdout), &canceled); err != nil {
				t.Fatalf("cancel -o json: %v\n%s", err, r)
			}
			if canceled.ID != held.ID || canceled.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("cancel: want task %s canceled\n%s", held.ID, r)
			}
			rest, code := sub.wait(t, 30*time.Second)
			if code != 0 {
				t.Fatalf("subscribe exited %d; stderr:\n%s", code, sub.Stderr())
			}
			subEvents, subErr := jsonLines(t, strings.Join(rest, "\n"))
			if subErr != nil || lastState(t, subEvents) != a2a.TaskStateCanceled {
				t.Fatalf("subscribe: want a last canceled state, got %v / %v", rest, subErr)
			}

			if tc.script == "server10.mjs" { // ListTasks is v1.0 only
				r = run(t, "", "list", "tasks", u, "-o", "json")
				wantCode(t, r, 0)
				var list a2a.ListTasksResponse
				if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
					t.Fatalf("list tasks -o json: %v\n%s", err, r)
				}
				found := false
				for _, lt := range list.Tasks {
					found = found || (lt.ID == task.ID && lt.Status.State == a2a.TaskStateCompleted)
				}
				if !found || len(list.Tasks) != 5 { // hi, two slow ones, streamed, wait
					t.Errorf("list tasks: want 5 tasks, %s completed among them\n%s", task.ID, r)
				}
			}

			// A2A errors keep their names: an unknown task is TaskNotFoundError (exit 1).
			for _, args := range [][]string{{"get", "task", u, "no-such-task"}, {"cancel", u, "no-such-task"}} {
				r = run(t, "", append(args, "-o", "json")...)
				wantCode(t, r, 1)
				if doc := errorDoc(t, r); doc["code"] != "TaskNotFoundError" {
					t.Errorf("%s: error code %v, want TaskNotFoundError\n%s", strings.Join(args, " "), doc["code"], r)
				}
			}
			// Canceling a finished task: TaskNotCancelableError.
			r = run(t, "", "cancel", u, string(task.ID), "-o", "json")
			wantCode(t, r, 1)
			if doc := errorDoc(t, r); doc["code"] != "TaskNotCancelableError" {
				t.Errorf("cancel of a completed task: error code %v, want TaskNotCancelableError\n%s", doc["code"], r)
			}
		})
	}
}

// artifactText joins the text parts of a task's artifacts.
func artifactText(task *a2a.Task) string {
	var b strings.Builder
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text())
		}
	}
	return b.String()
}

// TestA2AJSFollowUp: a2a-js agents (1.3.0 at v1.0, 0.3.14 at v0.3; JSON-RPC and REST; streaming or not) answer a
// follow-up on an input-required task by first sending the task as it stands: still input-required, the new message
// appended. send, send --stream and a non-streaming send wait for what the agent does with the message; a new
// question ends the wait. send used to print the stale question and exit 0.
func TestA2AJSFollowUp(t *testing.T) {
	dir := needA2AJS(t)
	for _, tc := range []struct{ script, preferred, stream string }{
		{"server10.mjs", "JSONRPC", ""}, {"server10.mjs", "HTTP+JSON", ""}, {"server10.mjs", "JSONRPC", "nostream"},
		{"server03.mjs", "JSONRPC", ""}, {"server03.mjs", "HTTP+JSON", ""}, {"server03.mjs", "HTTP+JSON", "nostream"},
	} {
		name := strings.TrimSuffix(tc.script, ".mjs") + "-" + tc.preferred
		args := []string{tc.script, tc.preferred}
		if tc.stream != "" {
			name += "-" + tc.stream
			args = append(args, tc.stream)
		}
		t.Run(name, func(t *testing.T) {
			u := startNodeServer(t, dir, args...)
			if tc.script == "server03.mjs" {
				optIn03(t, u)
			}
			id := askTask(t, u)
			r := run(t, "", "send", u, "--task", id, "Bob", "-o", "json")
			wantCode(t, r, 0)
			if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello, Bob" {
				t.Fatalf("send --task: want completed with 'hello, Bob'\n%s", r)
			}

			id = askTask(t, u)
			r = run(t, "", "send", u, "--task", id, "Bob")
			wantCode(t, r, 0)
			wantContains(t, "text", r.stdout, "State: completed", "hello, Bob")

			id = askTask(t, u)
			r = run(t, "", "send", u, "--task", id, "?", "-o", "json")
			wantCode(t, r, 0)
			if task := sendTask(t, r); task.Status.State != a2a.TaskStateInputRequired || statusText(task) != "what is your last name?" {
				t.Fatalf("send --task ?: want the new question\n%s", r)
			}
			r = run(t, "", "send", u, "--task", id, "Bob", "-o", "json")
			wantCode(t, r, 0)
			if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("send --task after a second question: want completed\n%s", r)
			}

			if tc.stream == "" {
				id = askTask(t, u)
				r = run(t, "", "send", "--stream", u, "--task", id, "Bob", "-o", "json")
				wantCode(t, r, 0)
				events, errDoc := jsonLines(t, r.stdout)
				if errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
					t.Fatalf("send --stream --task: want the stream to end completed\n%s", r)
				}
				wantContains(t, "stream", r.stdout, "hello, Bob")
			}
		})
	}
}
