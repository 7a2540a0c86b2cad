package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve/servetest"
	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestV03SubscribeFinishedTask: over a v0.3 interface, subscribing to a task that has finished sends the task in its
// final state and ends the stream, on every binding. The v0.3 specification says so in its gRPC service definition
// (a2a.proto, TaskSubscription: "If the task is complete the stream will return the completed task (like GetTask)
// and close the stream"), which its functional-equivalence rule (section 3.4.1) extends to JSON-RPC and REST; a2a-js
// 0.3's server does the same. (v1.0 refuses it with UnsupportedOperationError: TestTerminalTaskRefused.)
func TestV03SubscribeFinishedTask(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports, Protocol: "0.3"})
	st, _, body := rawPost(t, srv.URL+"/", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":`+
		`{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]}}}`, map[string]string{"Content-Type": jsonCT})
	var sent struct {
		Result struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"result"`
	}
	if st != http.StatusOK || json.Unmarshal(body, &sent) != nil || sent.Result.Status.State != "completed" {
		t.Fatalf("message/send: HTTP %d %s, want a completed task", st, body)
	}
	id := sent.Result.ID

	// The stream must end by itself: a client that waited for more would hang here (bounded by the timeout).
	hc := &http.Client{Timeout: 30 * time.Second}
	events := func(what string, req *http.Request) []string {
		t.Helper()
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatalf("%s: the stream did not end: %v", what, err)
		}
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("%s: HTTP %d %q %s, want 200 text/event-stream", what, res.StatusCode, res.Header.Get("Content-Type"), b)
		}
		var data []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				data = append(data, strings.TrimSpace(d))
			}
		}
		return data
	}

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/",
		strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tasks/resubscribe","params":{"id":"`+id+`"}}`))
	req.Header.Set("Content-Type", jsonCT)
	got := events("JSON-RPC tasks/resubscribe", req)
	var rpc struct {
		Result struct {
			Kind, ID string
			Status   struct{ State string }
		}
		Error json.RawMessage
	}
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &rpc) != nil || rpc.Error != nil ||
		rpc.Result.Kind != "task" || rpc.Result.ID != id || rpc.Result.Status.State != "completed" {
		t.Errorf("JSON-RPC tasks/resubscribe: events %q, want the one completed task %s", got, id)
	}

	for _, method := range []string{http.MethodPost, http.MethodGet} { // a2a-js 0.3.14 serves both
		req, _ = http.NewRequest(method, srv.URL+"/v1/tasks/"+id+":subscribe", nil)
		got = events("REST "+method+" :subscribe", req)
		var rest struct {
			Task *struct {
				ID     string
				Status struct{ State string }
			}
		}
		if len(got) != 1 || json.Unmarshal([]byte(got[0]), &rest) != nil || rest.Task == nil ||
			rest.Task.ID != id || rest.Task.Status.State != "TASK_STATE_COMPLETED" {
			t.Errorf("REST %s :subscribe: events %q, want the one completed task %s", method, got, id)
		}
	}

	cc, err := grpc.NewClient(strings.TrimPrefix(srv.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := a2apbv0.NewA2AServiceClient(cc).TaskSubscription(ctx, &a2apbv0.TaskSubscriptionRequest{Name: "tasks/" + id})
	if err != nil {
		t.Fatalf("gRPC TaskSubscription: %v", err)
	}
	var tasks []*a2apbv0.Task
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("gRPC TaskSubscription after %d events: %v, want the task and the end of the stream", len(tasks), err)
		}
		tasks = append(tasks, ev.GetTask())
	}
	if len(tasks) != 1 || tasks[0].GetId() != id || tasks[0].GetStatus().GetState() != a2apbv0.TaskState_TASK_STATE_COMPLETED {
		t.Errorf("gRPC TaskSubscription: %v, want the one completed task %s", tasks, id)
	}
}

// TestV03GRPCFinalFlag: over v0.3 gRPC the status update that ends a turn carries final=true, as it does over v0.3
// JSON-RPC and REST (a2a-js 0.3's clients read the flag; a2a-go's v0.3 gRPC conversion leaves it out), and the
// ones before it do not.
func TestV03GRPCFinalFlag(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: []a2a.TransportProtocol{a2a.TransportProtocolGRPC}, Protocol: "0.3"})
	cc, err := grpc.NewClient(strings.TrimPrefix(srv.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := a2apbv0.NewA2AServiceClient(cc).SendStreamingMessage(ctx, &a2apbv0.SendMessageRequest{Request: &a2apbv0.Message{
		MessageId: "m1", Role: a2apbv0.Role_ROLE_USER, Parts: []*a2apbv0.Part{{Part: &a2apbv0.Part_Text{Text: "hi"}}}}})
	if err != nil {
		t.Fatalf("gRPC SendStreamingMessage: %v", err)
	}
	var finals []string
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("gRPC SendStreamingMessage: %v", err)
		}
		if su := ev.GetStatusUpdate(); su != nil {
			finals = append(finals, su.GetStatus().GetState().String()+"="+strconv.FormatBool(su.GetFinal()))
		}
	}
	want := []string{"TASK_STATE_WORKING=false", "TASK_STATE_COMPLETED=true"}
	if !slices.Equal(finals, want) {
		t.Errorf("status updates (state=final) %q, want %q", finals, want)
	}
}
