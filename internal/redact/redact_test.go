package redact

import "testing"

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

// Sensitive runs on every header of every proxied call: it must not allocate.
func TestSensitiveAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		Sensitive("X-Goog-Api-Key")
		Sensitive("supportsAuthenticatedExtendedCard")
	}); n != 0 {
		t.Errorf("Sensitive allocates %v times, want 0", n)
	}
}
