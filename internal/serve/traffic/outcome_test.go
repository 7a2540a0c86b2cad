package traffic

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestOutcome: a call whose caller went away logs that, not the error the cancellation caused; a stream that had
// reached its final state logs no error; a caller still there gets the error as it was.
func TestOutcome(t *testing.T) {
	upstream := errors.New("upstream: read tcp: i/o timeout")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(1, 0))
	defer cancel2()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		method string
		state  string
		want   string
	}{
		{"caller there", context.Background(), "SendMessage", "-", `error="upstream: read tcp: i/o timeout"`},
		{"caller hung up", canceled, "SendMessage", "-", `error="client closed the connection"`},
		{"caller's deadline", expired, "GetTask", "-", `error="client deadline exceeded"`},
		{"stream cut before its end", canceled, "SendStreamingMessage", "working", `error="client closed the connection"`},
		{"stream at its end", canceled, "SubscribeToTask", "input-required", ""},
	} {
		var out bytes.Buffer
		l := New(Config{W: &out})
		c := l.Record(tc.ctx, tc.method, "t1")
		c.Finish("t1", tc.state, 10, 2, upstream)
		line := out.String()
		if !strings.Contains(line, " "+tc.method+" task=t1 state="+tc.state+" ") {
			t.Fatalf("%s: line %q", tc.name, line)
		}
		if tc.want == "" && strings.Contains(line, "error=") || tc.want != "" && !strings.Contains(line, tc.want) {
			t.Errorf("%s: line %q, want %q", tc.name, line, tc.want)
		}
	}
}
