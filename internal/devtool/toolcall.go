package devtool

import (
	"strings"
)

// geminiStatuses maps the Gemini server's internal tool states to the RFC's lifecycle.
var geminiStatuses = map[string]Status{
	"validating":        Pending,
	"scheduled":         Pending,
	"awaiting_approval": Pending,
	"executing":         Executing,
	"success":           Succeeded,
	"error":             Failed,
	"cancelled":         Cancelled,
}

// rfcStatuses are the ToolCallStatus enum names by number.
var rfcStatuses = []string{"STATUS_UNSPECIFIED", "PENDING", "EXECUTING", "SUCCEEDED", "FAILED", "CANCELLED"}

// parseGeminiCall reads the Gemini server's internal tool-call object:
// {request:{callId,name,args}, status, confirmationDetails?, response?, tool:{name,displayName}}.
func parseGeminiCall(m map[string]any) *ToolCall {
	req := obj(m, "request")
	id := str(req, "callId")
	if id == "" {
		return nil
	}
	tc := &ToolCall{
		ID:        id,
		Name:      str(req, "name"),
		RawStatus: str(m, "status"),
		Args:      obj(req, "args"),
		Shape:     Gemini,
	}
	if tool := obj(m, "tool"); tool != nil {
		tc.DisplayName = str(tool, "displayName")
		if tc.Name == "" {
			tc.Name = str(tool, "name")
		}
	}
	tc.Status = geminiStatuses[tc.RawStatus]
	if tc.Status == "" {
		tc.Status = Status(strings.ToLower(tc.RawStatus))
	}
	tc.KeyArg = keyArg(tc.Args)
	if cd := obj(m, "confirmationDetails"); cd != nil && tc.RawStatus == "awaiting_approval" {
		tc.Confirmation = geminiConfirmation(cd)
	}
	if resp := obj(m, "response"); resp != nil {
		tc.Output, tc.Error = geminiResult(resp, tc.Status)
	}
	return tc
}

// geminiOptions are the outcomes the Gemini server understands, without modify_with_editor.
func geminiOptions(kind string) []Option {
	opts := []Option{
		{ID: "proceed_once", Name: "Allow once"},
		{ID: "proceed_always", Name: "Allow always"},
	}
	if kind == "mcp" {
		opts = append(opts,
			Option{ID: "proceed_always_server", Name: "Always allow this server"},
			Option{ID: "proceed_always_tool", Name: "Always allow this tool"})
	}
	return append(opts, Option{ID: "cancel", Name: "Reject"})
}

func geminiConfirmation(cd map[string]any) *Confirmation {
	c := &Confirmation{
		Kind:       str(cd, "type"),
		Title:      str(cd, "title"),
		FileName:   str(cd, "fileName"),
		FilePath:   str(cd, "filePath"),
		Diff:       str(cd, "fileDiff"),
		OldContent: str(cd, "originalContent"),
		NewContent: str(cd, "newContent"),
		Command:    str(cd, "command"),
		Prompt:     str(cd, "prompt"),
		Server:     str(cd, "serverName"),
		Tool:       str(cd, "toolDisplayName", "toolName"),
	}
	if c.Kind == "" {
		c.Kind = "generic"
	}
	c.Options = geminiOptions(c.Kind)
	return c
}

// geminiResult reads response.resultDisplay (a string or a diff object), response.errorType
// and responseParts[].functionResponse.response.{output|error}.
func geminiResult(resp map[string]any, st Status) (output, errText string) {
	var fnOut, fnErr string
	if parts, ok := resp["responseParts"].([]any); ok {
		for _, p := range parts {
			r := obj(obj(asMap(p), "functionResponse"), "response")
			fnOut = firstNonEmpty(fnOut, str(r, "output"))
			fnErr = firstNonEmpty(fnErr, str(r, "error"))
		}
	}
	display := str(resp, "resultDisplay")
	if d := obj(resp, "resultDisplay"); d != nil {
		display = str(d, "fileDiff")
	}
	if st == Failed || st == Cancelled {
		return "", firstNonEmpty(fnErr, str(resp, "error"), display, str(resp, "errorType"))
	}
	return firstNonEmpty(display, fnOut), fnErr
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// parseRFCCall reads an RFC ToolCall; live is its live_content when present.
func parseRFCCall(m map[string]any) (tc *ToolCall, live *string, ok bool) {
	id := str(m, "tool_call_id", "toolCallId")
	if id == "" || !has(m, "status", "tool_name", "toolName") {
		return nil, nil, false
	}
	tc = &ToolCall{
		ID:        id,
		Name:      str(m, "tool_name", "toolName"),
		RawStatus: enumName(m["status"], rfcStatuses),
		Args:      obj(m, "input_parameters", "inputParameters"),
		Shape:     RFC,
	}
	tc.Status = Status(strings.ToLower(tc.RawStatus))
	if tc.Status == "status_unspecified" || tc.Status == "" {
		tc.Status = Pending
	}
	tc.KeyArg = firstNonEmpty(keyArg(tc.Args), firstLine(str(m, "description")))
	tc.Output = rfcOutput(obj(m, "output"))
	if e := obj(m, "error"); e != nil {
		tc.Error = firstNonEmpty(str(e, "message"), str(e, "type"), "error")
	} else {
		tc.Error = str(m, "error")
	}
	if cr := obj(m, "confirmation_request", "confirmationRequest"); cr != nil && tc.Status == Pending {
		tc.Confirmation = rfcConfirmation(cr)
	}
	if s, isStr := m["live_content"].(string); isStr {
		live = &s
	} else if s, isStr := m["liveContent"].(string); isStr {
		live = &s
	}
	return tc, live, true
}

// rfcOutput renders ToolOutput{text | diff | structured_data}.
func rfcOutput(out map[string]any) string {
	if out == nil {
		return ""
	}
	if s := str(out, "text"); s != "" {
		return s
	}
	if d := obj(out, "diff"); d != nil {
		return firstNonEmpty(str(d, "formatted_diff", "formattedDiff"), str(d, "new_content", "newContent"))
	}
	return compactJSON(out["structured_data"])
}

func rfcConfirmation(cr map[string]any) *Confirmation {
	c := &Confirmation{Kind: "generic"}
	if d := obj(cr, "execute_details", "executeDetails"); d != nil {
		c.Kind, c.Command, c.Cwd = "exec", str(d, "command"), str(d, "working_directory", "workingDirectory")
	} else if d := obj(cr, "file_edit_details", "fileEditDetails"); d != nil {
		c.Kind = "edit"
		c.FileName, c.FilePath = str(d, "file_name", "fileName"), str(d, "file_path", "filePath")
		c.OldContent, c.NewContent = str(d, "old_content", "oldContent"), str(d, "new_content", "newContent")
		c.Diff = str(d, "formatted_diff", "formattedDiff")
	} else if d := obj(cr, "mcp_details", "mcpDetails"); d != nil {
		c.Kind, c.Server, c.Tool = "mcp", str(d, "server_name", "serverName"), str(d, "tool_name", "toolName")
	} else if d := obj(cr, "generic_details", "genericDetails"); d != nil {
		c.Prompt = str(d, "description")
	}
	if opts, ok := cr["options"].([]any); ok {
		for _, o := range opts {
			om := asMap(o)
			if id := str(om, "id"); id != "" {
				c.Options = append(c.Options, Option{ID: id, Name: str(om, "name"), Description: str(om, "description")})
			}
		}
	}
	return c
}
