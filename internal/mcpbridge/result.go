package mcpbridge

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// answer is a tool result from the agent's parts: text and data parts as text content, file parts as embedded
// resources (or, under --save, written to a file and linked), file URLs as resource links. Its structured content
// names the task, so that a model can follow up (contextId, taskId).
func (b *Bridge) answer(task *a2a.Task, parts a2a.ContentParts, artifacts []*a2a.Artifact) *mcp.CallToolResult {
	r := &mcp.CallToolResult{}
	for _, p := range parts {
		r.Content = append(r.Content, b.content(task, nil, p))
	}
	for _, a := range artifacts {
		for _, p := range a.Parts {
			r.Content = append(r.Content, b.content(task, a, p))
		}
	}
	if task != nil {
		r.StructuredContent = map[string]any{"taskId": task.ID, "contextId": task.ContextID, "state": output.ShortState(task.Status.State)}
	}
	if len(r.Content) == 0 {
		r.Content = []mcp.Content{&mcp.TextContent{Text: "(the agent answered with no content)"}}
	}
	return r
}

// content is one part as MCP content.
func (b *Bridge) content(task *a2a.Task, a *a2a.Artifact, p *a2a.Part) mcp.Content {
	switch c := p.Content.(type) {
	case a2a.Text:
		return &mcp.TextContent{Text: string(c)}
	case a2a.Data:
		j, err := json.Marshal(p.Data())
		if err != nil {
			return &mcp.TextContent{Text: fmt.Sprintf("(a data part that is not JSON: %v)", err)}
		}
		return &mcp.TextContent{Text: string(j)}
	case a2a.URL:
		return &mcp.ResourceLink{URI: string(c), Name: nameOr(p.Filename, string(c)), MIMEType: p.MediaType}
	case a2a.Raw:
		if b.cfg.Save != "" {
			if a == nil {
				a = &a2a.Artifact{ID: "answer"}
			}
			path, err := follow.SaveFile(b.cfg.Save, a, p)
			if err != nil {
				return &mcp.TextContent{Text: fmt.Sprintf("(a file part not saved: %v)", err)}
			}
			abs, _ := filepath.Abs(path) // only fails without a working directory: the path stands as it is
			if abs == "" {
				abs = path
			}
			return &mcp.ResourceLink{URI: (&url.URL{Scheme: "file", Path: abs}).String(), Name: filepath.Base(abs),
				MIMEType: p.MediaType, Size: ptr(int64(len(c)))}
		}
		id := "answer"
		if task != nil {
			id = string(task.ID)
		}
		uri := (&url.URL{Scheme: "a2a", Opaque: "task/" + url.PathEscape(id) + "/" + url.PathEscape(nameOr(p.Filename, "file"))}).String()
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: p.MediaType, Blob: []byte(c)}}
	}
	return &mcp.TextContent{Text: "(a part of an unknown kind)"}
}

func nameOr(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// question is what the agent asks of an input-required task.
func question(task *a2a.Task) string {
	if q := partsText(statusParts(task)); q != "" {
		return q
	}
	return "The agent needs more input."
}

// inputRequired returns the agent's question with the task id, for the continue tool.
func (b *Bridge) inputRequired(a *agent, task *a2a.Task) *mcp.CallToolResult {
	r := b.answer(task, nil, nil)
	r.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(
		"%s is waiting for input on task %s: %s\nAnswer it with the continue tool: {\"taskId\": %q, \"answer\": \"...\"}",
		a.label(), task.ID, question(task), task.ID)}}
	return r
}
