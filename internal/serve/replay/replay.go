package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
)

// ReplayExtKey is the key of a recording's extension lines: {"x-a2a-replay": {...}}. They carry what
// is not an A2A event, such as the slash commands an agent lists and the answers of its command
// endpoints.
const ReplayExtKey = "x-a2a-replay"

// Recording is one parsed recording: JSON Lines of a2a.StreamResponse objects (the shape
// `a2a send --stream -o json` prints), where a user-role message marks what the client sent.
type Recording struct {
	Name  string
	Steps []*Step
	// Commands holds the extension lines about slash commands.
	Commands CommandsExt
	// Shape is the development-tool dialect the recording speaks: "gemini" (metadata.coderAgent),
	// "rfc" (metadata keyed by devtool.URI) or "" (a plain agent).
	Shape string
	// taskID and contextID are the recorded ids, replaced by each session's own.
	taskID, contextID string
}

// Step is a user message and the events the agent answered it with, up to the next user message.
type Step struct {
	User   *a2a.Message
	Events []*recEvent
}

// recEvent is one recorded agent event: its raw JSON (for id rewriting) and its offset from the
// start of the recording, taken from status timestamps and interpolated for events without one.
type recEvent struct {
	raw    []byte
	offset time.Duration
	timed  bool
}

// CommandsExt is what extension lines say about slash commands. Values are kept as raw JSON and
// served verbatim.
type CommandsExt struct {
	// List answers GET /listCommands (Gemini).
	List json.RawMessage `json:"listCommands,omitempty"`
	// Execute answers POST /executeCommand, by command line ("memory show").
	Execute map[string]json.RawMessage `json:"executeCommand,omitempty"`
	// Get is the result of the JSON-RPC method commands/get (RFC).
	Get json.RawMessage `json:"commandsGet,omitempty"`
	// ExecuteRPC is the result of command/execute, by command path joined with spaces.
	ExecuteRPC map[string]json.RawMessage `json:"commandExecute,omitempty"`
}

func (c *CommandsExt) empty() bool {
	return c.List == nil && c.Execute == nil && c.Get == nil && c.ExecuteRPC == nil
}

func (c *CommandsExt) merge(o CommandsExt) {
	if o.List != nil {
		c.List = o.List
	}
	if o.Get != nil {
		c.Get = o.Get
	}
	for k, v := range o.Execute {
		if c.Execute == nil {
			c.Execute = map[string]json.RawMessage{}
		}
		c.Execute[k] = v
	}
	for k, v := range o.ExecuteRPC {
		if c.ExecuteRPC == nil {
			c.ExecuteRPC = map[string]json.RawMessage{}
		}
		c.ExecuteRPC[k] = v
	}
}

// ParseRecording reads a recording. Blank lines are skipped; events before the first user message
// are an error, as is a line that is neither an event nor an extension line.
func ParseRecording(name string, r io.Reader) (*Recording, error) {
	rec := &Recording{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	var stamps []*time.Time
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := rec.addLine(line, &stamps); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(rec.Steps) == 0 && rec.Commands.empty() {
		return nil, fmt.Errorf("%s: no user message and no extension line", name)
	}
	rec.computeOffsets(stamps)
	return rec, nil
}

func (rec *Recording) addLine(line []byte, stamps *[]*time.Time) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		return fmt.Errorf("parse line: %w", err)
	}
	if ext, ok := probe[ReplayExtKey]; ok {
		var c CommandsExt
		if err := json.Unmarshal(ext, &c); err != nil {
			return fmt.Errorf("parse %s line: %w", ReplayExtKey, err)
		}
		rec.Commands.merge(c)
		return nil
	}
	var sr a2a.StreamResponse
	if err := json.Unmarshal(line, &sr); err != nil {
		return fmt.Errorf("parse event: %w", err)
	}
	if m, ok := sr.Event.(*a2a.Message); ok && m.Role == a2a.MessageRoleUser {
		rec.Steps = append(rec.Steps, &Step{User: m})
		return nil
	}
	if len(rec.Steps) == 0 {
		return errors.New("agent event before the first user message")
	}
	rec.noteIDs(sr.Event)
	rec.noteShape(sr.Event)
	st := rec.Steps[len(rec.Steps)-1]
	st.Events = append(st.Events, &recEvent{raw: append([]byte(nil), line...)})
	var ts *time.Time
	switch v := sr.Event.(type) {
	case *a2a.TaskStatusUpdateEvent:
		ts = v.Status.Timestamp
	case *a2a.Task:
		ts = v.Status.Timestamp
	}
	*stamps = append(*stamps, ts)
	return nil
}

func (rec *Recording) noteIDs(ev a2a.Event) {
	if rec.taskID != "" {
		return
	}
	info := ev.TaskInfo()
	rec.taskID, rec.contextID = string(info.TaskID), info.ContextID
}

func (rec *Recording) noteShape(ev a2a.Event) {
	if rec.Shape != "" {
		return
	}
	var meta map[string]any
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		meta = v.Metadata
	case *a2a.TaskArtifactUpdateEvent:
		meta = v.Metadata
	}
	switch devtool.MetadataShape(meta) {
	case devtool.Gemini:
		rec.Shape = "gemini"
	case devtool.RFC:
		rec.Shape = "rfc"
	}
}

// computeOffsets gives every event its offset from the first timestamp; events without a timestamp
// are spread evenly between their timed neighbours.
func (rec *Recording) computeOffsets(stamps []*time.Time) {
	var all []*recEvent
	for _, st := range rec.Steps {
		all = append(all, st.Events...)
	}
	var origin *time.Time
	for i, ts := range stamps {
		if ts == nil {
			continue
		}
		if origin == nil {
			origin = ts
		}
		all[i].offset, all[i].timed = ts.Sub(*origin), true
	}
	prev := -1
	for i := 0; i <= len(all); i++ {
		if i < len(all) && !all[i].timed {
			continue
		}
		var lo, hi time.Duration
		if prev >= 0 {
			lo = all[prev].offset
		}
		hi = lo
		if i < len(all) {
			hi = all[i].offset
		}
		gap := i - prev
		for j := prev + 1; j < i; j++ {
			all[j].offset = lo + (hi-lo)*time.Duration(j-prev)/time.Duration(gap)
		}
		prev = i
	}
}
