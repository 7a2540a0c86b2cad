package exitcode

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Exit codes, as docs/CONTRACT.md, "Errors and exit codes" states them.
const (
	OK          = 0
	Failure     = 1
	Usage       = 2
	Unreachable = 3
	Auth        = 4
	Timeout     = 5
	TaskFailed  = 6
	TaskPaused  = 7
	// CardSignature is --verify refusing a card that is not verified.
	CardSignature = 8
	Interrupted   = 130
)

// Our own error codes for the JSON error document.
const (
	CodeUsage              = "A2ACLI_ERR_USAGE"
	CodeCardNotFound       = "A2ACLI_ERR_CARD_NOT_FOUND"
	CodeCardInvalid        = "A2ACLI_ERR_CARD_INVALID"
	CodeUnreachable        = "A2ACLI_ERR_UNREACHABLE"
	CodeCredentialsMissing = "A2ACLI_ERR_CREDENTIALS_MISSING"
	CodeAuthFailed         = "A2ACLI_ERR_AUTH_FAILED"
	CodeTimeout            = "A2ACLI_ERR_TIMEOUT"
	CodeInterrupted        = "A2ANC_ERR_INTERRUPTED"
	CodeInternal           = "A2ACLI_ERR_INTERNAL"
	CodeTaskFailed         = "A2ANC_ERR_TASK_FAILED"
	CodeTaskPaused         = "A2ANC_ERR_TASK_INTERRUPTED"
	CodeStreamLost         = "A2ANC_ERR_STREAM_LOST"
	// CodeTooLarge is ours, not the specification's: the A2ACLI_ namespace is closed to new codes.
	CodeTooLarge = "A2ANC_ERR_RESPONSE_TOO_LARGE"
	// CodeCardSignature is --verify's refusal (ours too).
	CodeCardSignature = "A2ANC_ERR_CARD_SIGNATURE"
)

// Reported is a failure whose report is already on stdout (a conformance run in which a MUST failed): exit 1, and
// nothing more is printed.
type Reported struct{ Msg string }

func (e *Reported) Error() string { return e.Msg }

// TaskOutcome is the error of --fail when the task ended badly (exit TaskFailed) or stopped for input (TaskPaused).
type TaskOutcome struct {
	ID    a2a.TaskID
	State a2a.TaskState
	Exit  int
	Msg   string // ": " and the status message, if any
}

func (e *TaskOutcome) Error() string {
	verb := "ended"
	if e.Exit == TaskPaused {
		verb = "stopped at"
	}
	if e.ID == "" {
		return fmt.Sprintf("task %s %s%s", verb, output.ShortState(e.State), e.Msg)
	}
	return fmt.Sprintf("task %s %s %s%s", e.ID, verb, output.ShortState(e.State), e.Msg)
}

// Meaning is what an error means to the user: exit code, error code, hint, the A2A error code and the task it
// concerns.
type Meaning struct {
	Exit    int
	Code    string
	Hint    string
	A2ACode *int
	TaskID  string
	// Data is the data the agent sent with its error (client.DataError), compact JSON; nil when none.
	Data json.RawMessage
}

// Classify maps an error to its meaning. It is the only place that decides exit codes.
func Classify(err error) Meaning {
	var c Meaning
	var h *client.Hinted
	if errors.As(err, &h) {
		c.Hint = h.Hint
	}
	var de *client.DataError
	if errors.As(err, &de) {
		c.Data = de.Data
	}
	var lt *follow.LiveTaskError
	if errors.As(err, &lt) {
		c.TaskID = string(lt.ID)
	}
	set := func(exit int, code, hint string) Meaning {
		c.Exit, c.Code = exit, code
		if c.Hint == "" {
			c.Hint = hint
		}
		return c
	}
	var ue *client.UsageError
	var ce *client.CardError
	var he *client.HTTPStatusError
	var te *TaskOutcome
	var tl *client.ResponseTooLargeError
	var re *client.ResolveError
	var se *client.SignatureError
	var le *client.LoginError
	var cre *client.CredentialsError
	switch {
	case errors.As(err, &cre):
		return set(Auth, CodeCredentialsMissing, cre.Hint)
	case errors.As(err, &le):
		return set(Auth, CodeCredentialsMissing, "log in with: a2a auth login "+le.URL)
	case errors.As(err, &se):
		return set(CardSignature, CodeCardSignature, "pass --trust-keys with the agent's key set (JWKS file or URL) or public key, or drop --verify")
	case errors.As(err, &ue):
		cmd := "a2a"
		if ue.Cmd != "" {
			cmd = ue.Cmd
		}
		return set(Usage, CodeUsage, fmt.Sprintf("run '%s --help' for usage", cmd))
	case errors.As(err, &te):
		c.TaskID = string(te.ID)
		code := CodeTaskFailed
		if te.Exit == TaskPaused {
			code = CodeTaskPaused
		}
		return set(te.Exit, code, "")
	case errors.Is(err, client.ErrInterrupted):
		return set(Interrupted, CodeInterrupted, "")
	case lt != nil && lt.Lost:
		if client.IsUnreachable(err) {
			return set(Unreachable, CodeStreamLost, "")
		}
		return set(Failure, CodeStreamLost, "")
	case errors.Is(err, client.ErrTimeout):
		return set(Timeout, CodeTimeout, "raise --timeout, or use --timeout 0 for no limit")
	case errors.As(err, &he):
		return set(Auth, CodeAuthFailed, "check the credentials given with --auth")
	case errors.Is(err, a2a.ErrUnauthenticated), errors.Is(err, a2a.ErrUnauthorized):
		return set(Auth, CodeAuthFailed, "check the credentials given with --auth")
	case errors.As(err, &ce) && ce.Unauthorized:
		return set(Auth, CodeAuthFailed, ce.Hint)
	case errors.As(err, &ce):
		if ce.NotFound {
			return set(Unreachable, CodeCardNotFound, ce.Hint)
		}
		return set(Failure, CodeCardInvalid, ce.Hint)
	case errors.As(err, &tl):
		return set(Failure, CodeTooLarge, "raise --max-response-bytes if the agent is trusted (0: no limit)")
	case client.TLSProblem(err):
		hint, _ := client.TLSHint(err)
		return set(Unreachable, CodeUnreachable, hint)
	case errors.As(err, &re):
		return set(Unreachable, CodeUnreachable, "is the host name right? a local card file is named by its path (./card.json)")
	case client.IsUnreachable(err):
		return set(Unreachable, CodeUnreachable, "is the agent running, and is the URL right?")
	}
	var lv *client.LegacyVersionError
	if errors.As(err, &lv) {
		return set(Failure, "VersionNotSupportedError", "")
	}
	for _, pe := range client.ProtocolErrors {
		if errors.Is(err, pe.Err) {
			n := pe.Code
			c.A2ACode = &n
			return set(Failure, pe.Name, "")
		}
	}
	return set(Failure, CodeInternal, "")
}
