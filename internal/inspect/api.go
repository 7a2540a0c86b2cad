package inspect

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// maxList bounds one answer of GET /_a2a/api/calls.
const maxList = 10000

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the reader may be gone: nothing else to do
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg}})
}

// CallList is GET /_a2a/api/calls.
type CallList struct {
	Calls []Summary `json:"calls"`
	Last  int64     `json:"last"` // the newest call's id: ?after=last asks for what came since
}

// listCalls answers the kept calls, oldest first, selected by ?task= &context= &method= &errors=1 &q= &after=
// &limit= (the newest ones when more match).
func (in *Inspector) listCalls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := filter{task: q.Get("task"), context: q.Get("context"), method: q.Get("method"), q: q.Get("q"),
		errors: q.Get("errors") == "1" || q.Get("errors") == "true", limit: maxList}
	var err error
	if s := q.Get("after"); s != "" {
		if f.after, err = strconv.ParseInt(s, 10, 64); err != nil {
			apiError(w, http.StatusBadRequest, "invalid after: want a call id")
			return
		}
	}
	if s := q.Get("limit"); s != "" {
		if f.limit, err = strconv.Atoi(s); err != nil || f.limit < 1 {
			apiError(w, http.StatusBadRequest, "invalid limit: want a positive number")
			return
		}
	}
	h := in.hub
	out := CallList{Calls: []Summary{}}
	h.mu.Lock()
	for _, c := range h.calls {
		if c.gone {
			continue
		}
		s := c.summary()
		if f.match(&s) {
			out.Calls = append(out.Calls, s)
		}
	}
	out.Last = h.nextID
	h.mu.Unlock()
	if n := len(out.Calls) - f.limit; n > 0 {
		out.Calls = out.Calls[n:]
	}
	writeJSON(w, http.StatusOK, out)
}

func (in *Inspector) getCall(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid call id")
		return
	}
	h := in.hub
	h.mu.Lock()
	c := h.byID[id]
	var snap call
	var evs []event
	var sum Summary
	if c != nil {
		snap, evs, sum = *c, append([]event(nil), c.evs...), c.summary()
	}
	h.mu.Unlock()
	if c == nil {
		apiError(w, http.StatusNotFound, fmt.Sprintf("no call %d (calls are kept while there is room)", id))
		return
	}
	d := Detail{Summary: sum, HTTPMethod: snap.httpMethod, Path: snap.path, Headers: headers(snap.header),
		Request: payload(snap.body), Events: []EventView{}, Lost: snap.lost,
		Commands: commands(&snap, baseURL(r), in.opts.Token)}
	for _, e := range evs {
		d.Events = append(d.Events, EventView{OffsetMS: float64(e.at.Sub(snap.start).Microseconds()) / 1000, Data: payload(e.raw)})
	}
	writeJSON(w, http.StatusOK, d)
}

func baseURL(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

func (in *Inspector) getTask(w http.ResponseWriter, r *http.Request) {
	tl := in.hub.timeline(r.PathValue("id"))
	if tl == nil {
		apiError(w, http.StatusNotFound, "no kept call touched this task")
		return
	}
	writeJSON(w, http.StatusOK, tl)
}

func (in *Inspector) getStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, in.hub.stats())
}

func (in *Inspector) export(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/jsonl")
	w.Header().Set("Content-Disposition", `attachment; filename="session-`+time.Now().UTC().Format("20060102-150405")+`.jsonl"`)
	_ = in.hub.export(w) // the reader may be gone: nothing else to do
}

func (in *Inspector) importRecording(w http.ResponseWriter, r *http.Request) {
	n, err := in.hub.load(r.Body)
	if err != nil {
		apiError(w, http.StatusBadRequest, "load recording: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"calls": n})
}

// events streams the calls as they begin and end (event "call", a Summary), and tells a reader that fell
// behind how many messages it lost (event "dropped", {"dropped": n}): it should then re-read /_a2a/api/calls.
func (in *Inspector) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	s := in.hub.subscribe()
	defer in.hub.unsubscribe(s)
	finished := make(chan struct{})
	defer close(finished)
	go in.unblockOnClose(rc, finished)
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	var lost int64
	buf := []byte(": inspector\nretry: 2000\n\n")
	for {
		if d := in.hub.subDropped(s); d != lost {
			lost = d
			buf = fmt.Appendf(buf, "event: dropped\ndata: {\"dropped\":%d}\n\n", d)
		}
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
			buf = buf[:0]
		}
		select {
		case <-r.Context().Done():
			return
		case <-in.done:
			return
		case <-tick.C:
			buf = append(buf, ": ping\n\n"...)
		case msg := <-s.ch:
			buf = appendCall(buf, msg)
			for more := true; more && len(buf) < 64<<10; { // send what else is queued in the same write
				select {
				case msg := <-s.ch:
					buf = appendCall(buf, msg)
				default:
					more = false
				}
			}
		}
	}
}

// unblockOnClose ends a write blocked on a reader that does not read once the server shuts down, so that a stuck
// page never holds the shutdown up: the deadline is set again until the handler is done, since the guard's writer
// renews it before each write.
func (in *Inspector) unblockOnClose(rc *http.ResponseController, finished <-chan struct{}) {
	select {
	case <-in.done:
	case <-finished:
		return
	}
	for {
		_ = rc.SetWriteDeadline(time.Unix(1, 0)) // best effort: a connection without deadlines ends at Close
		select {
		case <-finished:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func appendCall(buf, msg []byte) []byte {
	buf = append(buf, "event: call\ndata: "...)
	buf = append(buf, msg...)
	return append(buf, "\n\n"...)
}
