package redact

import (
	"fmt"
	"strings"
	"testing"
)

func TestSensitive(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "X-Api-Key": true, "Cookie": true, "Set-Cookie": true,
		"access_token": true, "credentials": true, "X-Session-Id": true, "password": true,
		"Content-Type": false, "A2A-Version": false, "X-Trace-Id": false, "taskId": false, "state": false,
		// credentials by their last word, in any case style
		"X-Auth-Token": true, "accessToken": true, "ACCESS_TOKEN": true, "clientSecret": true, "X-Goog-Api-Key": true,
		"APIKey": true, "apiKey": true, "PGPASSWORD": true, "AUTHTOKEN": true, "X-Session": true, "xapikey": true, "push-token": true, "token": true, "X-Auth": true, "sessionId": true,
		// counts, flags, addresses and names are not credentials, whatever words they contain
		"inputTokens": false, "outputTokens": false, "totalTokens": false, "supportsAuthenticatedExtendedCard": false,
		"tokenUrl": false, "authorizationUrl": false, "auth-required": false, "auth-all-origins": false,
		"TASK_STATE_AUTH_REQUIRED": false, "tls-key": false, "token-file": false, "pageToken": false,
		"idempotencyKey": false, "key": false, "authentication": false, "": false,
	} {
		if got := Sensitive(name); got != want {
			t.Errorf("Sensitive(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"credentials":"s3cret","url":"http://h"}`, `{"credentials":"***","url":"http://h"}`},
		{`{"authentication":{"scheme":"Bearer","credentials":"x"}}`, `{"authentication":{"credentials":"***","scheme":"Bearer"}}`},
		{`[{"token":1.5},{"n":2}]`, `[{"token":"***"},{"n":2}]`},
		{`{"state":"TASK_STATE_AUTH_REQUIRED"}`, `{"state":"TASK_STATE_AUTH_REQUIRED"}`},
		{`not json`, `not json`},
		{`{"usage":{"inputTokens":12,"outputTokens":34},"capabilities":{"supportsAuthenticatedExtendedCard":true},"accessToken":"t"}`,
			`{"accessToken":"***","capabilities":{"supportsAuthenticatedExtendedCard":true},"usage":{"inputTokens":12,"outputTokens":34}}`},
		{`{"inputTokens":3,"token":"s3cr`, `{"inputTokens":3,"token":"***`},
		{`{"url":"http://h","credentials":"s3cr`, `{"url":"http://h","credentials":"***`},
		{`{"a":"b", "X-Api-Key" : "k\"1", "c":"d"`, `{"a":"b", "X-Api-Key" : "***", "c":"d"`},
	}
	for _, tt := range tests {
		if got := string(JSON([]byte(tt.in))); got != tt.want {
			t.Errorf("JSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	got := Lines(map[string][]string{"X-B": {"1", "2"}, "Authorization": {"Bearer x"}}, "%s=%s;", ",")
	if want := "Authorization=***;X-B=1,2;"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func TestConn(t *testing.T) {
	tests := []struct {
		in, want string
		secrets  []string
	}{
		{"postgres://u:pw@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable", []string{"pw"}},
		{"postgres://u@h/db?password=q%40pw&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable", []string{"q%40pw", "q@pw"}},
		{"postgresql://u:a@h/db?sslpassword=k&PassWord=z", "postgresql://u:xxxxx@h/db?sslpassword=xxxxx&PassWord=xxxxx", []string{"a", "k", "z"}},
		{"postgres://u:p/w#x@h/db", "postgres://u:xxxxx@h/db", []string{"p/w#x"}},
		{"postgres://h/db", "postgres://h/db", nil},
		{"host=h user=u password=pw dbname=d", "host=h user=u password=xxxxx dbname=d", []string{"pw"}},
		{"host = h password = 'p w\\'d' sslpassword=k\\ ey port=1", "host = h password = xxxxx sslpassword=xxxxx port=1",
			[]string{"p w'd", `'p w\'d'`, "k ey", `k\ ey`}},
		{"host=h password='unterminated", "host=h xxxxx", nil},
		{"host=h garbage password", "host=h xxxxx", nil},
		{"sqlite:/tmp/tasks.db", "sqlite:/tmp/tasks.db", nil},
	}
	for _, tt := range tests {
		got, secrets := Conn(tt.in)
		if got != tt.want || fmt.Sprint(secrets) != fmt.Sprint(tt.secrets) {
			t.Errorf("Conn(%q) = %q %q, want %q %q", tt.in, got, secrets, tt.want, tt.secrets)
		}
	}
}

// FuzzConn: any string is redacted without a panic, and a password given as password=VALUE (bare, no escapes) in a
// key=value string or a URL's query never shows.
func FuzzConn(f *testing.F) {
	for _, s := range []string{"postgres://u:pw@h/db?password=x", "host=h password='a\\'b'", "a=b c", "x://@@?&=&"} {
		f.Add(s, "hunter2")
	}
	f.Fuzz(func(t *testing.T, raw, pw string) {
		Conn(raw)
		if pw == "" || strings.HasPrefix(connMask, pw) || strings.ContainsAny(pw, " \t\n\r\f\v'\\&#?%+=") {
			return
		}
		for _, s := range []string{"host=h password=" + pw + " " + raw, "postgres://u@h/db?password=" + pw + "&x=" + raw} {
			if shown, _ := Conn(s); strings.Contains(shown, "password="+pw) {
				t.Fatalf("Conn(%q) = %q", s, shown)
			}
		}
	})
}

// Sensitive runs on every header of every proxied call: it must not allocate.
func TestSensitiveAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		Sensitive("X-Goog-Api-Key")
		Sensitive("supportsAuthenticatedExtendedCard")
	}); n != 0 {
		t.Errorf("Sensitive allocates %v times, want 0", n)
	}
}
