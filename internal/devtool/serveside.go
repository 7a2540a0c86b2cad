package devtool

// What the server side (serve's replay backend) needs of the dialects: telling a recorded event's
// shape from its metadata, and writing the metadata of the events it builds itself (an aborted
// turn's end and its cancelled tool calls) in the recording's shape.

// MetadataShape tells the shape of an event from its metadata: Gemini when it carries the Gemini
// server's key, RFC when it is keyed by URI, Plain otherwise.
func MetadataShape(meta map[string]any) Shape {
	if _, ok := meta[geminiKey]; ok {
		return Gemini
	}
	if _, ok := meta[URI]; ok {
		return RFC
	}
	return Plain
}

// StateChangeMetadata is the metadata of a status update that ends a turn, in shape s (Gemini for
// Plain, the dialect of the server whose rule ends turns this way).
func StateChangeMetadata(s Shape) map[string]any {
	if s == RFC {
		return map[string]any{URI: map[string]any{"kind": "STATE_CHANGE"}}
	}
	return map[string]any{geminiKey: map[string]any{"kind": "state-change"}}
}

// MarkToolCallUpdate sets meta's development-tool entry to a tool-call update in shape s (Gemini for
// Plain).
func MarkToolCallUpdate(meta map[string]any, s Shape) {
	if s == RFC {
		meta[URI] = map[string]any{"kind": "TOOL_CALL_UPDATE"}
		return
	}
	meta[geminiKey] = map[string]any{"kind": "tool-call-update"}
}
