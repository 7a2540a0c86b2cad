package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The push-config calls as clients send them, made readable for a2a-go's decoders:
//   - ProtoJSON parsers accept a field under its proto name as well as its JSON name (task_id and
//     taskId); a2a-go's decoders read only the JSON name, and the TCK sends the proto names (v1.0
//     JSON-RPC params, v0.3 REST bodies);
//   - a2a-go's v0.3 JSON-RPC handler leaves "result" out of an empty list or a delete, where v0.3
//     clients read [] and null.

const maxPushBody = 1 << 20

// pushWire serves r itself when it is a push-config call needing one of the fixes above, and
// reports whether it did.
func pushWire(key frontKey, w http.ResponseWriter, r *http.Request, next http.Handler) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	switch {
	case key == frontKey{a2a.TransportProtocolJSONRPC, v1Version},
		key == frontKey{a2a.TransportProtocolHTTPJSON, v03Version} && strings.HasSuffix(r.URL.Path, "/pushNotificationConfigs"),
		key == frontKey{a2a.TransportProtocolJSONRPC, v03Version}:
	default:
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPushBody+1))
	if err != nil || len(body) > maxPushBody {
		r2 := *r // what was read, then the rest: the handler sees the body as sent
		r2.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		next.ServeHTTP(w, &r2)
		return true
	}
	if !bytes.Contains(body, []byte("ushNotificationConfig")) {
		next.ServeHTTP(w, withBody(r, body))
		return true
	}
	if key.binding == a2a.TransportProtocolHTTPJSON {
		next.ServeHTTP(w, withBody(r, camelKeys(body)))
		return true
	}
	var call struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &call) != nil {
		next.ServeHTTP(w, withBody(r, body))
		return true
	}
	switch {
	case key.version == v1Version && strings.Contains(call.Method, "PushNotificationConfig"):
		var all map[string]json.RawMessage
		if json.Unmarshal(body, &all) == nil {
			all["params"] = camelKeys(call.Params)
			if b, err := json.Marshal(all); err == nil {
				body = b
			}
		}
	case call.Method == "tasks/pushNotificationConfig/list" || call.Method == "tasks/pushNotificationConfig/delete":
		empty := "null"
		if strings.HasSuffix(call.Method, "list") {
			empty = "[]"
		}
		rec := &bufferedWriter{header: w.Header()}
		next.ServeHTTP(rec, withBody(r, body))
		out := rec.buf.Bytes()
		var resp map[string]json.RawMessage
		if json.Unmarshal(out, &resp) == nil && resp["error"] == nil && (resp["result"] == nil || string(resp["result"]) == "null") {
			resp["result"] = json.RawMessage(empty)
			if b, err := json.Marshal(resp); err == nil {
				out = b
			}
		}
		w.WriteHeader(rec.status())
		_, _ = w.Write(out) // the client went away if this fails; nothing to tell it
		return true
	}
	next.ServeHTTP(w, withBody(r, body))
	return true
}

// camelKeys renames the snake_case keys of a JSON object (recursively) to their lowerCamelCase JSON
// names, keeping a key already present under its camel name; anything else is returned as it is.
func camelKeys(raw []byte) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.Marshal(camelValue(v))
	if err != nil {
		return raw
	}
	return b
}

func camelValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			c := snakeToCamel(k)
			if _, dup := t[c]; dup && c != k {
				continue
			}
			out[c] = camelValue(x)
		}
		return out
	case []any:
		for i, x := range t {
			t[i] = camelValue(x)
		}
	}
	return v
}

func snakeToCamel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if p := parts[i]; p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

// bufferedWriter keeps a unary answer so it can be adjusted before it is sent.
type bufferedWriter struct {
	header http.Header
	code   int
	buf    bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header         { return b.header }
func (b *bufferedWriter) WriteHeader(code int)        { b.code = code }
func (b *bufferedWriter) Write(p []byte) (int, error) { return b.buf.Write(p) }

func (b *bufferedWriter) status() int {
	if b.code == 0 {
		return http.StatusOK
	}
	return b.code
}

// withBody returns r reading body again.
func withBody(r *http.Request, body []byte) *http.Request {
	r2 := *r
	r2.Body = io.NopCloser(bytes.NewReader(body))
	return &r2
}
