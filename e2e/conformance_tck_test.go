package e2e

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
)

// The differential between `a2a conformance` and the A2A TCK (docs/conformance.md, "Against the A2A TCK"): both run
// against the same agents, and where both check a requirement on a binding, their verdicts must agree. The TCK's v1.0
// suite names each requirement with the id `a2a conformance` uses (CORE-GET-002, STREAM-SUB-002, …) and writes a
// verdict per requirement and transport into its compatibility report; `a2a conformance -o json` writes one per
// check and binding. A requirement both checked on a binding, each with a verdict (pass or fail, not skipped), is
// compared; a disagreement fails the test unless tckDisagreements explains it.
//
// It needs the TCK (../shared/conformance/tck, with Python and the packages its run.sh installs): `make
// conformance-diff` (part of `make conformance`, which CI runs, after the suites have set themselves up) sets
// A2A_TCK_RUN to its run.sh; without it the test is skipped.

// tckDisagreement is a known, explained disagreement: on requirement id, over transport ("*": any), for the agents
// whose name starts with one of agents. why says which side the specification is on. The same list, with the
// specification's words, is in docs/conformance.md.
type tckDisagreement struct {
	id, transport string
	agents        []string
	why           string
}

// a2aGo are the agents that are the a2a-go SDK's server, or stand in front of it.
var a2aGo = []string{"a2a-go", "broken:"}

var tckDisagreements = []tckDisagreement{
	{"CORE-SEND-002", "*", a2aGo, "a2a-go answers a message to a finished task with InvalidParamsError where §3.1.1 " +
		"names UnsupportedOperationError; the TCK's test accepts any error. a2a conformance is right."},
	{"STREAM-SUB-003", "grpc", a2aGo, "a2a-go answers a subscription to a finished task with TaskNotFoundError where " +
		"§3.1.6 names UnsupportedOperationError; the TCK's test accepts any error. a2a conformance is right."},
	{"DM-TASK-001", "jsonrpc", []string{"broken: context id"}, "a Task without contextId: the TCK's pinned proto " +
		"(1.0-dev @357c4a8) does not mark Task.context_id REQUIRED, the proto the specification publishes does " +
		"(\"Created by the A2A server\"). a2a conformance follows the published proto."},
	{"CORE-STREAM-003", "jsonrpc", []string{"broken: stream order"}, "an event after the terminal one: the TCK's test " +
		"reads the first event only; §3.1.2 closes the stream at the terminal state. a2a conformance is right."},
	{"CORE-LIST-002", "jsonrpc", []string{"broken: paging"}, "pageSize ignored: the TCK's test checks the response's " +
		"schema only; §3.1.4 bounds a page by pageSize. a2a conformance is right."},
	{"CORE-CANCEL-002", "grpc", []string{"broken: grpc cancel status"}, "CancelTask of a finished task as gRPC INTERNAL: " +
		"the TCK's test accepts any error; §3.1.5 names TaskNotCancelableError, which §5.4 maps to FAILED_PRECONDITION. " +
		"a2a conformance is right."},
}

func init() {
	tckDisagreements = append(tckDisagreements,
		tckDisagreement{"HTTP_JSON-SVC-001", "http_json", []string{"a2a-js"}, "a2a-js answers HTTP+JSON as " +
			"application/a2a+json: the TCK wants application/json, as §11.1 says (\"application/json for requests and " +
			"responses\"); a2a conformance accepts application/a2a+json too, the type of §6's HTTP+JSON examples. The " +
			"specification says both; the TCK's reading is the stricter."},
		tckDisagreement{"HTTP_JSON-ERR-001", "http_json", []string{"a2a-js"}, "the same for error answers."},
	)
	for _, id := range []string{"CORE-SEND-001", "CORE-GET-001"} {
		tckDisagreements = append(tckDisagreements, tckDisagreement{id, "http_json", []string{"a2a-go 0.3 rest"},
			"the v0.3 suite's REST client sends proto field names (message_id, content), which ProtoJSON parsers accept " +
				"beside the JSON names; a2a-go's v0.3 REST handler reads the JSON names only and answers -32602, so the " +
				"send and the get after it fail. The TCK is right; a2a conformance sends JSON names only and does not check this."})
	}
	for _, id := range []string{"CORE-GET-002", "CORE-CANCEL-003", "CORE-MULTI-004"} {
		tckDisagreements = append(tckDisagreements, tckDisagreement{id, "http_json", []string{"broken: rest status"},
			"TaskNotFoundError as HTTP 500: the TCK files the HTTP status under each operation's id too, a2a conformance " +
				"reads the error's reason (TASK_NOT_FOUND, right) there and the status under HTTP_JSON-STATUS-001, which " +
				"both fail. The TCK is right that 500 is wrong (§5.4: 404); both report it."})
	}
}

// knownDisagreement returns why agent's disagreement on id over transport is known, or "".
func knownDisagreement(agent, transport, id string) string {
	for _, d := range tckDisagreements {
		if d.id != id || (d.transport != "*" && d.transport != transport) {
			continue
		}
		for _, a := range d.agents {
			if strings.HasPrefix(agent, a) {
				return d.why
			}
		}
	}
	return ""
}

// tckReport is the part of the TCK's compatibility report (--compatibility-report) the comparison reads: which
// tests check each requirement. Its per-transport status is not read: it is the verdict of the last test recorded
// for that transport, so a requirement two tests check can read PASS after one of them failed. The verdicts come
// from the tests' outcomes in the JUnit report instead (tckVerdicts).
type tckReport struct {
	PerRequirement map[string]struct {
		Transports map[string]string `json:"transports"` // the transports it was recorded for
		Errors     []string          `json:"errors"`
		TestIDs    []string          `json:"test_ids"`
	} `json:"per_requirement"`
}

// junitSuites is the part of pytest's --junitxml report the comparison reads.
type junitSuites struct {
	Cases []struct {
		Class   string    `xml:"classname,attr"`
		Name    string    `xml:"name,attr"`
		Failure *struct{} `xml:"failure"`
		Error   *struct{} `xml:"error"`
		Skipped *struct{} `xml:"skipped"`
	} `xml:"testsuite>testcase"`
}

// runTCK runs the TCK's v1.0 suite against the agent at url (every transport its card lists) and returns its verdict
// per "<transport> <requirement id>" (pass or fail; none when every test of it was skipped) and the errors it
// reported per requirement.
func runTCK(t *testing.T, runSh, url string) (map[string]string, map[string][]string) {
	t.Helper()
	work := os.Getenv("TCK_WORK")
	if work == "" {
		work = "/tmp/a2a-tck"
	}
	report := filepath.Join(work, "reports", "v1-url.json")
	junit := filepath.Join(work, "reports", "v1-url.xml")
	os.Remove(report)
	os.Remove(junit)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, runSh, url, "v1")
	cmd.Env = append(os.Environ(), "TCK_WORK="+work, "TRANSPORTS=", "TCK_ARGS=--junitxml="+junit)
	out, err := cmd.CombinedOutput()
	raw, rerr := os.ReadFile(report)
	rawJ, jerr := os.ReadFile(junit)
	if rerr != nil || jerr != nil {
		t.Fatalf("the TCK wrote no report (%v, %v; run.sh: %v):\n%s", rerr, jerr, err, out)
	}
	var r tckReport
	var j junitSuites
	if err := json.Unmarshal(raw, &r); err != nil || len(r.PerRequirement) == 0 {
		t.Fatalf("the TCK's report %s: %v, %d requirements", report, err, len(r.PerRequirement))
	}
	if err := xml.Unmarshal(rawJ, &j); err != nil || len(j.Cases) == 0 {
		t.Fatalf("the TCK's JUnit report %s: %v, %d tests", junit, err, len(j.Cases))
	}
	outcome := map[string]string{} // "module.Class::test[param]" -> pass, fail, skip
	for _, c := range j.Cases {
		o := "pass"
		switch {
		case c.Failure != nil || c.Error != nil:
			o = "fail"
		case c.Skipped != nil:
			o = "skip"
		}
		outcome[c.Class+"::"+c.Name] = o
	}
	verdict := map[string]string{}
	errs := map[string][]string{}
	for id, req := range r.PerRequirement {
		errs[id] = req.Errors
		for _, test := range req.TestIDs {
			// tests/compatibility/x/test_y.py::Class::test[jsonrpc] -> tests.compatibility.x.test_y.Class::test[jsonrpc]
			parts := strings.Split(test, "::")
			key := strings.ReplaceAll(strings.TrimSuffix(parts[0], ".py"), "/", ".")
			if len(parts) == 3 {
				key += "." + parts[1]
			}
			key += "::" + parts[len(parts)-1]
			o := outcome[key]
			if o == "" || o == "skip" {
				continue
			}
			// The transport is the test's parameter ("[jsonrpc]", "[CORE-GET-002-jsonrpc]"), else the ones it
			// was recorded for (the card's tests: agent_card).
			var trs []string
			if _, param, ok := strings.Cut(parts[len(parts)-1], "["); ok {
				param = strings.TrimSuffix(param, "]")
				if i := strings.LastIndexByte(param, '-'); i >= 0 {
					param = param[i+1:]
				}
				if param == "jsonrpc" || param == "http_json" || param == "grpc" {
					trs = []string{param}
				}
			}
			if trs == nil {
				for tr := range req.Transports {
					trs = append(trs, tr)
				}
			}
			for _, tr := range trs {
				k := tr + " " + id
				if o == "fail" || verdict[k] == "" {
					verdict[k] = o
				}
			}
		}
	}
	return verdict, errs
}

// tckTransport is the TCK's name of a binding of `a2a conformance` ("card", "jsonrpc 1.0", "rest 1.0", "grpc 1.0").
func tckTransport(binding string) string {
	name, _, _ := strings.Cut(binding, " ")
	switch name {
	case "card":
		return "agent_card"
	case "rest":
		return "http_json"
	}
	return name
}

// verdicts folds `a2a conformance`'s results into one verdict per "<transport> <id>": fail when a check failed,
// pass when one passed and none failed; skipped checks give none.
func verdicts(doc conformanceDoc) map[string]string {
	v := map[string]string{}
	for _, x := range doc.Results {
		key := tckTransport(x.Binding) + " " + x.ID
		switch {
		case x.Verdict == "fail":
			v[key] = "fail"
		case x.Verdict == "pass" && v[key] == "":
			v[key] = "pass"
		}
	}
	return v
}

type tckComparison struct {
	agree, disagree []string // "<transport> <id> <verdict>[/<verdict>]"
}

// compare lines up the verdicts of both on the requirements both checked.
func compare(ours, theirs map[string]string, errs map[string][]string) tckComparison {
	var c tckComparison
	for key, tv := range theirs {
		mine := ours[key]
		if mine == "" {
			continue
		}
		if mine == tv {
			c.agree = append(c.agree, key+" "+mine)
		} else {
			_, id, _ := strings.Cut(key, " ")
			c.disagree = append(c.disagree, fmt.Sprintf("%s a2a=%s tck=%s %s", key, mine, tv, strings.Join(errs[id], "; ")))
		}
	}
	sort.Strings(c.agree)
	sort.Strings(c.disagree)
	return c
}

// TestConformanceAgreesWithTCK: `a2a conformance` and the TCK's v1.0 suite against serve --reference (every
// binding), the a2a-go SDK's server (every binding) and agents that each break one MUST in front of it: where both
// check a requirement on a binding, they agree; a broken agent fails the requirement it breaks in both, where the
// TCK checks it.
func TestConformanceAgreesWithTCK(t *testing.T) {
	runSh := os.Getenv("A2A_TCK_RUN")
	if runSh == "" {
		t.Skip("A2A_TCK_RUN is not set: make conformance-diff runs this test against the A2A TCK")
	}
	cases := []struct {
		name string
		url  func(t *testing.T) string
		// broken is the requirement the agent breaks on purpose ("<transport> <id>"): both must fail it, if the TCK
		// checks it at all; "" for an agent that breaks nothing.
		broken []string
		min    int // at least this many requirement×transport verdicts compared
	}{
		{"serve --reference", func(t *testing.T) string {
			return startServe(t, "--reference", "--reference-long", "5s", "--transport", "jsonrpc,rest,grpc", "--push-allow", "example.com").url
		}, nil, 60},
		{"a2a-go jsonrpc", func(t *testing.T) string { return testagent.Start(t, testagent.Options{}).URL }, nil, 15},
		{"a2a-go rest", func(t *testing.T) string {
			return testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolHTTPJSON}).URL
		}, nil, 15},
		{"a2a-go grpc", func(t *testing.T) string {
			return testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC}).URL
		}, nil, 15},
		// a2a-js 1.3.0's servers: its card lists gRPC, JSON-RPC and HTTP+JSON.
		{"a2a-js", func(t *testing.T) string {
			return startNodeServer(t, needA2AJS(t), "server10.mjs", "GRPC")
		}, nil, 60},
		{"broken: not-found code", func(t *testing.T) string {
			return wire.Broken(t, testagent.Start(t, testagent.Options{}).URL, wire.BreakNotFoundCode)
		}, []string{"jsonrpc CORE-GET-002"}, 10},
		{"broken: context id", func(t *testing.T) string {
			return wire.Broken(t, testagent.Start(t, testagent.Options{}).URL, wire.BreakContextID)
		}, []string{"jsonrpc DM-TASK-001"}, 10},
		{"broken: stream order", func(t *testing.T) string {
			return wire.Broken(t, testagent.Start(t, testagent.Options{}).URL, wire.BreakStreamOrder)
		}, []string{"jsonrpc CORE-STREAM-003"}, 10},
		{"broken: paging", func(t *testing.T) string {
			return wire.Broken(t, testagent.Start(t, testagent.Options{}).URL, wire.BreakPaging)
		}, []string{"jsonrpc CORE-LIST-002"}, 10},
		{"broken: rest status", func(t *testing.T) string {
			return wire.Broken(t, testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolHTTPJSON}).URL, wire.BreakRESTStatus)
		}, []string{"http_json HTTP_JSON-STATUS-001"}, 10},
		{"broken: card type", func(t *testing.T) string {
			return wire.Broken(t, testagent.Start(t, testagent.Options{}).URL, wire.BreakCardType)
		}, []string{"agent_card CARD-CTYPE-001"}, 0},
		// The mappings a2a conformance checks as the TCK does (TestConformanceTCKMappings, TestConformanceBrokenGRPC),
		// each broken in front of an agent that passes them.
		{"broken: grpc cancel status", func(t *testing.T) string {
			ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC})
			return wire.BrokenGRPC(t, ag.URL, ag.Endpoint, wire.BreakGRPCCancelStatus)
		}, []string{"grpc GRPC-ERR-002"}, 10},
		{"broken: list null", func(t *testing.T) string {
			return wire.Broken(t, startServe(t, "--reference", "--reference-long", "5s", "--transport", "rest", "--push-allow", "example.com").url, wire.BreakListNull)
		}, []string{"http_json CORE-LIST-002"}, 10},
		{"broken: rpc content type", func(t *testing.T) string {
			return wire.Broken(t, startServe(t, "--reference", "--reference-long", "5s", "--transport", "jsonrpc", "--push-allow", "example.com").url, wire.BreakRPCContentType)
		}, []string{"jsonrpc JSONRPC-SSE-002"}, 10},
	}
	var table []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url(t)
			doc, _ := runConformance(t, url)
			ours := verdicts(doc)
			theirs, errs := runTCK(t, runSh, url)
			cmp := compare(ours, theirs, errs)
			unexplained := unexplainedDisagreements(t, c.name, cmp.disagree)
			if len(unexplained) > 0 {
				t.Errorf("a2a conformance and the TCK disagree on %s:\n  %s", c.name, strings.Join(unexplained, "\n  "))
			}
			if n := len(cmp.agree) + len(cmp.disagree); n < c.min {
				t.Errorf("%s: only %d verdicts compared, want at least %d (agreed: %v)", c.name, n, c.min, cmp.agree)
			}
			for _, b := range c.broken {
				if ours[b] != "fail" {
					t.Errorf("%s: a2a conformance's verdict on %s is %q, want fail", c.name, b, ours[b])
				}
			}
			fails := 0
			for _, a := range cmp.agree {
				if strings.HasSuffix(a, " fail") {
					fails++
				}
			}
			table = append(table, fmt.Sprintf("%-24s %3d compared, %3d agree (%d both fail), %d disagree", c.name,
				len(cmp.agree)+len(cmp.disagree), len(cmp.agree), fails, len(cmp.disagree)))
			t.Logf("agreed: %s", strings.Join(cmp.agree, ", "))
		})
	}
	t.Logf("a2a conformance vs the TCK (v1.0):\n%s", strings.Join(table, "\n"))
}

// tckV03Tests are the tests of the TCK's v0.3 suite that check one requirement `a2a conformance` checks too, with its
// id: the v0.3 suite names no requirement ids, so the comparison at v0.3 is limited to these.
var tckV03Tests = map[string]string{
	"tests/mandatory/protocol/test_agent_card.py::test_agent_card_available":              "CARD-DISC-001",
	"tests/mandatory/protocol/test_message_send_method.py::test_message_send_valid_text":  "CORE-SEND-001",
	"tests/mandatory/protocol/test_tasks_get_method.py::test_tasks_get_valid":             "CORE-GET-001",
	"tests/mandatory/protocol/test_tasks_get_method.py::test_tasks_get_nonexistent":       "CORE-GET-002",
	"tests/mandatory/protocol/test_tasks_cancel_method.py::test_tasks_cancel_nonexistent": "CORE-CANCEL-003",
}

// runTCK03 runs the TCK's v0.3 suite (mandatory and capabilities) against the agent at url over transport (jsonrpc,
// rest or grpc) and returns the verdicts of the tests tckV03Tests maps, per "<transport> <requirement id>".
func runTCK03(t *testing.T, runSh, url, transport string) map[string]string {
	t.Helper()
	work := os.Getenv("TCK_WORK")
	if work == "" {
		work = "/tmp/a2a-tck"
	}
	if transport == "grpc" {
		// The suite's gRPC client is taught to dial a bare host:port by conformance/run.sh (make conformance).
		src, err := os.ReadFile(filepath.Join(work, "a2a-tck-v03", "tck", "transport", "grpc_client.py"))
		if err != nil || !strings.Contains(string(src), "a bare host:port is a gRPC target") {
			t.Fatalf("the v0.3 suite under %s is not set up for gRPC: run make conformance (conformance/run.sh) first", work)
		}
	}
	logs := []string{filepath.Join(work, "logs", "v03-url-mandatory.log"), filepath.Join(work, "logs", "v03-url-capabilities.log")}
	for _, l := range logs {
		os.Remove(l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, runSh, url, "v03")
	cmd.Env = append(os.Environ(), "TCK_WORK="+work, "TRANSPORTS="+transport, "TCK_ARGS=-rA")
	out, err := cmd.CombinedOutput()
	tr := map[string]string{"rest": "http_json"}[transport]
	if tr == "" {
		tr = transport
	}
	verdict := map[string]string{}
	seen := 0
	for _, l := range logs {
		raw, rerr := os.ReadFile(l)
		if rerr != nil {
			t.Fatalf("the TCK wrote no log %s (%v; run.sh: %v):\n%s", l, rerr, err, out)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			word, rest, _ := strings.Cut(line, " ")
			test, _, _ := strings.Cut(rest, " ")
			id, ok := tckV03Tests[test]
			if !ok || (word != "PASSED" && word != "FAILED" && word != "ERROR") {
				continue
			}
			seen++
			key := tr + " " + id
			if id == "CARD-DISC-001" {
				key = "agent_card " + id
			}
			if word != "PASSED" || verdict[key] == "" {
				verdict[key] = map[string]string{"PASSED": "pass"}[word]
				if verdict[key] == "" {
					verdict[key] = "fail"
				}
			}
		}
	}
	if seen == 0 {
		t.Fatalf("the TCK's v0.3 logs name none of the tests compared (run.sh: %v):\n%s", err, out)
	}
	return verdict
}

// TestConformanceAgreesWithTCK03: the same at v0.3, on the tests of the v0.3 suite that map to one requirement
// (tckV03Tests): serve --reference --protocol 0.3 on each binding, the a2a-go SDK's v0.3 server, and that server with
// TaskNotFoundError's code broken.
func TestConformanceAgreesWithTCK03(t *testing.T) {
	runSh := os.Getenv("A2A_TCK_RUN")
	if runSh == "" {
		t.Skip("A2A_TCK_RUN is not set: make conformance-diff runs this test against the A2A TCK")
	}
	reference := func(tr string) func(t *testing.T) string {
		return func(t *testing.T) string {
			return startServe(t, "--reference", "--transport", tr, "--protocol", "0.3", "--card-compat").url
		}
	}
	cases := []struct {
		name, transport string
		url             func(t *testing.T) string
		broken          []string
		min             int
	}{
		{"serve --reference jsonrpc", "jsonrpc", reference("jsonrpc"), nil, 5},
		{"serve --reference rest", "rest", reference("rest"), nil, 5},
		{"serve --reference grpc", "grpc", reference("grpc"), nil, 5},
		{"a2a-go 0.3 jsonrpc", "jsonrpc", func(t *testing.T) string { return testagent.Start(t, testagent.Options{V03: true}).URL }, nil, 5},
		{"a2a-go 0.3 rest", "rest", func(t *testing.T) string {
			return testagent.Start(t, testagent.Options{V03: true, Transport: a2a.TransportProtocolHTTPJSON}).URL
		}, nil, 5},
		{"a2a-go 0.3 grpc", "grpc", func(t *testing.T) string {
			return testagent.Start(t, testagent.Options{V03: true, Transport: a2a.TransportProtocolGRPC}).URL
		}, nil, 5},
		{"a2a-js 0.3 jsonrpc", "jsonrpc", func(t *testing.T) string {
			return startNodeServer(t, needA2AJS(t), "server03.mjs", "JSONRPC")
		}, nil, 5},
		{"a2a-js 0.3 grpc", "grpc", func(t *testing.T) string {
			return startNodeServer(t, needA2AJS(t), "server03.mjs", "GRPC")
		}, nil, 5},
		{"broken: not-found code 0.3", "jsonrpc", func(t *testing.T) string {
			return wire.Broken(t, testagent.Start(t, testagent.Options{V03: true}).URL, wire.BreakNotFoundCode)
		}, []string{"jsonrpc CORE-GET-002"}, 5},
	}
	var table []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url(t)
			doc, _ := runConformance(t, url)
			ours := verdicts(doc)
			cmp := compare(ours, runTCK03(t, runSh, url, c.transport), nil)
			unexplained := unexplainedDisagreements(t, c.name, cmp.disagree)
			if len(unexplained) > 0 {
				t.Errorf("a2a conformance and the TCK (v0.3) disagree on %s:\n  %s", c.name, strings.Join(unexplained, "\n  "))
			}
			if n := len(cmp.agree) + len(cmp.disagree); n < c.min {
				t.Errorf("%s: only %d verdicts compared, want at least %d (agreed: %v)", c.name, n, c.min, cmp.agree)
			}
			for _, b := range c.broken {
				if ours[b] != "fail" {
					t.Errorf("%s: a2a conformance's verdict on %s is %q, want fail", c.name, b, ours[b])
				}
			}
			table = append(table, fmt.Sprintf("%-28s %d compared, %d agree: %s", c.name, len(cmp.agree)+len(cmp.disagree),
				len(cmp.agree), strings.Join(cmp.agree, ", ")))
		})
	}
	t.Logf("a2a conformance vs the TCK (v0.3):\n%s", strings.Join(table, "\n"))
}

// unexplainedDisagreements returns the disagreements of agent name that knownDisagreement does not explain, and logs
// the ones it does.
func unexplainedDisagreements(t *testing.T, name string, disagree []string) []string {
	t.Helper()
	var out []string
	for _, d := range disagree {
		f := strings.Fields(d)
		if why := knownDisagreement(name, f[0], f[1]); why != "" {
			t.Logf("known disagreement %s: %s", d, why)
			continue
		}
		out = append(out, d)
	}
	return out
}
