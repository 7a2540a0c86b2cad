package devtool

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestHistoryShape(t *testing.T) {
	t.Parallel()
	agent := func(d map[string]any) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewDataPart(d)) }
	tests := []struct {
		name string
		h    []*a2a.Message
		want Shape
	}{
		{"empty", nil, Plain},
		{"gemini", []*a2a.Message{agent(map[string]any{"subject": "s"}), agent(map[string]any{"request": map[string]any{"callId": "c1"}})}, Gemini},
		{"rfc", []*a2a.Message{agent(map[string]any{"tool_call_id": "c1"})}, RFC},
		{"user data ignored", []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"tool_call_id": "c1"}))}, Plain},
	}
	for _, tt := range tests {
		if got := HistoryShape(tt.h); got != tt.want {
			t.Errorf("HistoryShape(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestStreamWatchedIgnoredAnswer guards the idle watchdog: an agent that ignores an answer sends headers and then
// nothing; the wait must end with errAnswerIgnored instead of hanging.
