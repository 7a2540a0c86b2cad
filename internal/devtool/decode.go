package devtool

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The event kinds, normalised: Gemini's names as sent, the RFC's enum names lowercased with
// dashes (TOOL_CALL_UPDATE -> tool-call-update).
const (
	kindStateChange  = "state-change"
	kindThought      = "thought"
	kindTextContent  = "text-content"
	kindToolUpdate   = "tool-call-update"
	kindConfirmation = "tool-call-confirmation"
	kindCitation     = "citation"
)

// rfcKinds are the DevelopmentToolEventKind enum names by number.
var rfcKinds = []string{
	"DEVELOPMENT_TOOL_EVENT_KIND_UNSPECIFIED", "TOOL_CALL_CONFIRMATION", "TOOL_CALL_UPDATE",
	"TEXT_CONTENT", "STATE_CHANGE", "THOUGHT",
}

// eventInfo is what an event's metadata says about it.
type eventInfo struct {
	shape  Shape
	kind   string
	model  string
	errMsg string
}

// Decode reports what one event carries when it is development-tool traffic (ok false for a plain
// agent's event): the inspector's timeline reads tool calls, permission prompts and thoughts with it.
func Decode(ev a2a.Event) (updates []Update, ok bool) {
	ups, shape := decode(ev)
	return ups, shape != Plain
}

// decode reports what one event carries and in which shape (Plain: not development-tool traffic; plain agents are
// never mistaken for it). A status event yields its content updates followed by one KindState update.
func decode(ev a2a.Event) ([]Update, Shape) {
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		return decodeStatus(v)
	case *a2a.TaskArtifactUpdateEvent:
		return decodeArtifact(v)
	}
	return nil, Plain
}

// readInfo finds the extension's metadata on the event, or else on its status message.
func readInfo(meta map[string]any, msg *a2a.Message) eventInfo {
	if info := infoFrom(meta); info.shape != Plain {
		return info
	}
	if msg != nil {
		return infoFrom(msg.Metadata)
	}
	return eventInfo{}
}

func infoFrom(meta map[string]any) eventInfo {
	if ca := obj(meta, geminiKey); ca != nil {
		return eventInfo{shape: Gemini, kind: normKind(ca["kind"]), model: str(meta, "model"), errMsg: str(meta, "error")}
	}
	if d := obj(meta, URI); d != nil {
		return eventInfo{shape: RFC, kind: normKind(d["kind"]), model: str(d, "model"), errMsg: str(d, "error")}
	}
	return eventInfo{}
}

func normKind(v any) string {
	k := enumName(v, rfcKinds)
	return strings.ReplaceAll(strings.ToLower(k), "_", "-")
}

func decodeStatus(v *a2a.TaskStatusUpdateEvent) ([]Update, Shape) {
	msg := v.Status.Message
	info := readInfo(v.Metadata, msg)
	if info.shape == Plain {
		return nil, Plain
	}
	var ups []Update
	if info.errMsg != "" {
		ups = append(ups, Update{Kind: KindError, Text: info.errMsg})
	}
	if msg != nil {
		for _, p := range msg.Parts {
			if p != nil {
				ups = append(ups, decodePart(p, info)...)
			}
		}
	}
	ups = append(ups, Update{Kind: KindState, State: v.Status.State, Final: isFinal(v.Status.State, info.kind)})
	for i := range ups {
		ups[i].Model = info.model
	}
	return ups, info.shape
}

// isFinal says whether a status ends the turn. The v1 event has no final flag (the v0.3
// compat layer drops it), so it is inferred: a terminal state always ends the turn;
// input-required and auth-required only on a state-change event, because Gemini's tool
// updates inside a confirmation stream carry a stale input-required that does not.
func isFinal(s a2a.TaskState, kind string) bool {
	if s.Terminal() {
		return true
	}
	if s != a2a.TaskStateInputRequired && s != a2a.TaskStateAuthRequired {
		return false
	}
	return kind == kindStateChange || kind == "" || strings.HasSuffix(kind, "unspecified")
}

// decodePart turns one message part into updates according to the event's kind.
func decodePart(p *a2a.Part, info eventInfo) []Update {
	switch c := p.Content.(type) {
	case a2a.Text:
		t := string(c)
		switch {
		case t == "":
			return nil
		case info.kind == kindCitation:
			return []Update{{Kind: KindCitation, Text: t}}
		case info.errMsg != "":
			return []Update{{Kind: KindError, Text: t}}
		case info.kind == kindThought:
			return []Update{{Kind: KindThought, Thought: Thought{Description: t}}}
		}
		return []Update{{Kind: KindText, Text: t}}
	case a2a.Data:
		return decodeData(asMap(c.Value), info)
	}
	return nil
}

// decodeData recognises a tool call (either shape) or a thought in a DataPart.
func decodeData(m map[string]any, info eventInfo) []Update {
	if m == nil {
		return nil
	}
	if tc := parseGeminiCall(m); tc != nil {
		return []Update{{Kind: KindTool, Tool: tc}}
	}
	if tc, live, ok := parseRFCCall(m); ok {
		ups := []Update{{Kind: KindTool, Tool: tc}}
		if live != nil {
			ups = append(ups, Update{Kind: KindLiveOutput, CallID: tc.ID, Screen: *live})
		}
		return ups
	}
	if has(m, "subject", "description") {
		return []Update{{Kind: KindThought, Thought: Thought{Subject: str(m, "subject"), Description: str(m, "description")}}}
	}
	if info.kind == kindCitation {
		if s := compactJSON(m); s != "" {
			return []Update{{Kind: KindCitation, Text: s}}
		}
	}
	return nil
}

// decodeArtifact recognises Gemini's live shell output: artifact "tool-<callId>-output" whose
// text is the whole screen so far.
func decodeArtifact(v *a2a.TaskArtifactUpdateEvent) ([]Update, Shape) {
	a := v.Artifact
	if a == nil {
		return nil, Plain
	}
	id := string(a.ID)
	callID, ok := strings.CutPrefix(id, "tool-")
	if ok {
		callID, ok = strings.CutSuffix(callID, "-output")
	}
	if !ok || callID == "" {
		return nil, Plain
	}
	var screen strings.Builder
	for _, p := range a.Parts {
		if p == nil {
			continue
		}
		if t, isText := p.Content.(a2a.Text); isText {
			screen.WriteString(string(t))
		}
	}
	model := str(v.Metadata, "model")
	return []Update{{Kind: KindLiveOutput, CallID: callID, Screen: screen.String(), Model: model}}, Gemini
}
