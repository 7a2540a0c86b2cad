package inspect

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/redact"
)

// commands builds the a2a and curl commands that repeat c against base (serve's URL, as the page reached it).
// Credentials never appear: a masked header stays masked, and a server with a token gets "$A2A_TOKEN".
func commands(c *call, base string, token bool) Commands {
	auth := ""
	if token {
		auth = ` --auth "Bearer $A2A_TOKEN"`
	}
	return Commands{A2A: a2aCommand(c, base, auth), Curl: curlCommand(c, base, token)}
}

// a2aCommand is the a2a command of c. What a client chose (the message's text, a task id) comes after "--", so
// that no text a caller sent ("--exec=…", "-v") becomes a flag of the pasted command; flags come first.
func a2aCommand(c *call, base, auth string) string {
	task := " -- " + quote(c.taskID)
	switch c.method {
	case "SendMessage", "SendStreamingMessage":
		m := requestMessage(c.body)
		if m == nil {
			return ""
		}
		cmd := "a2a send " + quote(base)
		switch {
		case c.method == "SendStreamingMessage":
			cmd += " --stream"
		case returnsImmediately(c.body):
			cmd += " --immediate"
		default:
			// The same one blocking call (a plain send streams where the agent streams).
			cmd += " --blocking"
		}
		if m.TaskID != "" {
			cmd += " --task " + quote(string(m.TaskID))
		}
		if m.ContextID != "" {
			cmd += " --context " + quote(m.ContextID)
		}
		if text, ok := onlyText(m); ok {
			return cmd + auth + " -- " + quote(text)
		}
		raw, err := json.Marshal(m.Parts)
		if err != nil {
			return ""
		}
		return cmd + " --parts " + quote(string(redact.JSON(raw))) + auth
	case "GetTask":
		return "a2a get task " + quote(base) + auth + task
	case "CancelTask":
		return "a2a cancel " + quote(base) + auth + task
	case "SubscribeToTask":
		return "a2a subscribe " + quote(base) + auth + task
	case "ListTasks":
		return "a2a list tasks " + quote(base) + auth
	case "GetExtendedAgentCard":
		return "a2a get card " + quote(base) + auth
	}
	return ""
}

// returnsImmediately reports whether a SendMessage body asked for the task at once: v1.0's returnImmediately, or
// v0.3's blocking set to false.
func returnsImmediately(body []byte) bool {
	type config struct {
		ReturnImmediately bool  `json:"returnImmediately"`
		Blocking          *bool `json:"blocking"`
	}
	var req struct {
		Configuration *config `json:"configuration"`
		Params        *struct {
			Configuration *config `json:"configuration"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	cfg := req.Configuration
	if req.Params != nil && req.Params.Configuration != nil {
		cfg = req.Params.Configuration
	}
	return cfg != nil && (cfg.ReturnImmediately || (cfg.Blocking != nil && !*cfg.Blocking))
}

func onlyText(m *a2a.Message) (string, bool) {
	var b strings.Builder
	for _, p := range m.Parts {
		t, ok := p.Content.(a2a.Text)
		if !ok || len(p.Metadata) > 0 {
			return "", false
		}
		b.WriteString(string(t))
	}
	return b.String(), len(m.Parts) > 0
}

// restPaths are the REST v1 routes of the decoding path's calls, which keep no path of their own.
var restPaths = map[string][2]string{
	"SendMessage":          {"POST", "/message:send"},
	"SendStreamingMessage": {"POST", "/message:stream"},
	"GetTask":              {"GET", "/tasks/{id}"},
	"CancelTask":           {"POST", "/tasks/{id}:cancel"},
	"SubscribeToTask":      {"GET", "/tasks/{id}:subscribe"},
	"ListTasks":            {"GET", "/tasks"},
}

func curlCommand(c *call, base string, token bool) string {
	method, path, body := c.httpMethod, c.path, c.body
	if path == "" {
		if c.binding == string(a2a.TransportProtocolJSONRPC) {
			method, path = "POST", "/"
			params := json.RawMessage(c.body)
			if len(params) == 0 {
				params = json.RawMessage("{}")
			}
			body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": c.method, "params": params}) // plain values
		} else {
			rp, ok := restPaths[c.method]
			if !ok {
				return ""
			}
			method, path = rp[0], strings.ReplaceAll(rp[1], "{id}", url.PathEscape(c.taskID))
			if method == "GET" {
				body = nil
			}
		}
	}
	parts := []string{"curl", "-sS", "-N", "-X", method, quote(strings.TrimSuffix(base, "/") + path)}
	names := make([]string, 0, len(c.header))
	for k := range c.header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		lk := strings.ToLower(k)
		if lk == "content-length" || lk == "host" || lk == "connection" || lk == "accept-encoding" || lk == "user-agent" {
			continue
		}
		for _, v := range c.header[k] {
			if redact.Sensitive(k) {
				v = redact.Mask
			}
			parts = append(parts, "-H", quote(k+": "+v))
		}
	}
	if token {
		parts = append(parts, "-H", `"Authorization: Bearer $A2A_TOKEN"`)
	}
	if len(body) > 0 {
		if c.header["Content-Type"] == nil && c.header["content-type"] == nil {
			parts = append(parts, "-H", quote("Content-Type: application/json"))
		}
		parts = append(parts, "--data-binary", quote(string(redact.JSON(body))))
	}
	return strings.Join(parts, " ")
}

// quote makes s one shell word.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@=,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
