package redact

import "testing"

func TestSensitive(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "X-Api-Key": true, "Cookie": true, "Set-Cookie": true,
		"access_token": true, "credentials": true, "X-Session-Id": true, "password": true,
		"Content-Type": false, "A2A-Version": false, "X-Trace-Id": false, "taskId": false, "state": false,
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
