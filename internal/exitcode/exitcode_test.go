package exitcode

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
)

// TestClassify: each class of error the CLI meets, wrapped as the verbs wrap it, means one exit code and one error
// code; a task the error concerns is named. The verb tests (internal/cli) check the same end to end.
func TestClassify(t *testing.T) {
	t.Parallel()
	refused := fmt.Errorf("send: %w", &client.Hinted{Err: syscall.ECONNREFUSED, Hint: ""})
	cases := []struct {
		name   string
		err    error
		exit   int
		code   string
		taskID string
		a2a    int
	}{
		{"usage", &client.UsageError{Msg: "missing <url>"}, Usage, CodeUsage, "", 0},
		{"timeout", fmt.Errorf("call: %w", client.ErrTimeout), Timeout, CodeTimeout, "", 0},
		{"interrupted", client.ErrInterrupted, Interrupted, CodeInterrupted, "", 0},
		{"wait expired names the task", (&follow.Env{}).GiveUp("u", "t1", a2a.TaskStateWorking, false, follow.ErrWaitExpired), Timeout, CodeTimeout, "t1", 0},
		{"task paused under --fail", &TaskOutcome{ID: "t2", State: a2a.TaskStateInputRequired, Exit: TaskPaused}, TaskPaused, CodeTaskPaused, "t2", 0},
		{"task failed under --fail", &TaskOutcome{ID: "t3", State: a2a.TaskStateFailed, Exit: TaskFailed}, TaskFailed, CodeTaskFailed, "t3", 0},
		{"stream lost", (&follow.Env{}).GiveUp("u", "t4", a2a.TaskStateWorking, true, errors.New("EOF")), Failure, CodeStreamLost, "t4", 0},
		{"too large", client.TooLarge(1 << 20), Failure, CodeTooLarge, "", 0},
		{"card not found", &client.CardError{URL: "u", NotFound: true}, Unreachable, CodeCardNotFound, "", 0},
		{"card invalid", &client.CardError{URL: "u", Err: errors.New("bad")}, Failure, CodeCardInvalid, "", 0},
		{"unauthenticated", fmt.Errorf("get: %w", a2a.ErrUnauthenticated), Auth, CodeAuthFailed, "", 0},
		{"task not found", fmt.Errorf("get task: %w", a2a.ErrTaskNotFound), Failure, "TaskNotFoundError", "", -32001},
		{"unreachable", refused, Unreachable, CodeUnreachable, "", 0},
		{"anything else", errors.New("boom"), Failure, CodeInternal, "", 0},
	}
	for _, tc := range cases {
		m := Classify(tc.err)
		if m.Exit != tc.exit || m.Code != tc.code || m.TaskID != tc.taskID {
			t.Errorf("%s: Classify = exit %d code %s task %q, want %d %s %q", tc.name, m.Exit, m.Code, m.TaskID, tc.exit, tc.code, tc.taskID)
		}
		if (tc.a2a != 0) != (m.A2ACode != nil) || (m.A2ACode != nil && *m.A2ACode != tc.a2a) {
			t.Errorf("%s: A2A code %v, want %d", tc.name, m.A2ACode, tc.a2a)
		}
	}
}

// TestRefusedIsFailure: follow.Refused, which decides whether a refused follow-up's task is followed, holds for the
// errors a call that sent a message can end with exactly when Classify calls them Failure (the agent answered).
func TestRefusedIsFailure(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		fmt.Errorf("call: %w", client.ErrTimeout),
		client.ErrInterrupted,
		fmt.Errorf("send: %w", &client.Hinted{Err: syscall.ECONNREFUSED}),
		&client.HTTPStatusError{Code: 401, Status: "401 Unauthorized"},
		&client.HTTPStatusError{Code: 502, Status: "502 Bad Gateway"},
		fmt.Errorf("send: %w", a2a.ErrUnauthenticated),
		fmt.Errorf("send: %w", a2a.ErrUnauthorized),
		&client.LoginError{URL: "u", Msg: "renewal failed"},
		&client.CredentialsError{Hint: "pass --auth"},
		fmt.Errorf("send: %w", a2a.ErrUnsupportedOperation),
		fmt.Errorf("send: %w", a2a.ErrTaskNotFound),
		fmt.Errorf("send: %w", a2a.ErrInvalidParams),
		client.TooLarge(1 << 20),
		errors.New("task execution is already in progress"),
	} {
		if got, want := follow.Refused(err), Classify(err).Exit == Failure; got != want {
			t.Errorf("follow.Refused(%v) = %v, Classify says exit %d", err, got, Classify(err).Exit)
		}
	}
}
