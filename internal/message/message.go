package message

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Input are the ways send can be given its message.
type Input struct {
	Text      string   // the positional text; "-" reads stdin
	HasText   bool     // the positional was given
	JSON      string   // --json: a whole Message object
	Parts     string   // --parts: a parts array
	File      string   // -f: a Message (or parts array) in a file; "-" reads stdin
	Files     []string // --file: file parts
	MediaType string   // --media-type for --file
	Data      string   // --data FILE|-: a data part
	TaskID    string   // --task
	ContextID string   // --context
	// Extra are the part flags in command-line order (--text-part, --file-part/--file, --data-part/--data, each
	// with the --media-type that followed it): appended after the parts above, in that order.
	Extra []PartSpec
	// Metadata is --metadata: a JSON object put in the Message's metadata.
	Metadata string
}

// PartSpec is one part flag: Kind "text" (Value is the text), "file" (a path, or a URL sent by reference) or
// "data" (a JSON file, or - for stdin); MediaType is the --media-type given right after it.
type PartSpec struct {
	Kind, Value, MediaType string
}

const maxInputBytes = 256 << 20

// Build assembles the Message from whichever source was given, reading stdin at most once.
func Build(o *Input, stdin io.Reader) (*a2a.Message, error) {
	sources := 0
	for _, set := range []bool{o.HasText, o.JSON != "", o.Parts != "", o.File != ""} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return nil, client.Usagef("give the message one way only: text, --json, --parts or -f")
	}
	stdinReaders := 0
	for _, used := range []bool{o.HasText && o.Text == "-", o.File == "-", o.Data == "-"} {
		if used {
			stdinReaders++
		}
	}
	for _, p := range o.Extra {
		if p.Kind == "data" && p.Value == "-" {
			stdinReaders++
		}
	}
	if stdinReaders > 1 {
		return nil, client.Usagef("only one input can read stdin ('-')")
	}
	msg := &a2a.Message{Role: a2a.MessageRoleUser}
	var err error
	switch {
	case o.JSON != "":
		msg, err = parseMessageJSON([]byte(o.JSON), "--json")
	case o.Parts != "":
		msg.Parts, err = parsePartsJSON([]byte(o.Parts), "--parts")
	case o.File != "":
		var body []byte
		if body, err = readInput(o.File, stdin); err == nil {
			msg, err = parseMessageOrParts(body, o.File)
		}
	case o.HasText:
		text := o.Text
		if text == "-" {
			var body []byte
			if body, err = readInput("-", stdin); err == nil {
				text = string(body)
			}
		}
		if err == nil {
			msg.Parts = append(msg.Parts, a2a.NewTextPart(text))
		}
	}
	if err != nil {
		return nil, err
	}
	for _, path := range o.Files {
		p, err := filePart(path, o.MediaType)
		if err != nil {
			return nil, err
		}
		msg.Parts = append(msg.Parts, p)
	}
	if o.Data != "" {
		body, err := readData(o.Data, stdin)
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, client.Usagef("--data %s is not JSON: %v", o.Data, err)
		}
		msg.Parts = append(msg.Parts, a2a.NewDataPart(v))
	}
	for _, spec := range o.Extra {
		p, err := specPart(spec, stdin)
		if err != nil {
			return nil, err
		}
		msg.Parts = append(msg.Parts, p)
	}
	if len(msg.Parts) == 0 {
		return nil, client.Usagef("no message: give text, -, --json, --parts, -f, --file or --data")
	}
	if o.Metadata != "" {
		var md map[string]any
		if err := json.Unmarshal([]byte(o.Metadata), &md); err != nil || md == nil {
			return nil, client.Usagef("--metadata must be a JSON object, like '{\"k\":\"v\"}'")
		}
		if msg.Metadata == nil {
			msg.Metadata = map[string]any{}
		}
		for k, v := range md {
			msg.Metadata[k] = v
		}
	}
	if msg.ID == "" {
		msg.ID = a2a.NewMessageID()
	}
	if msg.Role == a2a.MessageRoleUnspecified {
		msg.Role = a2a.MessageRoleUser
	}
	if o.TaskID != "" {
		msg.TaskID = a2a.TaskID(o.TaskID)
	}
	if o.ContextID != "" {
		msg.ContextID = o.ContextID
	}
	return msg, nil
}

// specPart builds the part one part flag asks for.
func specPart(spec PartSpec, stdin io.Reader) (*a2a.Part, error) {
	switch spec.Kind {
	case "text":
		p := a2a.NewTextPart(spec.Value)
		p.MediaType = spec.MediaType
		return p, nil
	case "file":
		if u, err := url.Parse(spec.Value); err == nil && u.Scheme != "" && u.Host != "" && len(u.Scheme) > 1 {
			// A URL is sent by reference: the agent fetches it, the CLI neither fetches nor re-hosts it.
			p := a2a.NewFileURLPart(a2a.URL(spec.Value), spec.MediaType)
			p.Filename = path.Base(u.Path)
			return p, nil
		}
		return filePart(spec.Value, spec.MediaType)
	case "data":
		body, err := readData(spec.Value, stdin)
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, client.Usagef("--data-part %s is not JSON: %v", spec.Value, err)
		}
		p := a2a.NewDataPart(v)
		p.MediaType = spec.MediaType
		return p, nil
	}
	return nil, fmt.Errorf("internal error: part kind %q", spec.Kind)
}

// readData is a data part's JSON: a file, - for stdin, or, when it starts like a JSON object or array and no file
// has that name, the value itself (--data-part '{"priority":"high"}', as a2a-cli's cookbook writes it).
func readData(v string, stdin io.Reader) ([]byte, error) {
	if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if _, err := os.Stat(v); errors.Is(err, fs.ErrNotExist) {
			return []byte(t), nil
		}
	}
	return readInput(v, stdin)
}

func readInput(path string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxInputBytes {
		return nil, fmt.Errorf("read %s: larger than %d MiB", path, maxInputBytes>>20)
	}
	return b, nil
}

func filePart(path, mediaType string) (*a2a.Part, error) {
	b, err := readInput(path, nil)
	if err != nil {
		return nil, err
	}
	if mediaType == "" {
		mediaType = mime.TypeByExtension(filepath.Ext(path))
	}
	if mediaType == "" {
		mediaType = http.DetectContentType(b)
	}
	p := a2a.NewRawPart(b)
	p.Filename = filepath.Base(path)
	p.MediaType = mediaType
	return p, nil
}

func parseMessageOrParts(body []byte, what string) (*a2a.Message, error) {
	if t := strings.TrimSpace(string(body)); strings.HasPrefix(t, "[") {
		parts, err := parsePartsJSON(body, what)
		if err != nil {
			return nil, err
		}
		return &a2a.Message{Role: a2a.MessageRoleUser, Parts: parts}, nil
	}
	return parseMessageJSON(body, what)
}

// parseMessageJSON reads a Message object, accepting v1.0 and v0.3 part shapes.
func parseMessageJSON(body []byte, what string) (*a2a.Message, error) {
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, client.Usagef("%s is not a JSON Message object: %v", what, err)
	}
	if m, ok := raw["message"].(map[string]any); ok && raw["parts"] == nil {
		raw = m // a SendMessageRequest's payload (--request-payload): its message
	}
	if role, ok := raw["role"].(string); ok {
		raw["role"] = normalRole(role)
	}
	if _, ok := raw["parts"]; !ok {
		return nil, client.Usagef("%s: the Message has no \"parts\"", what)
	}
	parts, ok := raw["parts"].([]any)
	if !ok {
		return nil, client.Usagef("%s: \"parts\" must be an array", what)
	}
	for i, p := range parts {
		parts[i] = normalPart(p)
	}
	delete(raw, "kind")
	norm, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var msg a2a.Message
	if err := json.Unmarshal(norm, &msg); err != nil {
		return nil, client.Usagef("%s is not a valid Message: %v", what, err)
	}
	return &msg, nil
}

func parsePartsJSON(body []byte, what string) ([]*a2a.Part, error) {
	var raw []any
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, client.Usagef("%s is not a JSON array of parts: %v", what, err)
	}
	if len(raw) == 0 {
		return nil, client.Usagef("%s: the parts array is empty", what)
	}
	parts := make([]*a2a.Part, 0, len(raw))
	for i, p := range raw {
		b, err := json.Marshal(normalPart(p))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		var part a2a.Part
		if err := json.Unmarshal(b, &part); err != nil {
			return nil, client.Usagef("%s: part %d: %v", what, i, err)
		}
		parts = append(parts, &part)
	}
	return parts, nil
}

func normalRole(r string) string {
	switch strings.ToLower(r) {
	case "user", "role_user":
		return string(a2a.MessageRoleUser)
	case "agent", "role_agent":
		return string(a2a.MessageRoleAgent)
	}
	return r
}

// normalPart accepts the grammar's {"fileUrl": …} and v0.3 {"kind": …} parts besides v1.0 ones.
func normalPart(p any) any {
	m, ok := p.(map[string]any)
	if !ok {
		return p
	}
	for _, k := range []string{"fileUrl", "fileUri", "uri"} {
		if v, ok := m[k]; ok {
			m["url"] = v
			delete(m, k)
		}
	}
	if f, ok := m["file"].(map[string]any); ok {
		if v, ok := f["uri"]; ok {
			m["url"] = v
		}
		if v, ok := f["bytes"]; ok {
			m["raw"] = v
		}
		if v, ok := f["mimeType"]; ok {
			m["mediaType"] = v
		}
		if v, ok := f["name"]; ok {
			m["filename"] = v
		}
		delete(m, "file")
	}
	delete(m, "kind")
	return m
}
