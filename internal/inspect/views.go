package inspect

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/a2acli/a2a/internal/redact"
)

// Summary is one row of the calls list (GET /_a2a/api/calls, and the "call" events of /_a2a/api/events).
type Summary struct {
	ID         int64   `json:"id"`
	Start      string  `json:"start"` // RFC 3339, UTC
	Method     string  `json:"method"`
	Binding    string  `json:"binding,omitempty"`
	Version    string  `json:"version,omitempty"`
	Task       string  `json:"task,omitempty"`
	Context    string  `json:"context,omitempty"`
	State      string  `json:"state,omitempty"`
	Status     string  `json:"status"` // open, ok or error
	Error      string  `json:"error,omitempty"`
	DurationMS float64 `json:"durationMs"` // so far, while open
	Bytes      int     `json:"bytes"`
	Events     int     `json:"events"`
	Source     string  `json:"source"` // live, or file for a loaded recording
	Gone       bool    `json:"gone,omitempty"`
}

// summary describes c; the hub's lock is held.
func (c *call) summary() Summary {
	s := Summary{ID: c.id, Start: c.start.UTC().Format(time.RFC3339Nano), Method: c.method, Binding: c.binding,
		Version: c.version, Task: dash(c.taskID), Context: c.contextID, State: dash(c.state), Error: c.errMsg,
		Bytes: c.bytes, Events: c.events, Source: c.source, Gone: c.gone, Status: "ok"}
	end := c.end
	switch {
	case c.open:
		s.Status, end = "open", time.Now()
	case c.errMsg != "":
		s.Status = "error"
	}
	s.DurationMS = float64(end.Sub(c.start).Microseconds()) / 1000
	if c.open {
		s.Events = len(c.evs) + c.lost
	}
	return s
}

func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// Detail is one call in full (GET /_a2a/api/calls/{id}): credentials redacted as the traffic log redacts them.
type Detail struct {
	Summary
	HTTPMethod string            `json:"httpMethod,omitempty"`
	Path       string            `json:"path,omitempty"`
	Headers    map[string]string `json:"headers"`
	Request    any               `json:"request,omitempty"` // JSON, or a string when it does not parse
	Events     []EventView       `json:"events"`
	Lost       int               `json:"lostEvents,omitempty"` // beyond what is kept per call
	Commands   Commands          `json:"commands"`
}

// EventView is one answer or stream event of a call.
type EventView struct {
	OffsetMS float64 `json:"offsetMs"` // since the call started
	Data     any     `json:"data"`     // JSON, or a string when it does not parse (cut short)
}

// Commands repeat a call from a shell.
type Commands struct {
	A2A  string `json:"a2a,omitempty"`
	Curl string `json:"curl,omitempty"`
}

// payload redacts raw JSON for display: valid JSON stays JSON, anything else becomes a string.
func payload(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	r := redact.JSON(raw)
	if json.Valid(r) {
		return json.RawMessage(r)
	}
	return string(r)
}

// headers renders a header map with credentials masked.
func headers(h map[string][]string) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = redact.Value(k, v, ", ")
	}
	return out
}

// filter is what GET /_a2a/api/calls selects by.
type filter struct {
	task, context, method, q string
	errors                   bool
	after                    int64
	limit                    int
}

func (f *filter) match(s *Summary) bool {
	if s.ID <= f.after || (f.task != "" && s.Task != f.task) || (f.context != "" && s.Context != f.context) ||
		(f.method != "" && s.Method != f.method) || (f.errors && s.Status != "error") {
		return false
	}
	if f.q == "" {
		return true
	}
	q := strings.ToLower(f.q)
	for _, v := range []string{s.Method, s.Task, s.Context, s.State, s.Error, s.Binding, s.Source} {
		if strings.Contains(strings.ToLower(v), q) {
			return true
		}
	}
	return false
}

// buckets are the upper bounds of the latency histogram, in milliseconds; the last bucket is open-ended.
var buckets = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// Stats is GET /_a2a/api/stats.
type Stats struct {
	Calls   int                   `json:"calls"`   // kept now
	Evicted int64                 `json:"evicted"` // forgotten to stay within bounds
	Dropped int64                 `json:"dropped"` // event-stream messages slow readers lost
	Readers int                   `json:"readers"` // event streams open
	Open    int                   `json:"openStreams"`
	Buckets []float64             `json:"bucketsMs"` // upper bounds; one more bucket counts the rest
	Latency map[string]*Histogram `json:"latency"`   // by method, of the ended calls kept
	Streams []openCount           `json:"streams"`   // open streams per second (the most during it)
}

// Histogram counts call durations.
type Histogram struct {
	Counts []int   `json:"counts"`
	Total  int     `json:"total"`
	P50MS  float64 `json:"p50Ms"`
	P95MS  float64 `json:"p95Ms"`
}

func (h *hub) stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sampleTo(time.Now().Unix())
	st := Stats{Calls: len(h.byID), Evicted: h.evicted, Dropped: h.dropped, Readers: len(h.subs), Open: h.open,
		Buckets: buckets, Latency: map[string]*Histogram{}, Streams: append([]openCount{}, h.samples...)}
	durs := map[string][]float64{}
	for _, c := range h.calls {
		if c.open || c.gone || c.source != "live" {
			continue
		}
		ms := float64(c.end.Sub(c.start).Microseconds()) / 1000
		hg := st.Latency[c.method]
		if hg == nil {
			hg = &Histogram{Counts: make([]int, len(buckets)+1)}
			st.Latency[c.method] = hg
		}
		hg.Counts[sort.SearchFloat64s(buckets, ms)]++
		hg.Total++
		durs[c.method] = append(durs[c.method], ms)
	}
	for m, d := range durs {
		sort.Float64s(d)
		st.Latency[m].P50MS = d[len(d)*50/100]
		st.Latency[m].P95MS = d[min(len(d)-1, len(d)*95/100)]
	}
	return st
}
