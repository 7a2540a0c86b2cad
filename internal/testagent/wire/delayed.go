package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// DelayOptions configure a Delayed agent.
type DelayOptions struct {
	// Delay is how long after a request arrives its answer is written: SendMessage's completed task, a stream's
	// final event (the task submitted at once, working at Delay/2, completed at Delay), GetTask's task.
	Delay time.Duration
	// StallAt > 0 makes the StallAt-th SendMessage (counting from 1, streams included) freeze the agent for Stall:
	// no answer is written until the stall is over, as a garbage-collecting or overloaded agent does.
	StallAt int
	Stall   time.Duration
	// Errors > 0 answers every Errors-th SendMessage with HTTP 503 instead.
	Errors int
}

// Delayed (JSON-RPC, v1.0, streaming) is an agent whose answers take a known time, for measuring a load
// generator's accuracy: a benchmark's percentiles against a delay the test knows.
type Delayed struct {
	URL  string
	opts DelayOptions

	mu         sync.Mutex
	sends      int
	stallUntil time.Time
	served     []time.Duration
}

// StartDelayed starts a Delayed agent on 127.0.0.1:0 and stops it when the test ends.
func StartDelayed(t testing.TB, o DelayOptions) *Delayed {
	t.Helper()
	a := &Delayed{opts: o}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, cardOf("1.0", "delayed", "http://"+r.Host, ""))
	})
	mux.HandleFunc("POST /", a.serve)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Sends is the number of SendMessage and SendStreamingMessage calls so far.
func (a *Delayed) Sends() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sends
}

// Served is how long each SendMessage and stream took the agent, from its arrival to its last byte written: the
// truth a load generator's latencies are held to on a busy machine, where timers fire late.
func (a *Delayed) Served() []time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]time.Duration(nil), a.served...)
}

func (a *Delayed) done(at time.Time) {
	d := time.Since(at)
	a.mu.Lock()
	a.served = append(a.served, d)
	a.mu.Unlock()
}

// due is when an answer to a request that arrived at at may be written: at+d, or the end of a stall.
func (a *Delayed) due(at time.Time, d time.Duration, send bool) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fail := false
	if send {
		a.sends++
		if a.opts.StallAt > 0 && a.sends == a.opts.StallAt {
			a.stallUntil = at.Add(a.opts.Stall)
		}
		fail = a.opts.Errors > 0 && a.sends%a.opts.Errors == 0
	}
	t := at.Add(d)
	if a.stallUntil.After(t) {
		t = a.stallUntil
	}
	return t, fail
}

func waitUntil(r *http.Request, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (a *Delayed) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	var req rpcRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	send := req.Method == "SendMessage" || req.Method == "SendStreamingMessage"
	due, fail := a.due(at, a.opts.Delay, send)
	if fail {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
		return
	}
	id := "task-" + string(req.ID)
	if send {
		id = fmt.Sprintf("task-%d-%s", at.UnixNano(), jsonEscape(string(req.ID)))
	}
	task := func(state string) string {
		return `{"id":"` + id + `","contextId":"ctx","status":{"state":"` + state + `"}}`
	}
	switch req.Method {
	case "SendMessage":
		if waitUntil(r, due) {
			writeRPC(w, req.ID, `{"task":`+task("TASK_STATE_COMPLETED")+`}`, "")
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			a.done(at)
		}
	case "GetTask":
		id = jsonEscape(req.Params.ID)
		if waitUntil(r, due) {
			writeRPC(w, req.ID, task("TASK_STATE_COMPLETED"), "")
		}
	case "SendStreamingMessage":
		w.Header().Set("Content-Type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		event := func(result string) {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, result)
			if fl != nil {
				fl.Flush()
			}
		}
		status := func(state string) string {
			return `{"statusUpdate":{"taskId":"` + id + `","contextId":"ctx","status":{"state":"` + state + `"}}}`
		}
		first, _ := a.due(at, 0, false)
		half, _ := a.due(at, a.opts.Delay/2, false)
		if !waitUntil(r, first) {
			return
		}
		event(`{"task":` + task("TASK_STATE_SUBMITTED") + `}`)
		if !waitUntil(r, half) {
			return
		}
		event(status("TASK_STATE_WORKING"))
		if waitUntil(r, due) {
			event(status("TASK_STATE_COMPLETED"))
			a.done(at)
		}
	default:
		writeRPC(w, req.ID, "", `{"code":-32601,"message":"method not found"}`)
	}
}
