package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/replay"
)

// export writes the kept SendMessage and SendStreamingMessage calls as a recording, the JSON Lines
// `serve --record` writes and `serve --replay` serves: each call's message as a user-role message line, then
// every event answered, one a2a.StreamResponse per line. Payloads are written as they passed (a recording is
// for replaying, so nothing is masked); answers that are not A2A v1 events (errors, v0.3 payloads) are left out.
func (h *hub) export(w io.Writer) error {
	type snap struct {
		body []byte
		evs  []event
	}
	var calls []snap
	h.mu.Lock()
	for _, c := range h.calls {
		if !c.gone && h.byID[c.id] != nil && (c.method == "SendMessage" || c.method == "SendStreamingMessage") {
			calls = append(calls, snap{c.body, append([]event(nil), c.evs...)})
		}
	}
	h.mu.Unlock()
	bw := bufio.NewWriter(w)
	line := func(ev a2a.Event) error {
		b, err := json.Marshal(a2a.StreamResponse{Event: ev})
		if err != nil {
			return err
		}
		_, err = bw.Write(append(b, '\n'))
		return err
	}
	for _, c := range calls {
		m := requestMessage(c.body)
		if m == nil {
			continue
		}
		u := *m
		u.Role = a2a.MessageRoleUser
		if err := line(&u); err != nil {
			return err
		}
		for _, e := range c.evs {
			if ev, ok := decodeEvent(e.raw); ok {
				if err := line(ev); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}

// load files a recording as calls of source "file": each user-role message starts one SendStreamingMessage
// call whose events are the lines up to the next one. Status timestamps, when the recording has them, place the
// events in time; the rest happen now. It returns how many calls it added.
func (h *hub) load(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	now := time.Now()
	var calls []*call
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(line, &probe); err != nil {
			return 0, fmt.Errorf("line %d: %w", n, err)
		}
		if _, ext := probe[replay.ReplayExtKey]; ext {
			continue // an extension line of slash commands: no call
		}
		var sr a2a.StreamResponse
		if err := json.Unmarshal(line, &sr); err != nil {
			return 0, fmt.Errorf("line %d: %w", n, err)
		}
		at := now
		if ts := stamp(sr.Event); ts != nil {
			at = *ts
		}
		if m, ok := sr.Event.(*a2a.Message); ok && m.Role == a2a.MessageRoleUser {
			body, _ := json.Marshal(map[string]any{"message": m}) // a decoded message encodes
			calls = append(calls, &call{start: at, end: at, method: "SendStreamingMessage", body: body,
				taskID: string(m.TaskID), contextID: m.ContextID, source: "file", state: "-"})
			continue
		}
		if len(calls) == 0 {
			return 0, fmt.Errorf("line %d: agent event before the first user message", n)
		}
		c := calls[len(calls)-1]
		raw := append([]byte(nil), line...)
		c.evs = append(c.evs, event{at: at, raw: raw})
		c.events++
		c.bytes += len(raw)
		info := sr.Event.TaskInfo()
		if info.TaskID != "" {
			c.taskID = string(info.TaskID)
		}
		if c.contextID == "" {
			c.contextID = info.ContextID
		}
		if st := eventState(sr.Event); st != "" {
			c.state = st
		}
		if at.After(c.end) {
			c.end = at
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if len(calls) == 0 {
		return 0, fmt.Errorf("no user message: not a recording")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range calls {
		h.add(c) // counts the body
		for _, e := range c.evs {
			c.size += len(e.raw)
			h.kept += len(e.raw)
		}
		h.publish(c)
	}
	return len(calls), nil
}

func stamp(ev a2a.Event) *time.Time {
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		return v.Status.Timestamp
	case *a2a.Task:
		return v.Status.Timestamp
	}
	return nil
}

func eventState(ev a2a.Event) string {
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		return short(v.Status.State)
	case *a2a.Task:
		return short(v.Status.State)
	}
	return ""
}
