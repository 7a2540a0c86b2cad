package output

import (
	"bytes"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestPushConfigText(t *testing.T) {
	t.Parallel()
	cfg := &a2a.PushConfig{TaskID: "t-1", ID: "c-1", URL: "http://127.0.0.1:9000/", Token: "sekrit",
		Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: "hunter2"}}
	var b bytes.Buffer
	if err := New(&b, Options{}).PushConfig(cfg); err != nil {
		t.Fatal(err)
	}
	want := "Config ID: c-1\nTask ID: t-1\nURL: http://127.0.0.1:9000/\nToken: set\nAuthentication: Bearer (credentials set)\n"
	if b.String() != want {
		t.Errorf("PushConfig text =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := New(&b, Options{}).PushConfigs(nil); err != nil || b.String() != "Push Configs: none\n" {
		t.Errorf("PushConfigs(nil) = %q, %v", b.String(), err)
	}
	b.Reset()
	if err := New(&b, Options{Format: JSON}).PushConfigs(nil); err != nil || strings.TrimSpace(b.String()) != `{"configs":[]}` {
		t.Errorf("PushConfigs(nil) JSON = %q, %v", b.String(), err)
	}
	b.Reset()
	if err := New(&b, Options{Format: JSON}).PushConfig(cfg); err != nil || !strings.Contains(b.String(), `"token":"sekrit"`) {
		t.Errorf("PushConfig JSON = %q, %v (JSON is the protocol object, token included)", b.String(), err)
	}
}
