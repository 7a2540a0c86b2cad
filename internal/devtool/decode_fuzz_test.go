package devtool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// FuzzDecode: any event an agent streams (decoded from any StreamResponse JSON) is decoded without a panic,
// the same way every time, and an event that never mentions the extension (neither Gemini's key nor the
// RFC's URI) is never taken for development-tool traffic, but for Gemini's live shell output, known by
// its artifact id alone.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"data":{"request":{"callId":"1","name":"write_file"},"status":"awaiting_approval"}}]}},"metadata":{"coderAgent":{"kind":"tool-call-confirmation"}}}}`))
	f.Add([]byte(`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED"},"metadata":{"coderAgent":{"kind":"state-change"},"model":"m"}}}`))
	f.Add([]byte(`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"data":{"kind":"THOUGHT","thought":{"subject":"s"}}}],"metadata":{"https://a2a-protocol.org/extensions/development-tool/v1":{"kind":5}}}}}`))
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"plain"}]}}`))
	f.Add([]byte(`{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var sr a2a.StreamResponse
		if json.Unmarshal(data, &sr) != nil || sr.Event == nil {
			return
		}
		ups, ok := decodeOK(sr.Event)
		ups2, ok2 := decodeOK(sr.Event)
		if ok != ok2 || !reflect.DeepEqual(ups, ups2) {
			t.Fatalf("Decode differs between two calls:\n%v %s\n%v %s", ok, show(ups), ok2, show(ups2))
		}
		if ok && !liveOutput(sr.Event) && !bytes.Contains(data, []byte(geminiKey)) && !bytes.Contains(data, []byte(URI)) &&
			!bytes.Contains(data, []byte(`\u`)) {
			t.Fatalf("Decode(%s) took an event that never names the extension for development-tool traffic", data)
		}
	})
}

// show prints updates with what their pointers point to.
func show(ups []Update) string {
	var b bytes.Buffer
	for _, u := range ups {
		fmt.Fprintf(&b, "%+v", u)
		if u.Tool != nil {
			fmt.Fprintf(&b, " tool %+v", *u.Tool)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// liveOutput reports whether ev is an artifact update named like Gemini's live shell output.
func liveOutput(ev a2a.Event) bool {
	u, ok := ev.(*a2a.TaskArtifactUpdateEvent)
	if !ok || u.Artifact == nil {
		return false
	}
	id := string(u.Artifact.ID)
	return strings.HasPrefix(id, "tool-") && strings.HasSuffix(id, "-output")
}

// decodeOK reports what one event carries; ok is false when the event is not development-tool traffic.
func decodeOK(ev a2a.Event) (updates []Update, ok bool) {
	ups, shape := decode(ev)
	return ups, shape != Plain
}
