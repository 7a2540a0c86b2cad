package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestStreamDecodeWireAgent: a plain net/http v1.0 agent (no a2a-go, no serve code) streams artifact chunks in the
// framings and escapes real servers write (id and event lines, comments, CRLF, data split over lines, \" \n \u003c
// escapes, UTF-8, unknown fields) and ends with a status update. On both bindings, -o raw gives exactly the chunks'
// text and -o json every event, the last one completed: the client's own event decoding (internal/client/fastsse.go)
// read it all as a2a-go would.
func TestStreamDecodeWireAgent(t *testing.T) {
	t.Parallel()
	chunks := []string{"plain line\n", `say "hi" <b> & \ tab` + "\t\n", "héllo → 世界\n", "split over data lines\n", "last, no newline"}
	event := func(i int, text string) string {
		b, _ := json.Marshal(text) // escapes " \ < > & as Go servers do
		extra := ""
		if i == 2 {
			extra = `,"kind":"artifact-update"` // an unknown field (v0.3 habit): decoded the general way
		}
		return fmt.Sprintf(`{"artifactUpdate":{"taskId":"t1","contextId":"c1","append":%v,"lastChunk":%v,"artifact":{"artifactId":"a1","parts":[{"text":%s}]}%s}}`,
			i > 0, i == len(chunks)-1, b, extra)
	}
	final := `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	body := func(wrap func(string) string) string {
		var b strings.Builder
		b.WriteString(": stream opened\n\n")
		for i, c := range chunks {
			data := wrap(event(i, c))
			switch i {
			case 1:
				fmt.Fprintf(&b, "id: %d\r\nevent: message\r\ndata: %s\r\n\r\n", i, data)
			case 3:
				cut := strings.Index(data, `"artifact":`)
				fmt.Fprintf(&b, "data: %s\ndata:%s\n\n", data[:cut], data[cut:])
			default:
				fmt.Fprintf(&b, "id: %d\ndata: %s\n\n", i, data)
			}
		}
		fmt.Fprintf(&b, ": done\ndata: %s\n\n", wrap(final))
		return b.String()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/agent-card.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"name":"wire","description":"plain net/http","version":"1","capabilities":{"streaming":true},
				"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
				"supportedInterfaces":[{"url":"%[1]s/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
				{"url":"%[1]s/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`, "http://"+r.Host)
		case "/rpc":
			var req struct {
				ID     any    `json:"id"`
				Method string `json:"method"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "SendStreamingMessage" {
				http.Error(w, "unexpected request", http.StatusBadRequest)
				return
			}
			id, _ := json.Marshal(req.ID)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, body(func(result string) string { //nolint:errcheck // the client's problem
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
			}))
		case "/rest/message:stream":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, body(func(s string) string { return s })) //nolint:errcheck // the client's problem
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)

	for _, transport := range []string{"jsonrpc", "rest"} {
		r := run(t, "", "send", "--transport", transport, srv.URL, "go", "--stream", "-o", "raw")
		wantCode(t, r, 0)
		if want := strings.Join(chunks, ""); r.stdout != want {
			t.Fatalf("%s: -o raw gave %q, want %q\n%s", transport, r.stdout, want, r.stderr)
		}
		r = run(t, "", "send", "--transport", transport, srv.URL, "go", "--stream", "-o", "json")
		wantCode(t, r, 0)
		events, errDoc := jsonLines(t, r.stdout)
		if errDoc != nil || len(events) != len(chunks)+1 {
			t.Fatalf("%s: %d events (error %v), want %d\n%s", transport, len(events), errDoc, len(chunks)+1, r)
		}
		for i, c := range chunks {
			au, ok := events[i].(*a2a.TaskArtifactUpdateEvent)
			if !ok || len(au.Artifact.Parts) != 1 || au.Artifact.Parts[0].Text() != c || au.Append != (i > 0) || au.LastChunk != (i == len(chunks)-1) {
				t.Fatalf("%s: event %d is %#v, want the chunk %q", transport, i, events[i], c)
			}
		}
		if lastState(t, events) != a2a.TaskStateCompleted {
			t.Fatalf("%s: last state %s\n%s", transport, lastState(t, events), r)
		}
	}
}
