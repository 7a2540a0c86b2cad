package inspect

import (
	"encoding/json"
	"testing"
)

func TestCommands(t *testing.T) {
	t.Parallel()
	send := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","taskId":"t1","parts":[{"text":"it's me"}]}}`)
	tests := []struct {
		name      string
		c         call
		token     bool
		a2a, curl string
	}{
		{"REST stream, decoding path", call{method: "SendStreamingMessage", binding: "HTTP+JSON", body: send,
			header: map[string][]string{"a2a-version": {"1.0"}, "x-api-key": {"k-123"}}}, false,
			`a2a send http://h:1 --stream --task t1 -- 'it'\''s me'`,
			`curl -sS -N -X POST http://h:1/message:stream -H 'a2a-version: 1.0' -H 'x-api-key: ***' -H 'Content-Type: application/json' --data-binary '{"message":{"messageId":"m1","parts":[{"text":"it'\''s me"}],"role":"ROLE_USER","taskId":"t1"}}'`},
		{"JSON-RPC byte path, token", call{method: "GetTask", binding: "JSONRPC", taskID: "t 2", httpMethod: "POST", path: "/jsonrpc",
			body: []byte(`{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"t 2"}}`), header: map[string][]string{"Content-Type": {"application/json"}}}, true,
			`a2a get task http://h:1 --auth "Bearer $A2A_TOKEN" -- 't 2'`,
			`curl -sS -N -X POST http://h:1/jsonrpc -H 'Content-Type: application/json' -H "Authorization: Bearer $A2A_TOKEN" --data-binary '{"id":7,"jsonrpc":"2.0","method":"GetTask","params":{"id":"t 2"}}'`},
		{"REST GetTask, decoding path", call{method: "GetTask", binding: "HTTP+JSON", taskID: "t/3", body: []byte(`{"id":"t/3"}`)}, false,
			`a2a get task http://h:1 -- t/3`, `curl -sS -N -X GET 'http://h:1/tasks/t%2F3'`},
		{"JSON-RPC, decoding path", call{method: "CancelTask", binding: "JSONRPC", taskID: "t4", body: []byte(`{"id":"t4"}`)}, false,
			`a2a cancel http://h:1 -- t4`,
			`curl -sS -N -X POST http://h:1/ -H 'Content-Type: application/json' --data-binary '{"id":1,"jsonrpc":"2.0","method":"CancelTask","params":{"id":"t4"}}'`},
		{"SendMessage, blocking", call{method: "SendMessage", binding: "HTTP+JSON", body: []byte(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)}, false,
			`a2a send http://h:1 --blocking -- hi`, ``},
		{"SendMessage, returnImmediately", call{method: "SendMessage", binding: "JSONRPC", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"returnImmediately":true}}}`)}, false,
			`a2a send http://h:1 --immediate -- hi`, ``},
		{"message/send v0.3, not blocking", call{method: "SendMessage", binding: "JSONRPC", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":false}}}`)}, false,
			`a2a send http://h:1 --immediate -- hi`, ``},
		{"text that looks like a flag", call{method: "SendMessage", binding: "HTTP+JSON", body: []byte(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"--exec=rm -rf ~"}]}}`)}, true,
			`a2a send http://h:1 --blocking --auth "Bearer $A2A_TOKEN" -- '--exec=rm -rf ~'`, ``},
		{"task id that looks like a flag", call{method: "SubscribeToTask", binding: "JSONRPC", taskID: "-v", body: []byte(`{"id":"-v"}`)}, false,
			`a2a subscribe http://h:1 -- -v`, ``},
	}
	for _, tt := range tests {
		got := commands(&tt.c, "http://h:1", tt.token)
		if tt.curl == "" {
			tt.curl = got.Curl // not what these cases are about
		}
		if got.A2A != tt.a2a {
			t.Errorf("%s: a2a command\n got %s\nwant %s", tt.name, got.A2A, tt.a2a)
		}
		if got.Curl != tt.curl {
			t.Errorf("%s: curl command\n got %s\nwant %s", tt.name, got.Curl, tt.curl)
		}
	}
}

// The API masks credentials as the traffic log does: header values by name, JSON fields by name at any depth.
func TestRedaction(t *testing.T) {
	t.Parallel()
	h := headers(map[string][]string{"Authorization": {"Bearer x"}, "X-Goog-Api-Key": {"k"}, "Cookie": {"s=1"}, "Accept": {"a", "b"}})
	want := map[string]string{"Authorization": "***", "X-Goog-Api-Key": "***", "Cookie": "***", "Accept": "a, b"}
	for k, v := range want {
		if h[k] != v {
			t.Errorf("headers()[%q] = %q, want %q", k, h[k], v)
		}
	}
	p := payload([]byte(`{"message":{"metadata":{"access_token":"tok-1","note":"ok"}}}`))
	raw, _ := json.Marshal(p)
	if string(raw) != `{"message":{"metadata":{"access_token":"***","note":"ok"}}}` {
		t.Errorf("payload() = %s", raw)
	}
	if s, ok := payload([]byte(`{"apiKey":"k-9","cut`)).(string); !ok || s != `{"apiKey":"***","cut` {
		t.Errorf("payload() of a cut body = %#v", s)
	}
}
