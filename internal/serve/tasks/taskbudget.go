package tasks

import "github.com/a2aproject/a2a-go/v2/a2a"

// What one task may keep, whatever its callers and its agent send: a client that sends many small messages to one
// task (a v0.3 caller may reopen a finished one; an input-required task takes turn after turn), or an agent that
// makes many artifacts, costs about partOverhead bytes an item besides the payload. The history keeps at most
// maxHistory messages costing at most maxArtifactBytes together (messageCost), the artifacts at most maxArtifacts
// costing as much (artifactCost; see artbudget.go). Past a bound the oldest go (the newest is always kept), and the
// task's metadata counts them. A running task is bounded as a finished one: retention (retention.go) never drops it.
const (
	maxHistory   = 1000
	maxArtifacts = 1000

	historyDroppedKey   = "a2a-cli/history-dropped"   // task metadata: the history messages not kept
	artifactsDroppedKey = "a2a-cli/artifacts-dropped" // task metadata: the artifacts not kept
)

// countDropped adds n to the count under key in t's metadata.
func countDropped(t *a2a.Task, key string, n int64) {
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	prev, _ := t.Metadata[key].(int64)
	t.Metadata[key] = prev + n
}

// boundHistoryLocked keeps r's history within its bounds after a change. It counts only the messages added since it
// last ran (r.histCounted, r.histLast), unless the history was replaced as a whole, so a task costs O(1) a message.
// Called with s.mu held.
func (s *Store) boundHistoryLocked(r *record) {
	h := r.task.History
	if r.histCounted > len(h) || (r.histCounted > 0 && h[r.histCounted-1] != r.histLast) {
		r.histCounted, r.histBytes = 0, 0 // replaced (a stored task loaded, an upstream's task applied)
	}
	for _, m := range h[r.histCounted:] {
		r.histBytes += messageCost(m)
	}
	n := 0
	for n < len(h)-1 && (len(h)-n > maxHistory || (s.maxArtifactBytes > 0 && r.histBytes > s.maxArtifactBytes)) {
		r.histBytes -= messageCost(h[n])
		n++
	}
	if n > 0 {
		clear(h[:n]) // snapshots copy the slice: no one else sees these slots
		h = h[n:]
		r.task.History = h
		countDropped(r.task, historyDroppedKey, int64(n))
	}
	r.histCounted, r.histLast = len(h), nil
	if len(h) > 0 {
		r.histLast = h[len(h)-1]
	}
}
