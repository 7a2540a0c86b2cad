package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// list: CORE-LIST-002/003/004/006 over two tasks of one context the run makes, so it sees only its own tasks.
func (r *runner) list(ctx context.Context, b *binding, o *own) {
	ids := []string{"CORE-LIST-002", "CORE-LIST-003", "CORE-LIST-004", "CORE-LIST-006"}
	if !r.want(ids...) {
		return
	}
	skipAll := func(why string) {
		for _, id := range ids {
			r.record(id, b.name, skip(why))
		}
	}
	if b.v03 {
		skipAll("v0.3 has no ListTasks")
		return
	}
	first := o.done
	if first == nil || !first.Status.State.Terminal() {
		skipAll("needs a finished task of the run (the agent made none)")
		return
	}
	if first.ContextID == "" {
		// Listing without a context would show tasks that are not the run's.
		skipAll("the run's task has no contextId to list by")
		return
	}
	m := r.probe("a2a-conformance", "a2a conformance: second task of the context")
	m.ContextID = first.ContextID
	res, err, ok := r.send(ctx, b, m, nil)
	if !ok {
		skipAll(budgetSpent)
		return
	}
	second, isTask := res.(*a2a.Task)
	if err != nil || !isTask || second.ID == first.ID {
		skipAll("a second task in the context could not be made: " + describe(res) + " " + errText(err))
		return
	}
	o.tasks = append(o.tasks, second)
	if !r.spend(3) {
		skipAll(budgetSpent)
		return
	}
	call := func(req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
		cctx, cancel := r.callCtx(ctx)
		defer cancel()
		return b.c.ListTasks(cctx, req)
	}
	sent := fmt.Sprintf("ListTasks contextId=%s pageSize=1", first.ContextID)
	p1, err := call(&a2a.ListTasksRequest{ContextID: first.ContextID, PageSize: 1})
	if err != nil {
		for _, id := range ids {
			r.record(id, b.name, fail(sent, errText(err), "ListTasks must answer"))
		}
		return
	}
	if len(p1.Tasks) != 1 || p1.NextPageToken == "" {
		r.record("CORE-LIST-002", b.name, fail(sent, fmt.Sprintf("%d task(s), nextPageToken %q", len(p1.Tasks), p1.NextPageToken), "want 1 task and a cursor to the next page (the context has 2)"))
		return
	}
	sent2 := sent + " pageToken=" + p1.NextPageToken
	p2, err := call(&a2a.ListTasksRequest{ContextID: first.ContextID, PageSize: 1, PageToken: p1.NextPageToken})
	switch {
	case err != nil:
		r.record("CORE-LIST-002", b.name, fail(sent2, errText(err), "the cursor must lead to the next page"))
		return
	case len(p2.Tasks) != 1 || p2.Tasks[0].ID == p1.Tasks[0].ID:
		r.record("CORE-LIST-002", b.name, fail(sent2, fmt.Sprintf("%d task(s)", len(p2.Tasks)), "want the other task of the context"))
		return
	}
	r.record("CORE-LIST-002", b.name, pass("two pages of one task each"))
	if p2.NextPageToken != "" {
		r.record("CORE-LIST-004", b.name, fail(sent2, "nextPageToken "+p2.NextPageToken, "the last page's nextPageToken must be empty"))
	} else {
		r.record("CORE-LIST-004", b.name, pass(`last page's nextPageToken ""`))
	}
	a, z := p1.Tasks[0], p2.Tasks[0]
	if a.Status.Timestamp != nil && z.Status.Timestamp != nil && a.Status.Timestamp.Before(*z.Status.Timestamp) {
		r.record("CORE-LIST-003", b.name, fail(sent, fmt.Sprintf("%s at %s before %s at %s", a.ID, a.Status.Timestamp, z.ID, z.Status.Timestamp), "newest first"))
	} else {
		r.record("CORE-LIST-003", b.name, pass("newest first"))
	}
	other := a2a.TaskStateFailed
	if first.Status.State == other {
		other = a2a.TaskStateCompleted
	}
	// No pageSize: over gRPC the client's transport asks for the specification's default (client.grpcPageSize).
	sent3 := fmt.Sprintf("ListTasks contextId=%s status=%s", first.ContextID, other)
	p3, err := call(&a2a.ListTasksRequest{ContextID: first.ContextID, Status: other})
	switch {
	case err != nil:
		r.record("CORE-LIST-006", b.name, fail(sent3, errText(err), "ListTasks must filter"))
	default:
		for _, t := range p3.Tasks {
			if t.Status.State != other || t.ContextID != first.ContextID {
				r.record("CORE-LIST-006", b.name, fail(sent3, describe(t), "a task outside the filter was listed"))
				return
			}
		}
		r.record("CORE-LIST-006", b.name, pass(fmt.Sprintf("%d task(s) in state %s", len(p3.Tasks), other)))
		if len(p3.Tasks) == 0 && b.iface.ProtocolBinding == a2a.TransportProtocolHTTPJSON {
			r.restEmptyList(ctx, b, first.ContextID, other)
		}
	}
}

// restEmptyList: an empty page is still a ListTasksResponse, whose tasks the JSON schema makes an array: read raw,
// as a2a-go's client takes "tasks": null for empty. The TCK validates every ListTasks answer of its CORE-LIST-002,
// 003 and 004 tests against the schema, so a null fails those three here too.
func (r *runner) restEmptyList(ctx context.Context, b *binding, contextID string, state a2a.TaskState) {
	base := strings.TrimSuffix(b.iface.URL, "/")
	if b.iface.Tenant != "" {
		base += "/" + b.iface.Tenant
	}
	u := base + "/tasks?" + url.Values{"contextId": {contextID}, "status": {string(state)}}.Encode()
	sent := "GET " + u
	if !r.spend(1) {
		return
	}
	resp, data, err := r.rawCall(ctx, http.MethodGet, u, string(b.iface.ProtocolVersion), nil)
	var page struct {
		Tasks json.RawMessage `json:"tasks"`
	}
	var why, got string
	switch {
	case err != nil:
		why, got = "ListTasks must answer", errText(err)
	case resp.StatusCode != http.StatusOK:
		why, got = "ListTasks must answer an empty page", resp.Status+" "+string(data)
	case json.Unmarshal(data, &page) != nil:
		why, got = "a ListTasksResponse is a JSON object", string(data)
	case len(page.Tasks) == 0 || page.Tasks[0] != '[':
		why, got = `"tasks" is an array, [] for an empty page (the specification's JSON schema)`, string(data)
	default:
		return
	}
	for _, id := range []string{"CORE-LIST-002", "CORE-LIST-003", "CORE-LIST-004"} {
		r.record(id, b.name, fail(sent, got, why))
	}
}
