package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/redact"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Exit codes, as the README and CONTRACT.md state them.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitUnreachable = 3
	exitAuth        = 4
	exitTimeout     = 5
	exitTaskFailed  = 6
	exitTaskPaused  = 7
	exitInterrupted = 130
)

// Our own error codes for the JSON error document.
const (
	codeUsage              = "A2ACLI_ERR_USAGE"
	codeCardNotFound       = "A2ACLI_ERR_CARD_NOT_FOUND"
	codeCardInvalid        = "A2ACLI_ERR_CARD_INVALID"
	codeUnreachable        = "A2ACLI_ERR_UNREACHABLE"
	codeCredentialsMissing = "A2ACLI_ERR_CREDENTIALS_MISSING"
	codeAuthFailed         = "A2ACLI_ERR_AUTH_FAILED"
	codeTimeout            = "A2ACLI_ERR_TIMEOUT"
	codeInterrupted        = "A2ANC_ERR_INTERRUPTED"
	codeInternal           = "A2ACLI_ERR_INTERNAL"
	codeTaskFailed         = "A2ANC_ERR_TASK_FAILED"
	codeTaskPaused         = "A2ANC_ERR_TASK_INTERRUPTED"
	codeStreamLost         = "A2ANC_ERR_STREAM_LOST"
	// codeTooLarge is ours, not the specification's: the A2ACLI_ namespace is closed to new codes.
	codeTooLarge = "A2ANC_ERR_RESPONSE_TOO_LARGE"
)

// taskOutcomeError is returned under --fail when the task ended badly (6) or stopped for input (7).
type taskOutcomeError struct {
	state a2a.TaskState
	code  int
}

func (e *taskOutcomeError) Error() string {
	return fmt.Sprintf("task ended %s", shortState(e.state))
}

// classified is what an error means to the user: exit code, error code, hint, the task it concerns.
type classified struct {
	exit    int
	code    string
	hint    string
	a2aCode *int
	taskID  string
}

// classify maps an error to its exit code and error code. It is the only place that decides exit codes.
func classify(err error) classified {
	var c classified
	var h *client.Hinted
	if errors.As(err, &h) {
		c.hint = h.Hint
	}
	var lt *follow.LiveTaskError
	if errors.As(err, &lt) {
		c.taskID = string(lt.ID)
	}
	set := func(exit int, code, hint string) classified {
		c.exit, c.code = exit, code
		if c.hint == "" {
			c.hint = hint
		}
		return c
	}
	var ue *client.UsageError
	var ce *client.CardError
	var he *client.HTTPStatusError
	var te *taskOutcomeError
	var tl *client.ResponseTooLargeError
	switch {
	case errors.As(err, &ue):
		cmd := "a2a"
		if ue.Cmd != "" {
			cmd = ue.Cmd
		}
		return set(exitUsage, codeUsage, fmt.Sprintf("run '%s --help' for usage", cmd))
	case errors.As(err, &te):
		code := codeTaskFailed
		if te.code == exitTaskPaused {
			code = codeTaskPaused
		}
		return set(te.code, code, "")
	case errors.Is(err, client.ErrInterrupted):
		return set(exitInterrupted, codeInterrupted, "")
	case lt != nil && lt.Lost:
		if client.IsUnreachable(err) {
			return set(exitUnreachable, codeStreamLost, "")
		}
		return set(exitFailure, codeStreamLost, "")
	case errors.Is(err, client.ErrTimeout):
		return set(exitTimeout, codeTimeout, "raise --timeout, or use --timeout 0 for no limit")
	case errors.Is(err, errCredentialsMissing):
		return set(exitAuth, codeCredentialsMissing, "pass credentials with --auth \"Bearer <token>\"")
	case errors.As(err, &he):
		return set(exitAuth, codeAuthFailed, "check the credentials given with --auth")
	case errors.Is(err, a2a.ErrUnauthenticated), errors.Is(err, a2a.ErrUnauthorized):
		return set(exitAuth, codeAuthFailed, "check the credentials given with --auth")
	case errors.As(err, &ce):
		if ce.NotFound {
			return set(exitUnreachable, codeCardNotFound, ce.Hint)
		}
		return set(exitFailure, codeCardInvalid, ce.Hint)
	case errors.As(err, &tl):
		return set(exitFailure, codeTooLarge, "raise --max-response-bytes if the agent is trusted (0: no limit)")
	case client.TLSProblem(err):
		hint, _ := client.TLSHint(err)
		return set(exitUnreachable, codeUnreachable, hint)
	case client.IsUnreachable(err):
		return set(exitUnreachable, codeUnreachable, "is the agent running, and is the URL right?")
	}
	for _, pe := range client.ProtocolErrors {
		if errors.Is(err, pe.Err) {
			n := pe.Code
			c.a2aCode = &n
			return set(exitFailure, pe.Name, "")
		}
	}
	return set(exitFailure, codeInternal, "")
}

var errCredentialsMissing = errors.New("the agent requires credentials")

// hasCredentials reports whether the user gave any credential: --auth, --bearer, --api-key or a credential service
// parameter.
func (o *globalOptions) hasCredentials() bool {
	if o.Auth != "" || o.Bearer != "" || o.APIKey != "" {
		return true
	}
	for _, kv := range o.SvcParams {
		if k, _, _ := strings.Cut(kv, "="); redact.Sensitive(strings.TrimSpace(k)) {
			return true
		}
	}
	return false
}
