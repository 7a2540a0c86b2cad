package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// writeCard writes a v1.0 card with the given capabilities JSON to a temporary file.
func writeCard(t *testing.T, caps string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "card.json")
	body := `{"name":"Quiet Agent","description":"answers, never streams","version":"1.0.0",
 "supportedInterfaces":[{"url":"http://example.invalid","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],
 "capabilities":` + caps + `,"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"Echo","description":"says it back","tags":["echo"]}]}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// servedCard fetches the card serve publishes, as a2a-go's resolver reads it, and the raw capabilities object.
func servedCard(t *testing.T, url string) (*a2a.AgentCard, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	card, err := agentcard.DefaultResolver.Resolve(ctx, url)
	if err != nil {
		t.Fatalf("Resolve(%s) = %v", url, err)
	}
	resp, err := http.Get(url + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	return card, raw.Capabilities
}

// endpointClient connects a2a-go's client to one interface of card without handing it the card, so the client
// does not skip what the card says the agent does not do: the server has to refuse it.
func endpointClient(t *testing.T, card *a2a.AgentCard, tr a2a.TransportProtocol) *a2aclient.Client {
	t.Helper()
	var iface *a2a.AgentInterface
	for _, i := range card.SupportedInterfaces {
		if i.ProtocolBinding == tr {
			iface = i
		}
	}
	if iface == nil {
		t.Fatalf("card lists no %s interface: %+v", tr, card.SupportedInterfaces)
	}
	c, err := a2aclient.NewFromEndpoints(context.Background(), []*a2a.AgentInterface{iface},
		grpcv1.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatalf("NewFromEndpoints(%s) = %v", tr, err)
	}
	t.Cleanup(func() { c.Destroy() })
	return c
}

func hello() *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))}
}

// TestServeCardCapabilities: the capabilities a --card file declares are what serve publishes and what it does.
// A card that says it does not stream is served saying so, and a streaming call is refused with the A2A
// UnsupportedOperation error on every binding, while a non-streaming send still works; a card that says it keeps
// no push configs refuses them with PushNotificationNotSupported. Checked with a2a-go's REST client given only
// the endpoint (so it does not skip the call itself, as it does when it reads the card), raw JSON-RPC requests
// and a2a-go's generated gRPC stub, and our own CLI.
func TestServeCardCapabilities(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--quiet", "--transport", "rest,jsonrpc,grpc",
		"--card", writeCard(t, `{"streaming":false,"pushNotifications":false}`))
	card, raw := servedCard(t, srv.url)
	if card.Capabilities.Streaming || card.Capabilities.PushNotifications {
		t.Errorf("served capabilities = %+v, want streaming and push off as the card says", card.Capabilities)
	}
	if v, ok := raw["streaming"]; ok && v != false {
		t.Errorf("served card capabilities.streaming = %v", v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// REST, through a2a-go's client.
	c := endpointClient(t, card, a2a.TransportProtocolHTTPJSON)
	for _, err := range c.SendStreamingMessage(ctx, hello()) {
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Errorf("REST SendStreamingMessage: (event, error) = %v, want UnsupportedOperation", err)
		}
		break
	}
	res, err := c.SendMessage(ctx, hello())
	if err != nil {
		t.Fatalf("REST SendMessage = %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("REST SendMessage = %T, want a task", res)
	}
	for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Errorf("REST SubscribeToTask: error = %v, want UnsupportedOperation", err)
		}
		break
	}
	_, err = c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/hook"})
	if !errors.Is(err, a2a.ErrPushNotificationNotSupported) {
		t.Errorf("REST CreateTaskPushConfig error = %v, want PushNotificationNotSupported", err)
	}
	push := &a2a.SendMessageRequest{Message: hello().Message,
		Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: "http://127.0.0.1:9/hook"}}}
	if _, err := c.SendMessage(ctx, push); !errors.Is(err, a2a.ErrPushNotificationNotSupported) {
		t.Errorf("REST SendMessage with a push config: error = %v, want PushNotificationNotSupported", err)
	}

	// JSON-RPC, raw: error -32004 (a2a-go's JSON-RPC client reads an error answered before a stream starts as
	// an empty stream, so it cannot tell).
	for _, call := range []string{
		`"method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`,
		`"method":"SubscribeToTask","params":{"id":"` + string(task.ID) + `"}`,
	} {
		if _, _, body := postRaw(t, srv.url+"/jsonrpc", "application/json", `{"jsonrpc":"2.0","id":1,`+call+`}`); !strings.Contains(body, `"code":-32004`) {
			t.Errorf("JSON-RPC %s answered %s, want error -32004", call, body)
		}
	}
	_, _, body := postRaw(t, srv.url+"/jsonrpc", "application/json", `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig",`+
		`"params":{"taskId":"`+string(task.ID)+`","url":"http://127.0.0.1:9/hook"}}`)
	if !strings.Contains(body, `"code":-32003`) {
		t.Errorf("JSON-RPC CreateTaskPushNotificationConfig answered %s, want error -32003", body)
	}

	// gRPC, a2a-go's generated stub: the status names the error in its ErrorInfo.
	stub := grpcStubOf(t, srv.url)
	stream, err := stub.SendStreamingMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{
		MessageId: "m3", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
	if err == nil {
		_, err = stream.Recv()
	}
	wantReason(t, "gRPC SendStreamingMessage", err, a2a.ErrUnsupportedOperation)
	sub, err := stub.SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: string(task.ID)})
	if err == nil {
		_, err = sub.Recv()
	}
	wantReason(t, "gRPC SubscribeToTask", err, a2a.ErrUnsupportedOperation)
	_, err = stub.CreateTaskPushNotificationConfig(ctx, &a2apb.TaskPushNotificationConfig{TaskId: string(task.ID), Url: "http://127.0.0.1:9/hook"})
	wantReason(t, "gRPC CreateTaskPushNotificationConfig", err, a2a.ErrPushNotificationNotSupported)

	// Our own CLI reads the card and does not stream: it sends and gets the answer.
	r := run(t, "", "send", srv.url, "still here", "-o", "raw")
	wantCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "still here" {
		t.Errorf("send -o raw = %q", r.stdout)
	}
}

// grpcStubOf is a2a-go's generated gRPC client for the server at url.
func grpcStubOf(t *testing.T, url string) a2apb.A2AServiceClient {
	t.Helper()
	cc, err := grpc.NewClient(strings.TrimPrefix(url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return a2apb.NewA2AServiceClient(cc)
}

// wantReason checks that err is a gRPC status whose ErrorInfo names the A2A error want.
func wantReason(t *testing.T, what string, err, want error) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || err == nil {
		t.Errorf("%s: error = %v, want a gRPC status naming %s", what, err, a2a.ErrorReason(want))
		return
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == a2a.ErrorReason(want) {
			return
		}
	}
	t.Errorf("%s: status %v %q details %v, want an ErrorInfo with reason %s", what, st.Code(), st.Message(), st.Details(), a2a.ErrorReason(want))
}

// TestServeCardExtendedCard: a card that declares an extended card gets GetExtendedAgentCard answered with
// itself; one that declares none gets UnsupportedOperation (as a2a-go's own server answers); a card silent
// about capabilities is served streaming, as before.
func TestServeCardExtendedCard(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct {
		caps    string
		wantErr error
	}{
		{`{"extendedAgentCard":true}`, nil},
		{`{"extendedAgentCard":false}`, a2a.ErrUnsupportedOperation},
	} {
		srv := startServe(t, "--echo", "--quiet", "--transport", "rest,jsonrpc", "--card", writeCard(t, tc.caps))
		card, _ := servedCard(t, srv.url)
		if !card.Capabilities.Streaming {
			t.Errorf("%s: a card silent about streaming is served with streaming off", tc.caps)
		}
		for _, tr := range []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC} {
			got, err := endpointClient(t, card, tr).GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{})
			switch {
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Errorf("%s %s: GetExtendedAgentCard error = %v, want %v", tc.caps, tr, err, tc.wantErr)
			case tc.wantErr == nil && err != nil:
				t.Errorf("%s %s: GetExtendedAgentCard = %v", tc.caps, tr, err)
			case tc.wantErr == nil && (got.Name != "Quiet Agent" || len(got.SupportedInterfaces) != 2):
				t.Errorf("%s %s: extended card = %+v, want the served card", tc.caps, tr, got)
			}
		}
	}
}
