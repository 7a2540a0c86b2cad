// Package devtooltest loads recorded development-tool traffic for tests: JSON-RPC v0.3 stream
// envelopes, one per line, converted to v1 events by a2a-go's compat layer exactly as a client
// receives them. It is for tests only and must not be imported by production code.
package devtooltest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	legacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// envelope is one JSON-RPC response line of a capture.
type envelope struct {
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// ParseLine converts one JSON-RPC envelope holding a v0.3 stream result into a v1 event.
func ParseLine(line []byte) (a2a.Event, error) {
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, fmt.Errorf("decode envelope: %w", err)
	}
	if len(env.Result) == 0 {
		return nil, fmt.Errorf("envelope without result: %s", env.Error)
	}
	old, err := legacy.UnmarshalEventJSON(env.Result)
	if err != nil {
		return nil, fmt.Errorf("decode v0.3 event: %w", err)
	}
	ev, err := a2av0.ToV1Event(old)
	if err != nil {
		return nil, fmt.Errorf("convert event: %w", err)
	}
	return ev, nil
}

// Load reads a capture file (.jsonl) into v1 events, in order.
func Load(path string) ([]a2a.Event, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read capture: %w", err)
	}
	var events []a2a.Event
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		ev, err := ParseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scan capture: %w", err)
	}
	return events, nil
}
