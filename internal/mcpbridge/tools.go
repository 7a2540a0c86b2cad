package mcpbridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// maxDescription bounds a tool's description: a card's text goes into every session's context.
const maxDescription = 2000

// maxFileBytes bounds a file a tool call names by path.
const maxFileBytes = 16 << 20

// register adds the continue tool.
func (b *Bridge) register() {
	b.server.AddTool(&mcp.Tool{
		Name:  "continue",
		Title: "Answer an A2A agent waiting for input",
		Description: "Answer an A2A task that stopped at input-required: its task id (from the tool result that " +
			"asked) and the answer. Returns what the agent does next, as the tool that started the task would.",
		InputSchema: continueSchema(),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
	}, b.continueTool)
}

// list adds one tool per skill of a's card (one for the agent when its card lists none). The caller holds b.mu; a
// is connected.
func (b *Bridge) list(a *agent) {
	a.mu.Lock()
	card, listed := a.card, a.listed
	a.listed = true
	a.mu.Unlock()
	if listed {
		return
	}
	var skills []a2a.AgentSkill
	if card != nil {
		skills = card.Skills
	}
	if len(skills) == 0 {
		desc := "Send a message to the A2A agent " + a.label() + "."
		if card != nil && card.Description != "" {
			desc += "\n" + card.Description
		}
		b.add(b.names.name(cardName(card), ""), a, "", desc)
		return
	}
	for i := range skills {
		s := &skills[i]
		b.add(b.names.name(cardName(card), firstNonEmpty(s.ID, s.Name)), a, s.ID, skillDescription(a, s))
	}
}

// standIn adds the tool of an agent that had not answered when the server started: named after its address, it
// sends a message to the agent once it answers (its skills' tools are added then, and hosts that follow
// notifications/tools/list_changed see them), or says why it cannot be reached. The caller holds b.mu.
func (b *Bridge) standIn(a *agent, why string) {
	desc := "Send a message to the A2A agent at " + a.url + ". It " + why + " when this server started: a call " +
		"connects to it again and says why when it still cannot."
	b.add(b.names.name(hostName(a.url), ""), a, "", desc)
}

// hostName is the part of an agent's address a stand-in tool is named after: its host and port.
func hostName(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

func ptr[T any](v T) *T { return &v }

func cardName(card *a2a.AgentCard) string {
	if card != nil && strings.TrimSpace(card.Name) != "" {
		return card.Name
	}
	return "agent"
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// add registers the tool name that sends to agent a (skill: the skill asked for, in the message's metadata).
func (b *Bridge) add(name string, a *agent, skill, desc string) {
	b.tools = append(b.tools, name)
	b.owners = append(b.owners, a)
	title := a.label()
	if skill != "" {
		title += ": " + termsafe.Line(skill)
	}
	b.server.AddTool(&mcp.Tool{
		Name:        name,
		Title:       title,
		Description: clip(termsafe.Sanitize(desc), maxDescription),
		InputSchema: messageSchema(),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in messageInput
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return toolError("invalid arguments: %v", err), nil
		}
		msg, err := in.message()
		if err != nil {
			return toolError("%v", err), nil
		}
		return b.call(ctx, req, a, msg), nil
	})
}

// skillDescription is what a host shows of a skill: its agent, description, tags, modes and examples.
func skillDescription(a *agent, s *a2a.AgentSkill) string {
	var d strings.Builder
	fmt.Fprintf(&d, "%s (A2A agent %s)", firstNonEmpty(s.Name, s.ID), a.label())
	if s.Description != "" {
		fmt.Fprintf(&d, ": %s", s.Description)
	}
	if len(s.Tags) > 0 {
		fmt.Fprintf(&d, "\nTags: %s", strings.Join(s.Tags, ", "))
	}
	if len(s.InputModes) > 0 {
		fmt.Fprintf(&d, "\nAccepts: %s", strings.Join(s.InputModes, ", "))
	}
	if len(s.Examples) > 0 {
		d.WriteString("\nExamples:")
		for _, e := range s.Examples {
			fmt.Fprintf(&d, "\n- %s", e)
		}
	}
	return d.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

// messageInput is a skill tool's arguments.
type messageInput struct {
	Message   string          `json:"message"`
	Files     []fileInput     `json:"files,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	ContextID string          `json:"contextId,omitempty"`
	TaskID    string          `json:"taskId,omitempty"`
}

type fileInput struct {
	Path      string `json:"path,omitempty"`
	URI       string `json:"uri,omitempty"`
	Bytes     string `json:"bytes,omitempty"`
	Name      string `json:"name,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
}

func messageSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"message": map[string]any{"type": "string", "description": "what to ask the agent, in plain language"},
			"files": map[string]any{"type": "array", "description": "files to send with the message",
				"items": map[string]any{"type": "object", "properties": map[string]any{
					"path":      map[string]any{"type": "string", "description": "a local file to read and send"},
					"uri":       map[string]any{"type": "string", "description": "a URL the agent fetches itself"},
					"bytes":     map[string]any{"type": "string", "description": "the file's content, base64"},
					"name":      map[string]any{"type": "string", "description": "the file's name"},
					"mediaType": map[string]any{"type": "string", "description": "the file's media type"},
				}}},
			"data":      map[string]any{"description": "structured data to send as a data part (any JSON value)"},
			"contextId": map[string]any{"type": "string", "description": "continue a conversation: the contextId of an earlier result"},
			"taskId":    map[string]any{"type": "string", "description": "send to an existing task (a follow-up)"},
		},
		"required": []string{"message"},
	}
}

func continueSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"taskId": map[string]any{"type": "string", "description": "the task that asked for input"},
			"answer": map[string]any{"type": "string", "description": "the answer to the agent's question"},
			"agent":  map[string]any{"type": "string", "description": "the tool that started the task, if this server did not"},
		},
		"required": []string{"taskId", "answer"},
	}
}

// message builds the A2A message a tool call sends.
func (in *messageInput) message() (*a2a.Message, error) {
	if strings.TrimSpace(in.Message) == "" && len(in.Files) == 0 && len(in.Data) == 0 {
		return nil, fmt.Errorf("nothing to send: give a message")
	}
	var parts []*a2a.Part
	if in.Message != "" {
		parts = append(parts, a2a.NewTextPart(in.Message))
	}
	for i, f := range in.Files {
		p, err := f.part()
		if err != nil {
			return nil, fmt.Errorf("files[%d]: %w", i, err)
		}
		parts = append(parts, p)
	}
	if len(in.Data) > 0 && string(in.Data) != "null" {
		var v any
		if err := json.Unmarshal(in.Data, &v); err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		parts = append(parts, a2a.NewDataPart(v))
	}
	m := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	m.ContextID, m.TaskID = in.ContextID, a2a.TaskID(in.TaskID)
	return m, nil
}

func (f *fileInput) part() (*a2a.Part, error) {
	var p *a2a.Part
	switch {
	case f.Path != "" && f.URI == "" && f.Bytes == "":
		st, err := os.Stat(f.Path)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() || st.Size() > maxFileBytes {
			return nil, fmt.Errorf("%s: want a regular file of at most %d MiB", f.Path, maxFileBytes>>20)
		}
		b, err := os.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		p = a2a.NewRawPart(b)
		if f.Name == "" {
			f.Name = filepath.Base(f.Path)
		}
		if f.MediaType == "" {
			f.MediaType = mime.TypeByExtension(filepath.Ext(f.Path))
		}
	case f.URI != "" && f.Path == "" && f.Bytes == "":
		p = a2a.NewFileURLPart(a2a.URL(f.URI), f.MediaType)
	case f.Bytes != "" && f.Path == "" && f.URI == "":
		b, err := base64.StdEncoding.DecodeString(f.Bytes)
		if err != nil {
			return nil, fmt.Errorf("bytes: %w", err)
		}
		p = a2a.NewRawPart(b)
	default:
		return nil, fmt.Errorf("give exactly one of path, uri and bytes")
	}
	p.Filename, p.MediaType = f.Name, f.MediaType
	if p.MediaType == "" {
		p.MediaType = "application/octet-stream"
	}
	return p, nil
}

func toolError(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}
