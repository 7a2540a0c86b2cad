package devtool

import (
	"encoding/json"
	"strings"
)

// Helpers that read loosely typed JSON values (map[string]any as decoded by encoding/json),
// accepting several spellings of one key (snake_case proto names and their camelCase forms).

// asMap returns v as a JSON object. Values that are not maps (a struct built in Go, say) are
// round-tripped through JSON; anything that is not an object gives nil.
func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case nil, string, bool, float64, []any:
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// obj returns the first of keys whose value is a JSON object.
func obj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		if o := asMap(m[k]); o != nil {
			return o
		}
	}
	return nil
}

// str returns the first of keys whose value is a non-empty string.
func str(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// has reports whether any of keys is present.
func has(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// enumName returns a proto enum value as its name: strings as sent, numbers looked up in
// names (index = number).
func enumName(v any, names []string) string {
	switch e := v.(type) {
	case string:
		return e
	case float64:
		if i := int(e); float64(i) == e && i >= 0 && i < len(names) {
			return names[i]
		}
	}
	return ""
}

// compactJSON renders v as one line of JSON, or "" when it cannot.
func compactJSON(v any) string {
	if v == nil {
		return ""
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(raw)
}

// keyArgNames are the arguments that best say what a tool call acts on, most telling first.
var keyArgNames = []string{
	"file_path", "absolute_path", "path", "dir_path", "directory",
	"command", "pattern", "query", "url", "prompt",
}

// keyArg picks the argument to show beside a tool's name.
func keyArg(args map[string]any) string {
	if s := str(args, keyArgNames...); s != "" {
		return firstLine(s)
	}
	if urls, ok := args["urls"].([]any); ok && len(urls) > 0 {
		if s, ok := urls[0].(string); ok {
			return s
		}
	}
	return ""
}

// firstLine cuts s at its first newline, marking the cut.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
