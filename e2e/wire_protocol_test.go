package e2e

import (
	"strings"
	"testing"

	"github.com/a2acli/a2a/internal/testagent/wire"
)

// TestErrorDataNotArray: a JSON-RPC error whose data is an object (JSON-RPC 2.0 and A2A v0.3 allow any value) is
// reported with the agent's code and message, and -o json keeps the data, on v1.0 and v0.3 clients, unary and
// streaming. The decode used to fail ("cannot unmarshal object into … []*errordetails.Typed") and lose the message.
func TestErrorDataNotArray(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"1.0", "0.3"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			url := wire.ErrorData(t, version)
			for _, args := range [][]string{{"send"}, {"send", "--stream"}, {"get", "task"}} {
				name := strings.Join(args, " ")
				cmd := append(append([]string{}, args...), url, "hi", "-o", "json")
				if args[0] == "get" {
					cmd = append(append([]string{}, args...), url, "t-1", "-o", "json")
				}
				if version == "0.3" {
					cmd = append([]string{"--a2a-version", "0.3"}, cmd...) // the opt-in to a version before 1.0
				}
				r := run(t, "", cmd...)
				wantCode(t, r, 1)
				line := r.stdout
				if i := strings.LastIndex(strings.TrimRight(line, "\n"), "\n"); i >= 0 {
					line = line[i+1:]
				}
				doc := errorDoc(t, result{stdout: line})
				if doc["code"] != "InternalError" || doc["a2aCode"] != float64(-32603) {
					t.Fatalf("%s: error document %v, want InternalError -32603\n%s", name, doc, r)
				}
				wantContains(t, name+": message", doc["message"].(string), wire.ErrorDataMessage)
				data, _ := doc["data"].(map[string]any)
				if data["stack"] != wire.ErrorDataStack {
					t.Fatalf("%s: data %v, want the agent's {\"stack\": …}\n%s", name, doc["data"], r)
				}

				r = run(t, "", cmd[:len(cmd)-2]...)
				wantCode(t, r, 1)
				wantContains(t, name+": stderr", r.stderr, wire.ErrorDataMessage)
				if strings.Contains(r.stderr, "unmarshal") {
					t.Fatalf("%s: a decoding failure reached the user\n%s", name, r)
				}
			}
		})
	}
}

// TestVersionHeaderAndBodyAgree: the A2A-Version header is the version of the body. Against an agent that answers in
// the version its header names, a v0.3 interface is spoken in v0.3 under a 0.3 header; --svc-param A2A-Version=1.0
// forces v1.0 bodies too (it used to send a 1.0 header on v0.3 bodies, and the v1.0 answer failed with "unknown
// event kind"). The card fetch carries the header as well. v0.3 is spoken only on the opt-in (--a2a-version 0.3, or the
// seed's --svc-param A2A-Version=0.3): unasked, the 0.3-only agent is refused before any call (the a2a-cli
// specification, §13.2).
func TestVersionHeaderAndBodyAgree(t *testing.T) {
	t.Parallel()
	ag := wire.StartByHeader(t, "0.3")
	for _, args := range [][]string{{"send", ag.URL, "hi"}, {"send", "--stream", ag.URL, "hi"}, {"get", "task", ag.URL, "t-1"}} {
		before := len(ag.Calls())
		r := run(t, "", args...)
		wantCode(t, r, 1)
		wantContains(t, "stderr", r.stderr, "speaks only A2A 0.3", "hint: speak 0.3 to it with --a2a-version 0.3")
		if calls := ag.Calls()[before:]; len(calls) != 1 || calls[0].Method != "" {
			t.Fatalf("%v: calls %v, want the card's fetch alone", args, calls)
		}
	}
	r := run(t, "", "send", ag.URL, "hi", "-o", "json")
	if doc := errorDoc(t, r); doc["code"] != "VersionNotSupportedError" || doc["a2aCode"] != nil {
		t.Fatalf("error document %v, want VersionNotSupportedError without an agent's code\n%s", doc, r)
	}
	for _, tc := range []struct {
		args []string
		want string // the version of header and body
		card string // the version the card's fetch asks for
	}{
		{[]string{"--a2a-version", "0.3"}, "0.3", "0.3"},
		{[]string{"--svc-param", "A2A-Version=0.3", "--stream"}, "0.3", "0.3"},
		{[]string{"--svc-param", "A2A-Version=1.0"}, "1.0", "1.0"},
		{[]string{"--svc-param", "A2A-Version=1.0", "--stream"}, "1.0", "1.0"},
	} {
		before := len(ag.Calls())
		args := append(append([]string{"send"}, tc.args...), ag.URL, "hi")
		r := run(t, "", args...)
		wantCode(t, r, 0)
		wantContains(t, strings.Join(args, " "), r.stdout, "echo: hi", "completed")
		calls := ag.Calls()[before:]
		if len(calls) < 2 || calls[0].Method != "" {
			t.Fatalf("%v: calls %v, want the card and a call", args, calls)
		}
		if calls[0].Version != tc.card {
			t.Errorf("%v: the card fetch carried A2A-Version %q, want %q", args, calls[0].Version, tc.card)
		}
		for _, c := range calls[1:] {
			if !strings.HasPrefix(c.Version, tc.want) || wire.V03Method(c.Method) != (tc.want == "0.3") {
				t.Errorf("%v: call %s under A2A-Version %q, want a v%s body and header", args, c.Method, c.Version, tc.want)
			}
		}
	}
}

// TestProxyVersionHeaderAndBodyAgree: a proxy given --svc-param A2A-Version forwards bodies under their own version's
// header on the byte path (a v0.3 front to the v0.3 upstream), and its decoding path writes the forced version's
// bodies (a v1.0 front).
func TestProxyVersionHeaderAndBodyAgree(t *testing.T) {
	t.Parallel()
	ag := wire.StartByHeader(t, "0.3")
	check := func(url string, args ...string) {
		t.Helper()
		before := len(ag.Calls())
		r := run(t, "", append(append([]string{"send", "--blocking"}, args...), url, "hi")...)
		wantCode(t, r, 0)
		wantContains(t, strings.Join(args, " "), r.stdout, "echo: hi")
		for _, c := range ag.Calls()[before:] {
			if c.Method != "" && wire.V03Method(c.Method) == strings.HasPrefix(c.Version, "1") {
				t.Errorf("%v: the upstream got %s under A2A-Version %q", args, c.Method, c.Version)
			}
		}
	}
	proxy := startServe(t, "--proxy", ag.URL, "--svc-param", "A2A-Version=1.0", "--transport", "jsonrpc,rest", "--quiet")
	check(proxy.url, "--transport", "jsonrpc")
	check(proxy.url, "--transport", "rest")
	proxy03 := startServe(t, "--proxy", ag.URL, "--svc-param", "A2A-Version=1.0", "--protocol", "0.3", "--transport", "jsonrpc", "--quiet")
	check(proxy03.url, "--a2a-version", "0.3") // the proxy speaks 0.3 unasked to its upstream; our client, asked
}

// TestCardByVersionHeader: an agent that chooses its card's shape by the A2A-Version header gets the header on the
// card fetch: 1.0 by default, the version the user forces otherwise; calls follow the card it sent.
func TestCardByVersionHeader(t *testing.T) {
	t.Parallel()
	ag := wire.StartByHeader(t, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "1.0"},
		{[]string{"--svc-param", "A2A-Version=0.3"}, "0.3"},
	} {
		before := len(ag.Calls())
		args := append(append([]string{"send"}, tc.args...), ag.URL, "hi")
		r := run(t, "", args...)
		wantCode(t, r, 0)
		wantContains(t, strings.Join(args, " "), r.stdout, "echo: hi")
		for _, c := range ag.Calls()[before:] {
			if !strings.HasPrefix(c.Version, tc.want) || (c.Method != "" && wire.V03Method(c.Method) != (tc.want == "0.3")) {
				t.Errorf("%v: request %q under A2A-Version %q, want v%s", args, c.Method, c.Version, tc.want)
			}
		}
	}
}

// TestVerboseShowsCountsNotSecrets: -v masks credentials, not words: token counts and card flags are shown, the
// Authorization header is masked.
func TestVerboseShowsCountsNotSecrets(t *testing.T) {
	t.Parallel()
	ag := wire.StartByHeader(t, "0.3")
	r := run(t, "", "send", "--blocking", "-v", "--a2a-version", "0.3", "--auth", "Bearer s3cr3t-value", ag.URL, "hi")
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, `"inputTokens":12`, `"outputTokens":34`, `"supportsAuthenticatedExtendedCard":true`,
		"Authorization: ***")
	if strings.Contains(r.stderr, "s3cr3t-value") {
		t.Fatalf("the credential reached the -v log\n%s", r)
	}
}
