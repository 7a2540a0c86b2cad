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
