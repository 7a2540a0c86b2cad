package client

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestAnswerCheck drives answerCheck against real HTTP answers: what a2a-go refuses becomes readable, what no
// binding can read becomes an error naming status, content type and body.
func TestAnswerCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		jsonrpc   bool
		streaming bool
		status    int
		ct, body  string
		wantCode  int    // the status a2a-go sees, when the answer passes
		wantBody  string // the body a2a-go reads, when the answer passes
		wantErr   error  // a protocol error, errors.Is
		wantText  string // a substring of the error
	}{
		{name: "201 from a REST agent reads as 200", status: 201, ct: "application/json", body: `{"task":{}}`, wantCode: 200, wantBody: `{"task":{}}`},
		{name: "201 on JSON-RPC is left alone", jsonrpc: true, status: 201, ct: "application/json", body: `{"result":{}}`, wantCode: 201, wantBody: `{"result":{}}`},
		{name: "JSON answer to a stream is one event", jsonrpc: true, streaming: true, status: 200, ct: "application/json",
			body: "{\"jsonrpc\":\"2.0\",\n \"result\":{}}", wantCode: 200, wantBody: "data: {\"jsonrpc\":\"2.0\",\"result\":{}}\n\n"},
		{name: "JSON-RPC error answering a stream", jsonrpc: true, streaming: true, status: 200, ct: "application/json",
			body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no such task"}}`, wantErr: a2a.ErrTaskNotFound, wantText: "no such task"},
		{name: "JSON-RPC error with HTTP 500", jsonrpc: true, status: 500, ct: "application/json",
			body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad params"}}`, wantErr: a2a.ErrInvalidParams, wantText: "bad params"},
		{name: "a2a-js REST error", status: 404, ct: "application/json", body: `{"code":-32001,"message":"Task not found"}`,
			wantErr: a2a.ErrTaskNotFound, wantText: "Task not found"},
		{name: "google.rpc.Status goes on to a2a-go", status: 404, ct: "application/json",
			body: `{"error":{"code":404,"status":"NOT_FOUND","message":"gone"}}`, wantCode: 404, wantBody: `{"error":{"code":404,"status":"NOT_FOUND","message":"gone"}}`},
		{name: "HTML error page", status: 502, ct: "text/html", body: "<html>bad gateway</html>",
			wantText: `unexpected answer: HTTP 502 Bad Gateway, text/html: "<html>bad gateway</html>"`},
		{name: "HTML with 200", jsonrpc: true, status: 200, ct: "text/html", body: "<p>login</p>",
			wantText: `HTTP 200 OK, text/html: "<p>login</p>"`},
		{name: "empty body", status: 500, wantText: "HTTP 500 Internal Server Error, no content type, empty body"},
		{name: "SSE without its content type", streaming: true, status: 200, ct: "text/plain", body: "data: {}\n\n", wantCode: 200, wantBody: "data: {}\n\n"},
		{name: "long body is cut", status: 503, ct: "text/plain", body: strings.Repeat("x", 500), wantText: strings.Repeat("x", bodyExcerpt) + `…"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tt.ct != "" {
					w.Header().Set("Content-Type", tt.ct)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body) //nolint:errcheck // the client reports what it got
			}))
			defer srv.Close()
			req, err := http.NewRequest(http.MethodPost, srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.streaming {
				req.Header.Set("Accept", "text/event-stream")
			}
			resp, err := (&answerCheck{base: http.DefaultTransport, jsonrpc: tt.jsonrpc}).RoundTrip(req)
			if tt.wantText != "" || tt.wantErr != nil {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("RoundTrip passed HTTP %d, want an error", resp.StatusCode)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("error %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error %q, want it to contain %q", err, tt.wantText)
				}
				return
			}
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantCode || string(body) != tt.wantBody {
				t.Errorf("got HTTP %d %q, want %d %q", resp.StatusCode, body, tt.wantCode, tt.wantBody)
			}
		})
	}
}
