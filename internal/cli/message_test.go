package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestBuildMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := filepath.Join(dir, "chart.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\nrest"), 0o644); err != nil {
		t.Fatal(err)
	}
	msgFile := filepath.Join(dir, "m.json")
	if err := os.WriteFile(msgFile, []byte(`{"role":"user","parts":[{"kind":"text","text":"v03"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		o     messageOptions
		stdin string
		check func(*a2a.Message) string
	}{
		{"text", messageOptions{text: "hi", hasText: true, taskID: "t1", contextID: "c1"}, "", func(m *a2a.Message) string {
			if m.Parts[0].Text() != "hi" || m.TaskID != "t1" || m.ContextID != "c1" || m.Role != a2a.MessageRoleUser || m.ID == "" {
				return "want text hi on task t1, context c1, user role, an id"
			}
			return ""
		}},
		{"stdin text", messageOptions{text: "-", hasText: true}, "from stdin\n", func(m *a2a.Message) string {
			if m.Parts[0].Text() != "from stdin\n" {
				return "want the stdin text"
			}
			return ""
		}},
		{"grammar --json with fileUrl", messageOptions{json: `{"role":"ROLE_USER","parts":[{"text":"analyze this"},{"fileUrl":"s3://b/doc.pdf"}]}`}, "", func(m *a2a.Message) string {
			if len(m.Parts) != 2 || m.Parts[0].Text() != "analyze this" || m.Parts[1].URL() != "s3://b/doc.pdf" {
				return "want a text part and a url part"
			}
			return ""
		}},
		{"grammar --parts", messageOptions{parts: `[{"text":"analyze this"},{"fileUrl":"s3://x"}]`}, "", func(m *a2a.Message) string {
			if len(m.Parts) != 2 || m.Role != a2a.MessageRoleUser {
				return "want two parts with ROLE_USER"
			}
			return ""
		}},
		{"-f with v0.3 parts", messageOptions{file: msgFile}, "", func(m *a2a.Message) string {
			if m.Parts[0].Text() != "v03" || m.Role != a2a.MessageRoleUser {
				return "want the v0.3 text part as user"
			}
			return ""
		}},
		{"--file and --data", messageOptions{text: "look", hasText: true, files: []string{png}, data: "-"}, `{"rows":3}`, func(m *a2a.Message) string {
			if len(m.Parts) != 3 || m.Parts[1].Filename != "chart.png" || m.Parts[1].MediaType != "image/png" || len(m.Parts[1].Raw()) != 12 {
				return "want text, a chart.png image/png part of 12 bytes, and data"
			}
			if d, ok := m.Parts[2].Data().(map[string]any); !ok || d["rows"] != float64(3) {
				return "want data {rows:3}"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		m, err := buildMessage(&tt.o, strings.NewReader(tt.stdin))
		if err != nil {
			t.Errorf("%s: buildMessage: %v", tt.name, err)
			continue
		}
		if problem := tt.check(m); problem != "" {
			t.Errorf("%s: got %+v: %s", tt.name, m, problem)
		}
	}
}

func TestBuildMessageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    messageOptions
		want string
	}{
		{"nothing", messageOptions{}, "no message"},
		{"two sources", messageOptions{text: "a", hasText: true, parts: `[{"text":"b"}]`}, "one way only"},
		{"bad json", messageOptions{json: `{"parts":[`}, "not a JSON Message"},
		{"json without parts", messageOptions{json: `{"role":"user"}`}, "no \"parts\""},
		{"bad part", messageOptions{parts: `[{"bogus":1}]`}, "part 0"},
		{"empty parts", messageOptions{parts: `[]`}, "empty"},
		{"parts not array", messageOptions{parts: `{"text":"x"}`}, "not a JSON array"},
		{"bad data", messageOptions{text: "x", hasText: true, data: "-"}, "not JSON"},
		{"two stdin readers", messageOptions{text: "-", hasText: true, data: "-"}, "only one input"},
	}
	for _, tt := range tests {
		_, err := buildMessage(&tt.o, strings.NewReader("{not json"))
		var ue *client.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: buildMessage = %v, want a usage error containing %q", tt.name, err, tt.want)
		}
	}
	_, err := buildMessage(&messageOptions{files: []string{"/nonexistent/x"}}, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("buildMessage(missing --file) = %v, want a not-exist error", err)
	}
}
