package inspect

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"github.com/a2acli/a2a/internal/serve"
)

// Bounds of what the hub keeps: the oldest calls go first.
const (
	maxCalls      = 10000
	maxKeptBytes  = 64 << 20  // request and event bytes of all calls kept
	maxCallEvents = 2000      // events kept per call (and half of maxKeptBytes); the rest are counted
	maxEventBytes = 256 << 10 // of one event or request body; longer ones are cut (and show as text)
	subBuffer     = 1024      // messages queued per event-stream reader before it starts losing them
	streamSamples = 900       // seconds of open-stream counts kept
)

// call is one observed call.
type call struct {
	id                       int64
	start, end               time.Time
	method, binding, version string
	taskID, contextID, state string
	errMsg                   string
	bytes, events            int
	httpMethod, path         string
	header                   map[string][]string
	body                     []byte
	evs                      []event
	lost                     int  // events beyond maxCallEvents
	open                     bool // not ended yet
	gone                     bool // handed to the decoding path, which reports it again
	source                   string
	size                     int // bytes kept
}

type event struct {
	at  time.Time
	raw []byte
}

// hub keeps the recent calls and fans their summaries out to event-stream readers.
type hub struct {
	mu      sync.Mutex
	calls   []*call // oldest first
	byID    map[int64]*call
	nextID  int64
	kept    int
	subs    map[*sub]bool
	dropped int64 // messages lost by slow readers, all readers together
	evicted int64 // calls forgotten to stay within bounds

	open, peak int         // streams open now, and the most during the current second
	sampleAt   int64       // the unix second being sampled
	samples    []openCount // oldest first
}

type openCount struct {
	T    int64 `json:"t"` // unix seconds
	Open int   `json:"open"`
}

// sub is one event-stream reader.
type sub struct {
	ch      chan []byte
	dropped int64 // guarded by hub.mu
}

func newHub() *hub {
	return &hub{byID: map[int64]*call{}, subs: map[*sub]bool{}}
}

func streaming(method string) bool {
	return method == "SendStreamingMessage" || method == "SubscribeToTask"
}

// Begin implements serve.Observer.
func (h *hub) Begin(s serve.CallStart) serve.CallWatch {
	c := &call{start: s.Time, method: s.Method, binding: string(s.Binding), version: s.Version, taskID: s.TaskID,
		httpMethod: s.HTTPMethod, path: s.Path, header: s.Header, body: cut(s.Body), open: true, source: "live"}
	c.contextID = contextOf(s.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.add(c)
	if streaming(c.method) {
		h.streamDelta(c.start, 1)
	}
	h.publish(c)
	return &watch{h: h, c: c}
}

// add files a call, forgetting the oldest ones beyond the bounds. h.mu is held.
func (h *hub) add(c *call) {
	h.nextID++
	c.id = h.nextID
	c.size = len(c.body) + headerSize(c.header)
	h.kept += c.size
	h.calls = append(h.calls, c)
	h.byID[c.id] = c
	h.evict()
}

// evict forgets the oldest calls while over a bound, down to 90% of it, so that the copy below happens once per many
// calls; the newest call stays. h.mu is held.
func (h *hub) evict() {
	if len(h.calls) <= maxCalls && h.kept <= maxKeptBytes {
		return
	}
	n := 0
	for len(h.calls)-n > 1 && (len(h.calls)-n > maxCalls*9/10 || h.kept > maxKeptBytes*9/10) {
		old := h.calls[n]
		h.kept -= old.size
		delete(h.byID, old.id)
		n++
	}
	h.evicted += int64(n)
	h.calls = append(h.calls[:0:0], h.calls[n:]...)
}

// watch follows one call for the hub.
type watch struct {
	h *hub
	c *call
}

// Event implements serve.CallWatch.
func (w *watch) Event(raw []byte) {
	raw = cut(raw)
	now := time.Now()
	h, c := w.h, w.c
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.contextID == "" {
		c.contextID = contextOf(raw)
	}
	// One call keeps at most maxCallEvents events and half the byte bound: a long stream cannot push every
	// other call out.
	if len(c.evs) >= maxCallEvents || c.size+len(raw) > maxKeptBytes/2 || h.byID[c.id] == nil {
		c.lost++
		return
	}
	c.evs = append(c.evs, event{at: now, raw: raw})
	c.size += len(raw)
	h.kept += len(raw)
	h.evict()
}

// End implements serve.CallWatch.
func (w *watch) End(e serve.CallEnd) {
	h, c := w.h, w.c
	h.mu.Lock()
	defer h.mu.Unlock()
	if !c.open {
		return
	}
	c.open, c.end = false, e.Time
	c.taskID, c.state, c.bytes, c.events = e.TaskID, e.State, e.Bytes, e.Events
	if e.Err != nil {
		c.errMsg = e.Err.Error()
	}
	if streaming(c.method) {
		h.streamDelta(e.Time, -1)
	}
	if e.Handed {
		c.gone = true
		if h.byID[c.id] == c {
			delete(h.byID, c.id)
		}
	}
	h.publish(c)
}

// publish queues a call's summary for every reader, dropping (and counting) it for a reader whose queue is
// full: a slow browser never slows a call. h.mu is held.
func (h *hub) publish(c *call) {
	if len(h.subs) == 0 {
		return
	}
	msg, err := json.Marshal(c.summary())
	if err != nil {
		return
	}
	for s := range h.subs {
		select {
		case s.ch <- msg:
		default:
			s.dropped++
			h.dropped++
		}
	}
}

func (h *hub) subscribe() *sub {
	s := &sub{ch: make(chan []byte, subBuffer)}
	h.mu.Lock()
	h.subs[s] = true
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// subDropped is what s lost so far.
func (h *hub) subDropped(s *sub) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return s.dropped
}

// streamDelta counts a stream opening (+1) or ending (-1) at t, sampling the open count per second. h.mu is held.
func (h *hub) streamDelta(t time.Time, d int) {
	h.sampleTo(t.Unix())
	h.open += d
	h.peak = max(h.peak, h.open)
}

// sampleTo closes the seconds before sec. h.mu is held.
func (h *hub) sampleTo(sec int64) {
	if h.sampleAt == 0 {
		h.sampleAt, h.peak = sec, h.open
		return
	}
	for ; h.sampleAt < sec; h.sampleAt++ {
		h.samples = append(h.samples, openCount{T: h.sampleAt, Open: h.peak})
		h.peak = h.open
		if sec-h.sampleAt > streamSamples { // a long quiet spell: skip to the kept window
			h.sampleAt = sec - streamSamples
		}
	}
	if n := len(h.samples) - streamSamples; n > 0 {
		h.samples = append(h.samples[:0:0], h.samples[n:]...)
	}
}

// cut bounds a kept payload, and copies it: a slice of the caller's buffer would keep the whole buffer (a 4 MB
// request behind 256 KB, or an encoder's buffer reused for the next event), and the hub's byte bound counts only
// what it keeps.
func cut(b []byte) []byte {
	if b == nil {
		return nil
	}
	return bytes.Clone(b[:min(len(b), maxEventBytes)])
}

// headerSize is about what a kept header holds: its names and values.
func headerSize(h map[string][]string) int {
	n := 0
	for k, vs := range h {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return n
}

var contextKey = []byte(`"contextId"`)

// contextOf finds the first contextId in a JSON payload without decoding it.
func contextOf(b []byte) string {
	i := bytes.Index(b, contextKey)
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(b[i+len(contextKey):], " \t\r\n")
	rest, ok := bytes.CutPrefix(rest, []byte(":"))
	if !ok {
		return ""
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++ // skip the escaped byte
		case '"':
			var s string
			if json.Unmarshal(rest[:i+1], &s) != nil {
				return ""
			}
			return s
		}
	}
	return ""
}
