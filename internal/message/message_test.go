package message

import (
	"errors"
	"fmt"
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
		o     Input
		stdin string
		check func(*a2a.Message) string
	}{
		{"text", Input{Text: "hi", HasText: true, TaskID: "t1", ContextID: "c1"}, "", func(m *a2a.Message) string {
			if m.Parts[0].Text() != "hi" || m.TaskID != "t1" || m.ContextID != "c1" || m.Role != a2a.MessageRoleUser || m.ID == "" {
				return "want text hi on task t1, context c1, user role, an id"
			}
			return ""
		}},
		{"stdin text", Input{Text: "-", HasText: true}, "from stdin\n", func(m *a2a.Message) string {
			if m.Parts[0].Text() != "from stdin\n" {
				return "want the stdin text"
			}
			return ""
		}},
		{"grammar --json with fileUrl", Input{JSON: `{"role":"ROLE_USER","parts":[{"text":"analyze this"},{"fileUrl":"s3://b/doc.pdf"}]}`}, "", func(m *a2a.Message) string {
			if len(m.Parts) != 2 || m.Parts[0].Text() != "analyze this" || m.Parts[1].URL() != "s3://b/doc.pdf" {
				return "want a text part and a url part"
			}
			return ""
		}},
		{"grammar --parts", Input{Parts: `[{"text":"analyze this"},{"fileUrl":"s3://x"}]`}, "", func(m *a2a.Message) string {
			if len(m.Parts) != 2 || m.Role != a2a.MessageRoleUser {
				return "want two parts with ROLE_USER"
			}
			return ""
		}},
		{"-f with v0.3 parts", Input{File: msgFile}, "", func(m *a2a.Message) string {
			if m.Parts[0].Text() != "v03" || m.Role != a2a.MessageRoleUser {
				return "want the v0.3 text part as user"
			}
			return ""
		}},
		{"--file and --data", Input{Text: "look", HasText: true, Files: []string{png}, Data: "-"}, `{"rows":3}`, func(m *a2a.Message) string {
			if len(m.Parts) != 3 || m.Parts[1].Filename != "chart.png" || m.Parts[1].MediaType != "image/png" || len(m.Parts[1].Raw()) != 12 {
				return "want text, a chart.png image/png part of 12 bytes, and data"
			}
			if d, ok := m.Parts[2].Data().(map[string]any); !ok || d["rows"] != float64(3) {
				return "want data {rows:3}"
			}
			return ""
		}},
		// The a2a-cli specification's part flags: repeatable, order-preserving, --media-type bound to the part before.
		{"ordered part flags", Input{Metadata: `{"k":"v"}`, Extra: []PartSpec{
			{Kind: "data", Value: "-"}, {Kind: "text", Value: "one"}, {Kind: "file", Value: png, MediaType: "application/pdf"},
			{Kind: "file", Value: png}, {Kind: "file", Value: "https://example.com/a/doc.pdf"}, {Kind: "text", Value: "two"},
		}}, `{"rows":3}`, func(m *a2a.Message) string {
			if len(m.Parts) != 6 || m.Parts[0].Data() == nil || m.Parts[1].Text() != "one" || m.Parts[5].Text() != "two" {
				return fmt.Sprintf("want data, text, file, file, url, text in order; got %d parts", len(m.Parts))
			}
			if m.Parts[2].MediaType != "application/pdf" || m.Parts[3].MediaType != "image/png" {
				return "want --media-type on the part before it only: " + m.Parts[2].MediaType + ", " + m.Parts[3].MediaType
			}
			if m.Parts[4].URL() != "https://example.com/a/doc.pdf" || m.Parts[4].Filename != "doc.pdf" {
				return "want a URL as a file-with-uri part"
			}
			if m.Metadata["k"] != "v" {
				return "want --metadata in the message's metadata"
			}
			return ""
		}},
		// --data-part '{"priority":"high"}' (a2a-cli's cookbook): JSON given inline, when no file has that name.
		{"inline data parts", Input{Data: `{"a":1}`, Extra: []PartSpec{{Kind: "data", Value: ` {"priority":"high"}`}, {Kind: "data", Value: `[1,2]`}}}, "", func(m *a2a.Message) string {
			if len(m.Parts) != 3 {
				return fmt.Sprintf("want three data parts, got %d", len(m.Parts))
			}
			if d, _ := m.Parts[1].Data().(map[string]any); d["priority"] != "high" {
				return fmt.Sprintf("want the inline object, got %v", m.Parts[1].Data())
			}
			if d, _ := m.Parts[2].Data().([]any); len(d) != 2 {
				return fmt.Sprintf("want the inline array, got %v", m.Parts[2].Data())
			}
			if d, _ := m.Parts[0].Data().(map[string]any); d["a"] != float64(1) {
				return fmt.Sprintf("want --data inline too, got %v", m.Parts[0].Data())
			}
			return ""
		}},
	}
	for _, tt := range tests {
		m, err := Build(&tt.o, strings.NewReader(tt.stdin))
		if err != nil {
			t.Errorf("%s: Build: %v", tt.name, err)
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
		o    Input
		want string
	}{
		{"nothing", Input{}, "no message"},
		{"two sources", Input{Text: "a", HasText: true, Parts: `[{"text":"b"}]`}, "one way only"},
		{"bad json", Input{JSON: `{"parts":[`}, "not a JSON Message"},
		{"json without parts", Input{JSON: `{"role":"user"}`}, "no \"parts\""},
		{"bad part", Input{Parts: `[{"bogus":1}]`}, "part 0"},
		{"empty parts", Input{Parts: `[]`}, "empty"},
		{"parts not array", Input{Parts: `{"text":"x"}`}, "not a JSON array"},
		{"bad data", Input{Text: "x", HasText: true, Data: "-"}, "not JSON"},
		{"bad inline data", Input{Extra: []PartSpec{{Kind: "data", Value: `{"a":`}}}, "not JSON"},
		{"two stdin readers", Input{Text: "-", HasText: true, Data: "-"}, "only one input"},
		{"two stdin data parts", Input{Extra: []PartSpec{{Kind: "data", Value: "-"}, {Kind: "data", Value: "-"}}}, "only one input"},
		{"metadata not an object", Input{Text: "x", HasText: true, Metadata: "[1]"}, "--metadata must be a JSON object"},
	}
	for _, tt := range tests {
		_, err := Build(&tt.o, strings.NewReader("{not json"))
		var ue *client.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Build = %v, want a usage error containing %q", tt.name, err, tt.want)
		}
	}
	_, err := Build(&Input{Files: []string{"/nonexistent/x"}}, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Build(missing --file) = %v, want a not-exist error", err)
	}
}
