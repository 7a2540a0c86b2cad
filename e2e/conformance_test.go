package e2e

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
	"github.com/a2acli/a2a/internal/testskip"
)

// conformanceDoc is `a2a conformance -o json`'s document, as far as the tests read it.
type conformanceDoc struct {
	Bindings []string            `json:"bindings"`
	Results  []conformanceResult `json:"results"`
}

// conformanceResult is one check of the document.
type conformanceResult struct {
	ID, Level, Area, Binding, Verdict, Evidence, Spec, Sent, Got string
}

func runConformance(t *testing.T, args ...string) (conformanceDoc, result) {
	t.Helper()
	r := run(t, "", append([]string{"conformance", "-o", "json"}, args...)...)
	var doc conformanceDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("conformance -o json: not one JSON document: %v\n%s", err, r)
	}
	return doc, r
}

// failedMust lists the ids of the MUSTs that failed, sorted and without repeats.
func (d conformanceDoc) failedMust() []string {
	seen := map[string]bool{}
	var ids []string
	for _, x := range d.Results {
		if x.Verdict == "fail" && x.Level == "MUST" && !seen[x.ID] {
			seen[x.ID] = true
			ids = append(ids, x.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// failures is the failed checks, one per line, for a test's message.
func (d conformanceDoc) failures() string {
	var b strings.Builder
	for _, x := range d.Results {
		if x.Verdict == "fail" {
			fmt.Fprintf(&b, "%s %s [%s]: %s\n  sent: %s\n  got:  %s\n", x.Level, x.ID, x.Binding, x.Evidence, x.Sent, x.Got)
		}
	}
	return b.String()
}

// failedBeyond lists the ids of the MUSTs that failed in d by a check that did not fail in base (the same id and
// reason), sorted and without repeats: what breaking an agent added, though the agent failed that id already.
func (d conformanceDoc) failedBeyond(base conformanceDoc) []string {
	had := map[string]bool{}
	for _, x := range base.Results {
		if x.Verdict == "fail" {
			had[x.ID+" "+x.Binding+" "+x.Evidence] = true
		}
	}
	var ids []string
	for _, x := range d.Results {
		if x.Verdict == "fail" && x.Level == "MUST" && !had[x.ID+" "+x.Binding+" "+x.Evidence] && !slices.Contains(ids, x.ID) {
			ids = append(ids, x.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

func (d conformanceDoc) verdict(id string) string {
	for _, x := range d.Results {
		if x.ID == id {
			return x.Verdict
		}
	}
	return ""
}

// TestConformanceSDKAgents runs the verb against agents not built from our serve code, the a2a-go SDK's server on
// each binding and version: every MUST passes (exit 0), and each binding is named in the report.
func TestConformanceSDKAgents(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     testagent.Options
		fails string // what a2a-go v2.4.0's server gets wrong, checked by hand against the specification
	}{
		// §3.6.2: "If the version is not supported by the interface, agents MUST return a VersionNotSupportedError";
		// a2a-go's v1.0 HTTP handlers ignore A2A-Version and answer A2A-Version: 99.0 as 1.0.
		// §3.1.1 and §3.1.6 name UnsupportedOperationError for a message or a subscription to a terminal task;
		// a2a-go answers InvalidParams ("task in a terminal state") and TaskNotFoundError ("no active execution").
		// §5.4's table maps VersionNotSupportedError to -32009 and HTTP 400, filed (as the TCK does) under
		// JSONRPC-SSE-002 and HTTP_JSON-STATUS-001 too.
		{"jsonrpc", testagent.Options{Push: true}, "CORE-SEND-002 JSONRPC-SSE-002 STREAM-SUB-003 VER-SERVER-002"},
		// Its REST ListTasks writes "tasks": null for an empty page; the specification's JSON schema has an array.
		{"rest", testagent.Options{Transport: a2a.TransportProtocolHTTPJSON},
			"CORE-LIST-002 CORE-LIST-003 CORE-LIST-004 CORE-SEND-002 HTTP_JSON-STATUS-001 STREAM-SUB-003 VER-SERVER-002"},
		// §5.4 maps PushNotificationNotSupportedError to gRPC UNIMPLEMENTED (GRPC-ERR-002, as the TCK files it); a2a-go
		// answers FAILED_PRECONDITION. Its gRPC server ignores the a2a-version metadata too.
		{"grpc", testagent.Options{Transport: a2a.TransportProtocolGRPC}, "CORE-SEND-002 GRPC-ERR-002 STREAM-SUB-003 VER-SERVER-002"},
		// v0.3 §3.2.1 (JSON-RPC 2.0 over HTTP, application/json): a2a-go's v0.3 handler answers errors as text/plain.
		{"jsonrpc-v03", testagent.Options{V03: true}, "JSONRPC-FMT-002"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ag := testagent.Start(t, c.o)
			doc, r := runConformance(t, ag.URL)
			if got := strings.Join(doc.failedMust(), " "); got != c.fails {
				t.Fatalf("the SDK agent fails %q, want %q (exit %d):\n%s", got, c.fails, r.code, doc.failures())
			}
			if want := map[bool]int{true: 0, false: 1}[c.fails == ""]; r.code != want {
				t.Errorf("exit %d, want %d", r.code, want)
			}
			if len(doc.Bindings) != 1 {
				t.Errorf("bindings = %v, want the one the card lists", doc.Bindings)
			}
			if c.o.Push && doc.verdict("PUSH-DELIVER-003") != "pass" {
				t.Errorf("PUSH-DELIVER-003 = %q on an agent that delivers", doc.verdict("PUSH-DELIVER-003"))
			}
		})
	}
}

// TestConformanceBrokenAgents: an agent that breaks one MUST fails exactly the checks of that requirement, and the
// run exits 1. Each starts as the a2a-go SDK agent (which passes) with one thing broken in front of it.
func TestConformanceBrokenAgents(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     testagent.Options
		brk   wire.Break
		fails []string
	}{
		{"card type", testagent.Options{}, wire.BreakCardType, []string{"CARD-CTYPE-001"}},
		// TaskNotFoundError is read from the code by every check that expects it.
		{"not-found code", testagent.Options{}, wire.BreakNotFoundCode,
			[]string{"CORE-CANCEL-003", "CORE-GET-002", "CORE-MULTI-004", "JSONRPC-SSE-002", "STREAM-SUB-004"}},
		{"context id", testagent.Options{}, wire.BreakContextID, []string{"CORE-MULTI-001a", "DM-TASK-001"}},
		{"stream order", testagent.Options{}, wire.BreakStreamOrder, []string{"CORE-STREAM-003"}},
		{"paging", testagent.Options{}, wire.BreakPaging, []string{"CORE-LIST-002"}},
		// The SDK agent declares no push: the refusal is checked by code (§5.4) and by the client's reading.
		{"push code", testagent.Options{}, wire.BreakPushUnsupported, []string{"CORE-CAP-001", "JSONRPC-SSE-002"}},
		{"push status", testagent.Options{Transport: a2a.TransportProtocolHTTPJSON}, wire.BreakPushUnsupported, []string{"HTTP_JSON-STATUS-001"}},
		{"rest status", testagent.Options{Transport: a2a.TransportProtocolHTTPJSON}, wire.BreakRESTStatus,
			// AIP-193's error.code is the HTTP status: a 500 whose body says 404 breaks the error's shape too.
			[]string{"HTTP_JSON-ERR-001", "HTTP_JSON-STATUS-001"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ag := testagent.Start(t, c.o)
			base, _ := runConformance(t, ag.URL)
			url := wire.Broken(t, ag.URL, c.brk)
			doc, r := runConformance(t, url)
			if got := doc.failedBeyond(base); strings.Join(got, " ") != strings.Join(c.fails, " ") {
				t.Errorf("failed MUSTs beyond the SDK agent's own %v = %v, want %v\n%s", base.failedMust(), got, c.fails, doc.failures())
			}
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			for _, x := range doc.Results {
				if x.Verdict == "fail" && (x.Sent == "" && x.Got == "" || x.Spec == "") {
					t.Errorf("%s fails with no evidence: %+v", x.ID, x)
				}
			}
		})
	}
}

// TestConformanceTCKMappings: what a2a conformance checks as the TCK does, each broken on purpose in front of serve
// --reference (which passes): over HTTP+JSON an empty ListTasks page as "tasks": null and a text/plain body refused
// with 400 rather than 415; over JSON-RPC a text/plain request answered -32700 rather than -32005. (gRPC's: the
// a2a-go SDK agent fails UNIMPLEMENTED for push, TestConformanceSDKAgents; TestConformanceBrokenGRPC breaks cancel.)
func TestConformanceTCKMappings(t *testing.T) {
	s := startServe(t, "--reference", "--transport", "rest,jsonrpc,grpc")
	doc, r := runConformance(t, s.url)
	if got := strings.Join(doc.failedMust(), " "); got != "" || r.code != 0 {
		t.Fatalf("serve --reference fails %q (exit %d):\n%s", got, r.code, doc.failures())
	}
	for _, want := range []string{"HTTP_JSON-STATUS-001 415 for a text/plain body", "HTTP_JSON-STATUS-001 400 for A2A-Version: 99.0",
		"JSONRPC-SSE-002 error -32005 for a text/plain body", "JSONRPC-SSE-002 error -32009 for A2A-Version: 99.0",
		"GRPC-ERR-002 gRPC NotFound for CancelTask", "GRPC-ERR-002 gRPC Unimplemented for a2a-version: 99.0"} {
		found := false
		for _, x := range doc.Results {
			found = found || x.Verdict == "pass" && x.ID+" "+x.Evidence == want
		}
		if !found {
			t.Errorf("serve --reference: no pass %q", want)
		}
	}
	for _, c := range []struct {
		name  string
		brk   wire.Break
		fails []string
		got   string // in the failure's evidence
	}{
		{"list null", wire.BreakListNull, []string{"CORE-LIST-002", "CORE-LIST-003", "CORE-LIST-004"}, `"tasks":null`},
		{"content type", wire.BreakRESTContentType, []string{"HTTP_JSON-STATUS-001"}, "400 Bad Request"},
		{"rpc content type", wire.BreakRPCContentType, []string{"JSONRPC-SSE-002"}, "error code -32700"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, r := runConformance(t, wire.Broken(t, s.url, c.brk))
			if got := strings.Join(doc.failedMust(), " "); got != strings.Join(c.fails, " ") || r.code != 1 {
				t.Fatalf("failed MUSTs %q (exit %d), want %v\n%s", got, r.code, c.fails, doc.failures())
			}
			if f := doc.failures(); !strings.Contains(f, c.got) {
				t.Errorf("failures do not show %q:\n%s", c.got, f)
			}
		})
	}
}

// TestConformanceBrokenGRPC: CancelTask's errors as INTERNAL (wire.BrokenGRPC in front of the a2a-go SDK's gRPC
// agent) fail GRPC-ERR-002, as the TCK files §5.4's gRPC table, beside what reads TaskNotFoundError from the status.
func TestConformanceBrokenGRPC(t *testing.T) {
	ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC})
	base, _ := runConformance(t, ag.URL)
	doc, r := runConformance(t, wire.BrokenGRPC(t, ag.URL, ag.Endpoint, wire.BreakGRPCCancelStatus))
	if got, want := strings.Join(doc.failedBeyond(base), " "), "CORE-CANCEL-002 CORE-CANCEL-003 GRPC-ERR-002"; got != want || r.code != 1 {
		t.Errorf("failed MUSTs beyond the SDK agent's own %v = %q (exit %d), want %q\n%s", base.failedMust(), got, r.code, want, doc.failures())
	}
}

// TestConformanceServeEveryBinding: our own serve, three bindings at once, v1.0 then v0.3 (a card for both): every
// MUST passes, a task made on one binding is found on the others, and --junit writes a report CI can read.
func TestConformanceServeEveryBinding(t *testing.T) {
	s := startServe(t, "--echo", "--transport", "jsonrpc,rest,grpc")
	junit := filepath.Join(t.TempDir(), "c.xml")
	doc, r := runConformance(t, s.url, "--junit", junit)
	if r.code != 0 {
		t.Fatalf("serve --echo fails %v\n%s", doc.failedMust(), r)
	}
	if len(doc.Bindings) != 3 || doc.verdict("BIND-EQUIV-001") != "pass" {
		t.Errorf("bindings %v, BIND-EQUIV-001 %q", doc.Bindings, doc.verdict("BIND-EQUIV-001"))
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &suites); err != nil || len(suites.Suites) < 4 {
		t.Errorf("junit: %v, %d suites\n%s", err, len(suites.Suites), raw)
	}

	s03 := startServe(t, "--echo", "--transport", "jsonrpc,rest,grpc", "--protocol", "0.3", "--card-compat")
	doc, r = runConformance(t, s03.url)
	if r.code != 0 {
		t.Fatalf("serve --echo --protocol 0.3 fails %v\n%s", doc.failedMust(), r)
	}
}

// TestConformanceFilters: --only and --level choose the checks, --max-requests bounds what is sent (the rest is
// skipped with the reason), text output names each failure with what was sent and what came back.
func TestConformanceFilters(t *testing.T) {
	ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC})
	doc, r := runConformance(t, ag.URL, "--only", "CORE-GET-*,card")
	if r.code != 0 {
		t.Fatal(r)
	}
	for _, x := range doc.Results {
		if !strings.HasPrefix(x.ID, "CORE-GET-") && !strings.HasPrefix(x.ID, "CARD-") && x.ID != "BIND-FIELD-001" {
			t.Errorf("--only CORE-GET-*,card ran %s", x.ID)
		}
	}
	doc, _ = runConformance(t, ag.URL, "--skip", "CORE-*,wire")
	if len(doc.Results) == 0 {
		t.Error("--skip CORE-*,wire left nothing")
	}
	for _, x := range doc.Results {
		if strings.HasPrefix(x.ID, "CORE-") || x.Area == "wire" {
			t.Errorf("--skip CORE-*,wire ran %s (%s)", x.ID, x.Area)
		}
	}
	doc, _ = runConformance(t, ag.URL, "--level", "must")
	for _, x := range doc.Results {
		if x.Level != "MUST" {
			t.Errorf("--level must ran %s (%s)", x.ID, x.Level)
		}
	}
	doc, _ = runConformance(t, ag.URL, "--max-requests", "3")
	skipped := 0
	for _, x := range doc.Results {
		if x.Verdict == "skip" && x.Evidence == "--max-requests reached" {
			skipped++
		}
	}
	if skipped == 0 {
		t.Errorf("--max-requests 3: nothing skipped for the budget\n%+v", doc.Results)
	}

	// A binding that cannot be reached is reported even when --only leaves BIND-FIELD-001 out: none of the checks
	// asked for can run on it, and the run must not say the agent conforms.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	half := testagent.Start(t, testagent.Options{EditCard: func(c *a2a.AgentCard) {
		c.SupportedInterfaces = append(c.SupportedInterfaces, &a2a.AgentInterface{URL: gone, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "1.0"})
	}})
	doc, r = runConformance(t, half.URL, "--only", "CORE-SEND-001")
	if got := doc.failedMust(); r.code != 1 || strings.Join(got, " ") != "BIND-FIELD-001" || !strings.Contains(doc.failures(), gone) {
		t.Errorf("--only CORE-SEND-001 with an interface that does not answer: exit %d, failed %v, want 1 and BIND-FIELD-001 naming %s\n%s", r.code, got, gone, doc.failures())
	}

	broken := wire.Broken(t, testagent.Start(t, testagent.Options{}).URL, wire.BreakCardType)
	r = run(t, "", "conformance", broken)
	wantCode(t, r, 1)
	wantContains(t, "text report", r.stdout, "card:     FAIL", "FAIL MUST   CARD-CTYPE-001", "sent: GET "+broken+"/.well-known/agent-card.json",
		"got:  Content-Type: text/plain", "does not conform: a MUST failed")
}

// TestConformanceReference: serve --reference declares the TCK's scenarios, so the scenario checks run (artifacts
// of each kind, a Message reply, input-required with a follow-up, auth-required, failed, rejected, a long task that
// is canceled) and pass on every binding, v1.0 and v0.3 alike.
func TestConformanceReference(t *testing.T) {
	for _, args := range [][]string{
		{"--reference", "--transport", "jsonrpc,rest,grpc"},
		{"--reference", "--transport", "jsonrpc,rest,grpc", "--protocol", "0.3", "--card-compat"},
	} {
		s := startServe(t, args...)
		doc, r := runConformance(t, s.url)
		if got := strings.Join(doc.failedMust(), " "); got != "" || r.code != 0 {
			t.Fatalf("serve %v fails %q (exit %d):\n%s", args, got, r.code, doc.failures())
		}
		ran := map[string]int{}
		for _, x := range doc.Results {
			if x.Verdict == "pass" {
				ran[x.ID]++
			}
		}
		for _, id := range []string{"DM-PART-001", "DM-MSG-001", "CORE-INPUT-001", "CORE-AUTH-001", "CORE-FAIL-001", "CORE-CANCEL-001", "CORE-MULTI-005", "STREAM-SUB-001", "STREAM-SUB-002"} {
			if ran[id] < 3 {
				t.Errorf("serve %v: %s passed on %d binding(s), want 3", args, id, ran[id])
			}
		}
	}
}

// TestReferenceScenarios: the reference agent as a client author meets it, through the CLI: each scenario is chosen
// by the message id, and a follow-up completes the task that asked for input.
func TestReferenceScenarios(t *testing.T) {
	s := startServe(t, "--reference")
	for _, c := range []struct{ id, jq, want string }{
		{"tck-artifact-text-1", ".task.artifacts[0].parts[0].text", "Generated text content"},
		{"tck-artifact-file-url-1", ".task.artifacts[0].parts[0].url", "https://example.com/output.txt"},
		{"tck-artifact-data-1", ".task.artifacts[0].parts[0].data.count", "42"},
		{"tck-message-response-1", ".message.parts[0].text", "Direct message response"},
		{"tck-reject-task-1", ".task.status.state", "TASK_STATE_REJECTED"},
		{"tck-auth-required-1", ".task.status.state", "TASK_STATE_AUTH_REQUIRED"},
		{"hello-1", ".task.artifacts[0].parts[0].text", "hi"},
	} {
		msg := fmt.Sprintf(`{"messageId":%q,"role":"ROLE_USER","parts":[{"text":"hi"}]}`, c.id)
		r := run(t, "", "send", s.url, "--json", msg, "--jq", c.jq)
		if got := strings.TrimSpace(r.stdout); got != c.want {
			t.Errorf("%s: %s = %q, want %q\n%s", c.id, c.jq, got, c.want, r)
		}
	}
	r := run(t, "", "send", s.url, "--json", `{"messageId":"tck-input-required-2","role":"ROLE_USER","parts":[{"text":"start"}]}`, "--jq", ".task.id")
	id := strings.TrimSpace(r.stdout)
	r = run(t, "", "send", s.url, "--task", id, "Ada", "--jq", ".task.status.state")
	if got := strings.TrimSpace(r.stdout); got != "TASK_STATE_COMPLETED" {
		t.Errorf("follow-up: state %q, want completed\n%s", got, r)
	}

	// The slow stream: 50 chunks of one artifact, 20 ms apart, the last marked lastChunk, then completed.
	start := time.Now()
	r = run(t, "", "send", s.url, "--stream", "-o", "json", "--json", `{"messageId":"tck-slow-stream-1","role":"ROLE_USER","parts":[{"text":"hi"}]}`)
	took := time.Since(start)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	chunks, last := 0, ""
	for _, l := range lines {
		if strings.HasPrefix(l, `{"artifactUpdate"`) {
			chunks++
			last = l
		}
	}
	if r.code != 0 || chunks != 50 || !strings.Contains(last, `"lastChunk":true`) || !strings.Contains(lines[len(lines)-1], "TASK_STATE_COMPLETED") || took < 49*20*time.Millisecond {
		t.Errorf("tck-slow-stream: %d artifact chunks in %v (exit %d), want 50 over at least 980ms, the last marked, then completed\n%s", chunks, took, r.code, r)
	}
}

// TestConformanceA2AJS runs the verb against the a2a-js SDK's servers (1.3.0 at v1.0, 0.3.14 at v0.3), each binding
// they serve (JSON-RPC, HTTP+JSON, and gRPC when asked for): what each fails is pinned, each failure checked by hand
// against the specification.
func TestConformanceA2AJS(t *testing.T) {
	dir := needA2AJS(t)
	for _, c := range []struct {
		script, binding, fails string
	}{
		// a2a-js 1.3.0's HTTP+JSON handler refuses a text/plain body with 400; §5.4 maps ContentTypeNotSupportedError
		// to 415. Its card lists both bindings.
		{"server10.mjs", "JSONRPC", "HTTP_JSON-STATUS-001"},
		{"server10.mjs", "HTTP+JSON", "HTTP_JSON-STATUS-001"},
		// With its gRPC server too: an unsupported A2A-Version and push the card does not declare are gRPC
		// FAILED_PRECONDITION, where §5.4's table maps VersionNotSupportedError and PushNotificationNotSupportedError
		// to UNIMPLEMENTED.
		{"server10.mjs", "GRPC", "GRPC-ERR-002 HTTP_JSON-STATUS-001 VER-SERVER-002"},
		// a2a-js 0.3.14's REST handler answers a subscription to an unknown task with a body its own serializer
		// refuses ("Bug: toJson serializer and body must be provided for non-204 responses"), not TaskNotFoundError
		// (v0.3 §7.9: tasks/resubscribe of an unknown task is -32001, HTTP 404). Its card lists both bindings.
		{"server03.mjs", "JSONRPC", "STREAM-SUB-004"},
		{"server03.mjs", "HTTP+JSON", "STREAM-SUB-004"},
		// Its gRPC server passes every MUST checked at v0.3.
		{"server03.mjs", "GRPC", "STREAM-SUB-004"},
	} {
		t.Run(strings.TrimSuffix(c.script, ".mjs")+"-"+c.binding, func(t *testing.T) {
			u := startNodeServer(t, dir, c.script, c.binding)
			doc, r := runConformance(t, u)
			if got := strings.Join(doc.failedMust(), " "); got != c.fails {
				t.Errorf("a2a-js fails %q, want %q (exit %d):\n%s", got, c.fails, r.code, doc.failures())
			}
		})
	}
}

// TestConformanceCardSignatures: a signed card's signatures are checked (§8.4): CARD-SIGN-001 verifies them over
// the card's canonical form with --trust-keys (passes with the signing key, fails with another, skipped without a
// key), CARD-SIGN-003 reads each protected header for alg and kid. The signer is serve --sign-card with an openssl
// key; the card whose header lacks kid is the a2a-go SDK agent's.
func TestConformanceCardSignatures(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("openssl"); err != nil {
		testskip.Missing(t, "openssl", "signed cards are checked against openssl-made keys")
	}
	dir := t.TempDir()
	priv, pub := opensslKey(t, dir, "card", "-algorithm", "ED25519")
	_, other := opensslKey(t, dir, "other", "-algorithm", "ED25519")
	signed := startServe(t, "--echo", "--sign-card", priv).url
	unkeyed := testagent.Start(t, testagent.Options{EditCard: func(c *a2a.AgentCard) {
		c.Signatures = []a2a.AgentCardSignature{{Protected: base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA"}`)), Signature: "AAAA"}}
	}}).URL
	plain := testagent.Start(t, testagent.Options{}).URL
	for _, c := range []struct {
		name     string
		args     []string
		sign1    string // CARD-SIGN-001's verdict
		sign3    string // CARD-SIGN-003's
		code     int
		evidence string // a part of CARD-SIGN-001's evidence or got
	}{
		{"verified", []string{signed, "--trust-keys", pub}, "pass", "pass", 0, "verified: EdDSA"},
		{"another key", []string{signed, "--trust-keys", other}, "fail", "pass", 1, "does not match"},
		{"no key", []string{signed}, "skip", "pass", 0, "not https"},
		{"no kid", []string{unkeyed}, "skip", "fail", 1, "no key"},
		{"unsigned", []string{plain}, "skip", "skip", 0, "no signature"},
	} {
		doc, r := runConformance(t, append(c.args, "--only", "CARD-SIGN-*")...)
		got := map[string]string{}
		var ev string
		for _, x := range doc.Results {
			got[x.ID] = x.Verdict
			if x.ID == "CARD-SIGN-001" {
				ev = x.Evidence + " " + x.Got
			}
		}
		if got["CARD-SIGN-001"] != c.sign1 || got["CARD-SIGN-003"] != c.sign3 || r.code != c.code || !strings.Contains(ev, c.evidence) {
			t.Errorf("%s: CARD-SIGN-001 %q, CARD-SIGN-003 %q, exit %d, evidence %q; want %s, %s, exit %d, %q\n%s", c.name,
				got["CARD-SIGN-001"], got["CARD-SIGN-003"], r.code, ev, c.sign1, c.sign3, c.code, c.evidence, r)
		}
	}
	r := run(t, "", "conformance", signed, "--trust-keys", filepath.Join(dir, "missing.pem"))
	wantCode(t, r, 1)
	wantContains(t, "an unreadable key set", r.stderr, "missing.pem")
}

// TestConformanceLeavesOthersAlone: safe against an agent in use: a task another client left running on
// serve --reference is still working after a full run, its history untouched (a2a conformance sends to, and
// cancels, only tasks of its own); --max-requests N reaches the agent as at most N A2A requests (counted by the
// a2a-go SDK agent); --timeout bounds each call against an agent whose answers take 10 s.
func TestConformanceLeavesOthersAlone(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--reference", "--reference-long", "120s", "--transport", "jsonrpc,rest,grpc")
	r := run(t, "", "send", s.url, "--immediate", "-o", "json", "--jq", ".task.id", "--json",
		`{"messageId":"tck-long-running-someone-else","role":"ROLE_USER","parts":[{"text":"not yours"}]}`)
	wantCode(t, r, 0)
	id := strings.TrimSpace(r.stdout)
	doc, r := runConformance(t, s.url)
	if r.code != 0 || !slices.ContainsFunc(doc.Results, func(x conformanceResult) bool {
		return x.ID == "CORE-CANCEL-001" && x.Verdict == "pass"
	}) {
		t.Fatalf("the full run did not pass, or canceled none of its own tasks (exit %d):\n%s", r.code, doc.failures())
	}
	r = run(t, "", "get", "task", s.url, id, "-o", "json", "--jq", `.status.state + " " + (.history | length | tostring)`)
	wantCode(t, r, 0)
	if got := strings.TrimSpace(r.stdout); got != "TASK_STATE_WORKING 1" {
		t.Errorf("another client's task after a2a conformance: %q, want TASK_STATE_WORKING with its one message", got)
	}

	for _, n := range []int{1, 5, 20} {
		ag := testagent.Start(t, testagent.Options{})
		doc, r := runConformance(t, ag.URL, "--max-requests", fmt.Sprint(n))
		if got := len(ag.Requests()); got > n || (n > 1 && got == 0) {
			t.Errorf("--max-requests %d: the agent got %d A2A requests (exit %d)", n, got, r.code)
		}
		if !slices.ContainsFunc(doc.Results, func(x conformanceResult) bool {
			return x.Verdict == "skip" && x.Evidence == "--max-requests reached"
		}) {
			t.Errorf("--max-requests %d: no check skipped for the budget", n)
		}
	}

	slow := wire.StartDelayed(t, wire.DelayOptions{Delay: 10 * time.Second})
	start := time.Now()
	doc, r = runConformance(t, slow.URL, "--timeout", "300ms")
	if took := time.Since(start); took > 5*time.Second || r.code != 1 {
		t.Errorf("--timeout 300ms against 10 s answers: exit %d after %v, want exit 1 within 5s", r.code, took)
	}
	if !strings.Contains(doc.failures(), "BIND-FIELD-001") {
		t.Errorf("--timeout 300ms: want the unanswered interface reported:\n%s", doc.failures())
	}
}

// TestConformanceTenant: an interface that declares a tenant is checked through it: every call a2a conformance makes
// carries the interface's tenant (JSON-RPC params, HTTP+JSON paths; a2a-go SDK agents, which record the tenant each
// call came with), and such an agent fails no check the same agent without a tenant passes.
func TestConformanceTenant(t *testing.T) {
	for _, tr := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		t.Run(string(tr), func(t *testing.T) {
			base, _ := runConformance(t, testagent.Start(t, testagent.Options{Transport: tr}).URL)
			ag := testagent.Start(t, testagent.Options{Transport: tr, EditCard: func(c *a2a.AgentCard) {
				for _, iface := range c.SupportedInterfaces {
					iface.Tenant = "acme"
				}
			}})
			doc, r := runConformance(t, ag.URL)
			if got := doc.failedBeyond(base); len(got) > 0 {
				t.Errorf("with a tenant the agent fails %v beyond its own %v (exit %d)\n%s", got, base.failedMust(), r.code, doc.failures())
			}
			calls := ag.Calls()
			if len(calls) < 10 {
				t.Fatalf("only %d calls reached the agent", len(calls))
			}
			for _, c := range calls {
				if c.Tenant != "acme" {
					t.Fatalf("%s reached the agent with tenant %q, want the interface's \"acme\"", c.Method, c.Tenant)
				}
			}
		})
	}
}
