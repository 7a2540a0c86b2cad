package mcpbridge

import (
	"strings"
	"testing"
)

// A request state comes back from the host: one this process did not sign (forged, altered, another process's)
// is refused, so a host cannot make the bridge answer a task it never asked about.
func TestRequestStateSigned(t *testing.T) {
	t.Parallel()
	b := &Bridge{stateKey: newStateKey(), agents: []*agent{{}, {}}}
	good := b.sign(pending{Agent: 1, TaskID: "t-1", ContextID: "c-1"})
	p, err := b.verify(good)
	if err != nil || p.Agent != 1 || p.TaskID != "t-1" || p.ContextID != "c-1" {
		t.Fatalf("verify(sign(...)) = %+v, %v", p, err)
	}
	other := &Bridge{stateKey: newStateKey(), agents: b.agents}
	body, sig, _ := strings.Cut(good, ".")
	for _, bad := range []string{"", "x", good + "x", body + ".", "e30." + sig, other.sign(pending{TaskID: "t-1"}),
		b.sign(pending{Agent: 5, TaskID: "t"}), b.sign(pending{Agent: -1, TaskID: "t"})} {
		if p, err := b.verify(bad); err == nil {
			t.Errorf("verify(%q) = %+v, want an error", bad, p)
		}
	}
}
