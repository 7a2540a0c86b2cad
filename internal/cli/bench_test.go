package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
)

// The benchmarks below measure the client's own cost per call: a send round trip through the factory's client
// against a server that answers a fixed body, beside a bare net/http exchange of the same bytes. The difference is
// what a2a adds (interceptors, encoding, decoding); the target is under 100 µs.

const fixedTask = `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a1","parts":[{"text":"pong"}]}]}`

// fixedServer answers every POST with the same body: a JSON-RPC envelope or a REST task.
func fixedServer(b *testing.B, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet { // the card
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, benchCard(r.Host, strings.Contains(body, "jsonrpc")))
			return
		}
		_, _ = io.Copy(io.Discard, r.Body) // drained for connection reuse
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func benchCard(host string, jsonrpc bool) string {
	binding := "HTTP+JSON"
	if jsonrpc {
		binding = "JSONRPC"
	}
	return `{"name":"bench","supportedInterfaces":[{"url":"http://` + host + `","protocolBinding":"` + binding + `","protocolVersion":"1.0"}]}`
}

// fixedHandler answers SendMessage with the same task, for gRPC.
type fixedHandler struct{ a2asrv.RequestHandler }

func (fixedHandler) SendMessage(context.Context, *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	return &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted},
		Artifacts: []*a2a.Artifact{{ID: "a1", Parts: a2a.ContentParts{a2a.NewTextPart("pong")}}}}, nil
}

func benchConn(b *testing.B, url string) *client.Conn {
	s, _, _, _ := TestStreams()
	f := &factory{io: s, opts: &globalOptions{Options: client.Options{Timeout: 30 * time.Second}, output: "json"}, log: &client.Log{}}
	c, err := f.dialer().Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Destroy() })
	return c
}

func benchSend(b *testing.B, c *client.Conn) {
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := client.Unary(ctx, c, func(ctx context.Context) (a2a.SendMessageResult, error) { return c.SendMessage(ctx, req) }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSendRoundTrip(b *testing.B) {
	b.Run("jsonrpc", func(b *testing.B) {
		srv := fixedServer(b, `{"jsonrpc":"2.0","id":"1","result":{"task":`+fixedTask+`}}`)
		benchSend(b, benchConn(b, srv.URL))
	})
	b.Run("rest", func(b *testing.B) {
		srv := fixedServer(b, `{"task":`+fixedTask+`}`)
		benchSend(b, benchConn(b, srv.URL))
	})
	b.Run("grpc", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		gs := grpc.NewServer()
		a2agrpc.NewHandler(fixedHandler{}).RegisterWith(gs)
		go gs.Serve(ln)
		b.Cleanup(gs.Stop)
		card := `{"name":"bench","supportedInterfaces":[{"url":"` + ln.Addr().String() + `","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`
		cardSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, card) }))
		b.Cleanup(cardSrv.Close)
		benchSend(b, benchConn(b, cardSrv.URL))
	})
	// bare: the same request and response bytes over plain net/http, the floor for the HTTP bindings.
	b.Run("bare-http", func(b *testing.B) {
		srv := fixedServer(b, `{"jsonrpc":"2.0","id":"1","result":{"task":`+fixedTask+`}}`)
		reqBody := []byte(`{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"ping"}]}}}`)
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			resp, err := hc.Post(srv.URL, "application/json", bytes.NewReader(reqBody))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
	})
}
