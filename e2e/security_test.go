package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
)

// The client's side of the security rules: credentials stay on the named origin, nothing raw from the network
// reaches the terminal, replies are capped. The agents here are hand-written net/http servers with literal JSON, built neither
// from a2a-go's server nor from our serve code.

// fakeAgent is a JSON-RPC agent: a card naming iface (its own /rpc by default), an endpoint answering every call with
// a completed task, 307 redirects for the paths in redirect, and a record of the credentials every request carried.
type fakeAgent struct {
	*httptest.Server
	mu       sync.Mutex
	iface    string
	redirect map[string]string
	seen     []seenRequest
}

type seenRequest struct {
	path, auth, apiKey, trace string
}

func startFake(t *testing.T) *fakeAgent {
	t.Helper()
	a := &fakeAgent{redirect: map[string]string{}}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

// set changes the agent's configuration under its lock.
func (a *fakeAgent) set(f func(a *fakeAgent)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(a)
}

func (a *fakeAgent) requests() []seenRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seenRequest(nil), a.seen...)
}

func (a *fakeAgent) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.seen = append(a.seen, seenRequest{r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("X-Trace")})
	iface, to := a.iface, a.redirect[r.URL.Path]
	a.mu.Unlock()
	if iface == "" {
		iface = "http://" + r.Host + "/rpc" // not a.URL: read here, it would race with startFake storing it
	}
	switch {
	case to != "":
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
	case r.URL.Path == "/.well-known/agent-card.json":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"fake","description":"hand-written","version":"1","capabilities":{},
			"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
			"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, iface)
	case r.Method == http.MethodPost:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}}`, rpcID(r))
	default:
		http.NotFound(w, r)
	}
}

// rpcID is the id of the JSON-RPC request in r's body.
func rpcID(r *http.Request) string {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.ID == nil {
		return "null"
	}
	return string(req.ID)
}

// authOn returns the Authorization values seen on path, in order.
func authOn(reqs []seenRequest, path string) []string {
	var out []string
	for _, r := range reqs {
		if r.path == path {
			out = append(out, r.auth)
		}
	}
	return out
}

const withheldNote = "warning: not sending credentials to "

// TestCredentialsStayOnNamedOrigin: a card at 127.0.0.1:A naming localhost:B (another host name and port), and a
// redirect to another port, get no credentials; a same-origin redirect and --auth-all-origins keep them. Before the
// fix, B saw the token in every case (Go's client keeps Authorization on a redirect to the same host name).
func TestCredentialsStayOnNamedOrigin(t *testing.T) {
	t.Parallel()
	creds := []string{"--auth", "Bearer s3cret", "--svc-param", "X-Api-Key=k1", "--svc-param", "X-Trace=t1"}

	t.Run("card names another origin", func(t *testing.T) {
		t.Parallel()
		a, b := startFake(t), startFake(t)
		bURL := strings.Replace(b.URL, "127.0.0.1", "localhost", 1)
		a.set(func(a *fakeAgent) { a.iface = bURL + "/rpc" })
		r := run(t, "", append([]string{"send", a.URL, "hi"}, creds...)...)
		wantCode(t, r, 0)
		for _, req := range b.requests() {
			if req.auth != "" || req.apiKey != "" {
				t.Fatalf("B (%s) got credentials: %+v\n%s", bURL, req, r)
			}
			if req.trace != "t1" {
				t.Fatalf("B lost the non-credential --svc-param X-Trace: %+v", req)
			}
		}
		if got := authOn(b.requests(), "/rpc"); len(got) != 1 {
			t.Fatalf("B saw %d calls, want 1", len(got))
		}
		if got := authOn(a.requests(), "/.well-known/agent-card.json"); len(got) != 1 || got[0] != "" {
			t.Fatalf("the public card's fetch carried %q, want no credentials (they go per request, a2a-cli §12.1)", got)
		}
		wantContains(t, "stderr", r.stderr, withheldNote+bURL+": it is not the origin you named ("+a.URL+")")
		if strings.Count(r.stderr, withheldNote) != 1 {
			t.Fatalf("want one warning line\n%s", r)
		}

		r = run(t, "", append([]string{"send", a.URL, "hi", "-v"}, creds...)...)
		wantCode(t, r, 0)
		wantContains(t, "stderr", r.stderr, "* credentials withheld from "+bURL+" (Authorization, X-Api-Key)")

		r = run(t, "", append([]string{"send", a.URL, "hi", "--auth-all-origins"}, creds...)...)
		wantCode(t, r, 0)
		if got := authOn(b.requests(), "/rpc"); got[len(got)-1] != "Bearer s3cret" {
			t.Fatalf("with --auth-all-origins B got %q, want the credentials", got)
		}
		if strings.Contains(r.stderr, withheldNote) {
			t.Fatalf("--auth-all-origins still warns\n%s", r)
		}
	})

	t.Run("redirect to another port", func(t *testing.T) {
		t.Parallel()
		a, b := startFake(t), startFake(t)
		a.set(func(a *fakeAgent) { a.redirect["/rpc"] = b.URL + "/rpc" })
		r := run(t, "", append([]string{"send", a.URL, "hi"}, creds...)...)
		wantCode(t, r, 0)
		if got := authOn(b.requests(), "/rpc"); len(got) != 1 || got[0] != "" {
			t.Fatalf("the redirect target on another port got Authorization %q, want none\n%s", got, r)
		}
		if got := authOn(a.requests(), "/rpc"); len(got) != 1 || got[0] != "Bearer s3cret" {
			t.Fatalf("the named origin got Authorization %q, want the credentials", got)
		}
		wantContains(t, "stderr", r.stderr, withheldNote+b.URL)
	})

	t.Run("card fetch redirected to another port", func(t *testing.T) {
		t.Parallel()
		a, b := startFake(t), startFake(t)
		a.set(func(a *fakeAgent) {
			a.redirect["/.well-known/agent-card.json"] = b.URL + "/.well-known/agent-card.json"
		})
		r := run(t, "", append([]string{"send", a.URL, "hi"}, creds...)...)
		wantCode(t, r, 0)
		for _, req := range b.requests() {
			if req.auth != "" {
				t.Fatalf("B got credentials on %s\n%s", req.path, r)
			}
		}
	})

	t.Run("same-origin redirect keeps them", func(t *testing.T) {
		t.Parallel()
		a := startFake(t)
		a.set(func(a *fakeAgent) { a.redirect["/rpc"] = a.URL + "/rpc2" })
		r := run(t, "", append([]string{"send", a.URL, "hi"}, creds...)...)
		wantCode(t, r, 0)
		if got := authOn(a.requests(), "/rpc2"); len(got) != 1 || got[0] != "Bearer s3cret" {
			t.Fatalf("a same-origin redirect got Authorization %q, want the credentials\n%s", got, r)
		}
		if strings.Contains(r.stderr, withheldNote) {
			t.Fatalf("warned about the named origin\n%s", r)
		}
	})

	t.Run("card file names the origin", func(t *testing.T) {
		t.Parallel()
		b := startFake(t)
		path := filepath.Join(t.TempDir(), "card.json")
		card := fmt.Sprintf(`{"name":"file","version":"1","capabilities":{},"skills":[],"defaultInputModes":[],"defaultOutputModes":[],
			"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, b.URL+"/rpc")
		if err := os.WriteFile(path, []byte(card), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(t, "", append([]string{"send", path, "hi"}, creds...)...)
		wantCode(t, r, 0)
		if got := authOn(b.requests(), "/rpc"); len(got) != 1 || got[0] != "Bearer s3cret" {
			t.Fatalf("the interface of a local card file got Authorization %q, want the credentials\n%s", got, r)
		}
	})
}

// TestCredentialsStayOffGRPCElsewhere: a reference gRPC agent (a2a-go) serves its card on one port and gRPC on
// another; the gRPC metadata carries no credentials there, and the failure says why and what to do.
func TestCredentialsStayOffGRPCElsewhere(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC, RequireAuth: "Bearer right"})
	r := run(t, "", "send", ag.URL, "x", "--auth", "Bearer right", "--svc-param", "X-Api-Key=k1")
	wantCode(t, r, 4)
	grpcOrigin := "http://" + ag.Endpoint
	wantContains(t, "stderr", r.stderr, withheldNote+grpcOrigin, "hint: the credentials were not sent to "+grpcOrigin, "--auth-all-origins")
	reqs := ag.Requests()
	if len(reqs) == 0 {
		t.Fatal("the gRPC agent saw no call")
	}
	for _, h := range reqs {
		if h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
			t.Fatalf("gRPC metadata on another origin carried credentials: %v", h)
		}
	}
}

// hostile is what the hostile agent puts in its card name and error messages: an OSC title change, an OSC 52
// clipboard write, CSI clear-screen and colour, the 8-bit CSI, and a bare BEL.
const hostile = "evil\x1b]0;pwned\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J\x1b[31mred \u009b2J \x07end"

// startHostile serves a card named hostile and answers SendMessage with a JSON-RPC error whose message is hostile,
// or, for a message containing "pause", a task with a hostile id stopped at input-required.
func startHostile(t *testing.T) string {
	t.Helper()
	quoted, err := json.Marshal(hostile)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			fmt.Fprintf(w, `{"name":%s,"description":%s,"version":"1","capabilities":{},"skills":[],"defaultInputModes":[],
				"defaultOutputModes":[],"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
				quoted, quoted, "http://"+r.Host+"/rpc")
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.ID == nil {
			http.Error(w, "want a JSON-RPC request", http.StatusBadRequest)
			return
		}
		if bytes.Contains(req.Params, []byte("pause")) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"task":{"id":%s,"contextId":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}}`, req.ID, quoted)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s}}`, req.ID, quoted)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestHostileAgentReachesNoTerminal: no ESC, BEL or 8-bit CSI from an agent's card name, error message or task id
// reaches stderr, in -v logs, the "a2a:" line or the hint that continues a task. Before the fix -v printed the card
// name and error raw, and the hint printed the task id raw inside single quotes.
func TestHostileAgentReachesNoTerminal(t *testing.T) {
	t.Parallel()
	u := startHostile(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"discover", u, "-v"}, 0, "* card: "},
		{[]string{"send", u, "boom", "-v"}, 1, "a2a: "},
		{[]string{"send", u, "pause", "-v"}, 0, "--task $'evil"},
	} {
		r := run(t, "", tc.args...)
		wantCode(t, r, tc.code)
		wantContains(t, "stderr", r.stderr, tc.want, "evil")
		if i := strings.IndexAny(r.stderr, "\x1b\x07\u009b"); i >= 0 {
			t.Fatalf("a2a %s: a control byte reached stderr at %d: %q", strings.Join(tc.args, " "), i, r.stderr)
		}
	}
}

// startHuge serves a card and answers every call with a JSON-RPC reply of size bytes (a completed task with one text
// artifact of that size), sent chunked, or with its Content-Length announced when announce is set. It counts the
// bytes it managed to write, to show the client stopped reading.
func startHuge(t *testing.T, size int64, announce bool) (url string, written func() int64) {
	t.Helper()
	var mu sync.Mutex
	var n int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			fmt.Fprintf(w, `{"name":"huge","version":"1","capabilities":{},"skills":[],"defaultInputModes":[],"defaultOutputModes":[],
				"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, "http://"+r.Host+"/rpc")
			return
		}
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"`, rpcID(r))
		tail := `"}]}]}}}`
		if announce {
			w.Header().Set("Content-Length", fmt.Sprint(int64(len(head))+size+int64(len(tail))))
		}
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		io.WriteString(w, head) //nolint:errcheck // a failed write shows in the count
		for left := size; left > 0; left -= int64(len(chunk)) {
			k, err := w.Write(chunk[:min(left, int64(len(chunk)))])
			mu.Lock()
			n += int64(k)
			mu.Unlock()
			if err != nil {
				return
			}
		}
		io.WriteString(w, tail) //nolint:errcheck // the client hung up long before
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// rssEnv makes the e2e test binary a runner that reports the peak RSS of the command it runs (see peakRSS).
const rssEnv = "A2A_E2E_PEAK_RSS"

// peakRSS runs the a2a binary with args through a fresh copy of the test binary and returns its result and peak
// resident memory in bytes. The detour keeps the measure honest: on Linux a process's ru_maxrss starts from the
// memory of the process that forked it (Go forks with CLONE_VM), and this test process is big; the copy is small.
func peakRSS(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{bin}, args...)...)
	cmd.Env = cmdEnv(rssEnv + "=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("a2a %s: %v", strings.Join(args, " "), err)
	}
	stderr, last, _ := strings.Cut(errb.String(), "\n"+rssEnv+"=")
	var rss int64
	if _, err := fmt.Sscanf(last, "%d", &rss); err != nil {
		t.Fatalf("no peak RSS reported: %v\n%s", err, errb.String())
	}
	return result{stdout: out.String(), stderr: stderr + "\n", code: code}, rss
}

// reportPeakRSS is the runner side of peakRSS: it runs args, passes its output and exit code on, and ends stderr
// with the line A2A_E2E_PEAK_RSS=<bytes>.
func reportPeakRSS(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // Linux reports KiB
	}
	fmt.Fprintf(os.Stderr, "\n%s=%d\n", rssEnv, rss)
	return code
}

// TestReplyCapped: a 300 MB reply stops at --max-response-bytes (default 32 MiB) with an error naming the flag,
// without reading the rest and with the client's memory far below the reply's size (before: 1.77 GB of RSS).
func TestReplyCapped(t *testing.T) {
	t.Parallel()
	const size = 300 << 20
	for _, announce := range []bool{false, true} {
		t.Run(fmt.Sprintf("content-length=%v", announce), func(t *testing.T) {
			u, written := startHuge(t, size, announce)
			r, rss := peakRSS(t, "send", u, "x")
			wantCode(t, r, 1)
			wantContains(t, "stderr", r.stderr, "the reply is larger than --max-response-bytes (32 MiB)", "hint: raise --max-response-bytes")
			if w := written(); w > 96<<20 {
				t.Fatalf("the agent wrote %d MiB of the %d MiB reply: the client kept reading past the cap", w>>20, size>>20)
			}
			if rss > 150<<20 {
				t.Fatalf("peak RSS %d MiB for a %d MiB reply capped at 32 MiB", rss>>20, size>>20)
			}
			t.Logf("peak RSS %d MiB, agent wrote %d MiB", rss>>20, written()>>20)
		})
	}

	u, _ := startHuge(t, 2<<20, false)
	r := run(t, "", "send", u, "x", "--max-response-bytes", "1048576", "-o", "json")
	wantCode(t, r, 1)
	if doc := errorDoc(t, r); doc["code"] != "A2ANC_ERR_RESPONSE_TOO_LARGE" || !strings.Contains(doc["message"].(string), "(1 MiB)") {
		t.Fatalf("error document %v, want A2ANC_ERR_RESPONSE_TOO_LARGE naming 1 MiB", doc)
	}
	r = run(t, "", "send", u, "x", "--max-response-bytes", "0", "-o", "json")
	wantCode(t, r, 0)

	r = run(t, "", "discover", u, "--max-response-bytes", "100")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "fetch agent card", "the reply is larger than --max-response-bytes (100 bytes)")

	r = run(t, "", "discover", u, "--max-response-bytes", "-1")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, "invalid --max-response-bytes")
}

// TestReplyCappedEveryBinding: the cap holds on REST and gRPC replies of reference agents (a2a-go), while a stream
// of events adding up to more than the cap goes through (each event is bounded on its own).
func TestReplyCappedEveryBinding(t *testing.T) {
	t.Parallel()
	for _, tr := range transports[:3] {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			ag := testagent.Start(t, testagent.Options{Transport: tr.t, Behavior: testagent.Big, BigSize: 2 << 20})
			r := run(t, "", "send", ag.URL, "x", "--max-response-bytes", "1048576")
			wantCode(t, r, 1)
			wantContains(t, "stderr", r.stderr, "the reply is larger than --max-response-bytes (1 MiB)")
			r = run(t, "", "send", ag.URL, "x", "--max-response-bytes", "1048576", "--stream", "-o", "json")
			wantCode(t, r, 0)
			if events, errDoc := jsonLines(t, r.stdout); errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
				t.Fatalf("a 2 MiB stream in 256 KiB events under a 1 MiB cap did not complete: %v\n%s", errDoc, r)
			}
		})
	}
}
