package replay

import (
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// decision is one confirmation answer found in a user message: Gemini's {callId, outcome} or the
// RFC's ToolCallConfirmation {tool_call_id, selected_option_id}.
type decision struct {
	shape  string // "gemini" or "rfc"
	callID string
	choice string // the outcome or the option id
}

// decisions lists the confirmation answers a message carries, in part order.
func decisions(m *a2a.Message) []decision {
	var out []decision
	for _, p := range m.Parts {
		d, ok := p.Data().(map[string]any)
		if !ok {
			continue
		}
		if outcome, ok := d["outcome"].(string); ok {
			id, _ := d["callId"].(string)
			out = append(out, decision{shape: "gemini", callID: id, choice: outcome})
			continue
		}
		if opt, ok := d["selected_option_id"].(string); ok {
			id, _ := d["tool_call_id"].(string)
			out = append(out, decision{shape: "rfc", callID: id, choice: opt})
		}
	}
	return out
}

// matchesUser tells whether the client's message got answers the recorded user message want: a
// message without confirmation answers matches any message without them (whatever its text); a
// confirmation answer matches an answer of the same shape with the same decision (outcome or
// option id), part by part. Call ids are not compared: a client answers the ids it was shown.
func matchesUser(want, got *a2a.Message) bool {
	wd, gd := decisions(want), decisions(got)
	if len(wd) != len(gd) {
		return false
	}
	for i := range wd {
		if wd[i].shape != gd[i].shape || wd[i].choice != gd[i].choice {
			return false
		}
	}
	return true
}

// expectsAnswer tells whether the recorded user message is a confirmation answer, i.e. the
// recording waits for permission at that point.
func expectsAnswer(want *a2a.Message) bool { return len(decisions(want)) > 0 }
