// Package devtool recognises traffic of the development-tool A2A extension in both of its
// shapes - the RFC (ToolCall, AgentThought, DevelopmentToolEvent keyed by the extension URI)
// and what the Gemini CLI A2A server actually sends (metadata.coderAgent.kind and its internal
// tool-call objects) - and builds the client's answers.
//
// It owns the normalised view of that traffic (Update, ToolCall, Session), the shape of the
// answers (Answer, SettingsMetadata), whether a card declares the extension (CardDeclares) and
// the slash-command lists in either shape (SlashCommand, ParseCommands, SplitCommandLine). It
// imports only the a2a package and the standard library and does no I/O: rendering belongs to
// internal/output, sending to internal/client and internal/follow.
package devtool

import "github.com/a2aproject/a2a-go/v2/a2a"

// URI identifies the development-tool extension; RFC metadata is keyed by it.
const URI = "https://github.com/google-gemini/gemini-cli/blob/main/docs/a2a/developer-profile/v0/spec.md"

// geminiKey is the literal metadata key the Gemini CLI server uses instead of URI.
const geminiKey = "coderAgent"

// Shape tells which dialect of the extension an event speaks.
type Shape int

// The shapes: Plain is not development-tool traffic at all.
const (
	Plain Shape = iota
	RFC
	Gemini
)

// String names the shape.
func (s Shape) String() string {
	switch s {
	case RFC:
		return "rfc"
	case Gemini:
		return "gemini"
	}
	return "plain"
}

// Status is the normalised lifecycle state of a tool call.
type Status string

// The tool call states of the RFC; Gemini's validating, scheduled and awaiting_approval are
// all Pending, success is Succeeded and error is Failed.
const (
	Pending   Status = "pending"
	Executing Status = "executing"
	Succeeded Status = "succeeded"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Done reports whether the status is final (succeeded, failed or cancelled).
func (s Status) Done() bool { return s == Succeeded || s == Failed || s == Cancelled }

// Option is one choice a confirmation offers.
type Option struct{ ID, Name, Description string }

// Confirmation is what a tool call waiting for permission will do.
type Confirmation struct {
	Kind                                             string // "edit", "exec", "info", "mcp", "generic"
	Title                                            string
	FileName, FilePath, Diff, OldContent, NewContent string // edit
	Command, Cwd                                     string // exec
	Prompt                                           string // info / generic
	Server, Tool                                     string // mcp
	// Options are the agent's own options (RFC); for Gemini the outcomes proceed_once,
	// proceed_always and cancel (plus proceed_always_server and proceed_always_tool for mcp).
	// modify_with_editor is never offered: it opens an editor on the server's machine.
	Options []Option
}

// ToolCall is one state of a tool call, in either shape.
type ToolCall struct {
	ID, Name, DisplayName string
	Status                Status
	RawStatus             string // as sent (e.g. "awaiting_approval", "PENDING")
	Args                  map[string]any
	KeyArg                string // what to show beside the name: file path, command, pattern, url
	Output                string // result display (text, or a unified diff for edits)
	Error                 string
	Confirmation          *Confirmation // non-nil while it waits for permission
	Shape                 Shape
}

// Label is the name to show: the display name when there is one.
func (c *ToolCall) Label() string {
	if c.DisplayName != "" {
		return c.DisplayName
	}
	return c.Name
}

// Kind says what an Update carries.
type Kind string

// The kinds of update.
const (
	KindThought    Kind = "thought"
	KindText       Kind = "text"
	KindTool       Kind = "tool"
	KindLiveOutput Kind = "live-output"
	KindState      Kind = "state"
	KindError      Kind = "error"
	KindCitation   Kind = "citation"
)

// Thought is a step of the agent's reasoning.
type Thought struct{ Subject, Description string }

// Update is one normalised thing a dev-tool event carried.
type Update struct {
	Kind    Kind
	Thought Thought   // KindThought
	Text    string    // KindText: a delta to append; KindCitation; KindError: the message
	Tool    *ToolCall // KindTool
	CallID  string    // KindLiveOutput: the tool call
	Screen  string    // KindLiveOutput: the WHOLE screen so far (replace, don't append)
	State   a2a.TaskState
	Final   bool // KindState: the event ends the turn
	Model   string
}
