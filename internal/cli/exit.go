package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/redact"
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

var (
	errTimeout     = errors.New("timeout expired")
	errInterrupted = errors.New("interrupted")
)

// usageError is a bad flag, argument or combination. cmd names the command for the help hint.
type usageError struct {
	msg string
	cmd string
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// cardError is a card that could not be found (notFound) or read.
type cardError struct {
	url      string
	notFound bool
	err      error
	hint     string
}

func (e *cardError) Error() string {
	if e.notFound {
		return fmt.Sprintf("agent card not found at %s: %v", e.url, e.err)
	}
	return fmt.Sprintf("invalid agent card from %s: %v", e.url, e.err)
}

func (e *cardError) Unwrap() error { return e.err }

// httpStatusError is an HTTP response that refused the request (401, 403) before any A2A payload was read.
type httpStatusError struct {
	code   int
	status string
	body   string
}

func (e *httpStatusError) Error() string {
	if e.body != "" {
		return fmt.Sprintf("HTTP %s: %s", e.status, e.body)
	}
	return "HTTP " + e.status
}

// unreachableError marks a connection-level failure from a transport that does not expose net errors (gRPC).
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// taskOutcomeError is returned under --fail when the task ended badly (6) or stopped for input (7).
type taskOutcomeError struct {
	state a2a.TaskState
	code  int
}

func (e *taskOutcomeError) Error() string {
	return fmt.Sprintf("task ended %s", shortState(e.state))
}

// hinted attaches a hint line to an error.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: hint}
}

// protocolErrors maps the A2A error sentinels to their protocol names and JSON-RPC codes.
var protocolErrors = []struct {
	err  error
	name string
	code int
}{
	{a2a.ErrTaskNotFound, "TaskNotFoundError", -32001},
	{a2a.ErrTaskNotCancelable, "TaskNotCancelableError", -32002},
	{a2a.ErrPushNotificationNotSupported, "PushNotificationNotSupportedError", -32003},
	{a2a.ErrUnsupportedOperation, "UnsupportedOperationError", -32004},
	{a2a.ErrUnsupportedContentType, "ContentTypeNotSupportedError", -32005},
	{a2a.ErrInvalidAgentResponse, "InvalidAgentResponseError", -32006},
	{a2a.ErrExtendedCardNotConfigured, "AuthenticatedExtendedCardNotConfiguredError", -32007},
	{a2a.ErrExtensionSupportRequired, "ExtensionSupportRequiredError", -32008},
	{a2a.ErrVersionNotSupported, "VersionNotSupportedError", -32009},
	{a2a.ErrParseError, "JSONParseError", -32700},
	{a2a.ErrInvalidRequest, "InvalidRequestError", -32600},
	{a2a.ErrMethodNotFound, "MethodNotFoundError", -32601},
	{a2a.ErrInvalidParams, "InvalidParamsError", -32602},
	{a2a.ErrInternalError, "InternalError", -32603},
	{a2a.ErrServerError, "ServerError", -32000},
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
	var h *hinted
	if errors.As(err, &h) {
		c.hint = h.hint
	}
	var lt *liveTaskError
	if errors.As(err, &lt) {
		c.taskID = string(lt.id)
	}
	set := func(exit int, code, hint string) classified {
		c.exit, c.code = exit, code
		if c.hint == "" {
			c.hint = hint
		}
		return c
	}
	var ue *usageError
	var ce *cardError
	var he *httpStatusError
	var te *taskOutcomeError
	var tl *responseTooLargeError
	switch {
	case errors.As(err, &ue):
		cmd := "a2a"
		if ue.cmd != "" {
			cmd = ue.cmd
		}
		return set(exitUsage, codeUsage, fmt.Sprintf("run '%s --help' for usage", cmd))
	case errors.As(err, &te):
		code := codeTaskFailed
		if te.code == exitTaskPaused {
			code = codeTaskPaused
		}
		return set(te.code, code, "")
	case errors.Is(err, errInterrupted):
		return set(exitInterrupted, codeInterrupted, "")
	case lt != nil && lt.lost:
		if isUnreachable(err) {
			return set(exitUnreachable, codeStreamLost, "")
		}
		return set(exitFailure, codeStreamLost, "")
	case errors.Is(err, errTimeout):
		return set(exitTimeout, codeTimeout, "raise --timeout, or use --timeout 0 for no limit")
	case errors.Is(err, errCredentialsMissing):
		return set(exitAuth, codeCredentialsMissing, "pass credentials with --auth \"Bearer <token>\"")
	case errors.As(err, &he):
		return set(exitAuth, codeAuthFailed, "check the credentials given with --auth")
	case errors.Is(err, a2a.ErrUnauthenticated), errors.Is(err, a2a.ErrUnauthorized):
		return set(exitAuth, codeAuthFailed, "check the credentials given with --auth")
	case errors.As(err, &ce):
		if ce.notFound {
			return set(exitUnreachable, codeCardNotFound, ce.hint)
		}
		return set(exitFailure, codeCardInvalid, ce.hint)
	case errors.As(err, &tl):
		return set(exitFailure, codeTooLarge, "raise --max-response-bytes if the agent is trusted (0: no limit)")
	case tlsProblem(err):
		hint, _ := tlsHint(err)
		return set(exitUnreachable, codeUnreachable, hint)
	case isUnreachable(err):
		return set(exitUnreachable, codeUnreachable, "is the agent running, and is the URL right?")
	}
	for _, pe := range protocolErrors {
		if errors.Is(err, pe.err) {
			n := pe.code
			c.a2aCode = &n
			return set(exitFailure, pe.name, "")
		}
	}
	return set(exitFailure, codeInternal, "")
}

var errCredentialsMissing = errors.New("the agent requires credentials")

// hasCredentials reports whether the user gave any credential: --auth, --bearer, --api-key or a credential service
// parameter.
func (o *globalOptions) hasCredentials() bool {
	if o.auth != "" || o.bearer != "" || o.apiKey != "" {
		return true
	}
	for _, kv := range o.svcParams {
		if k, _, _ := strings.Cut(kv, "="); redact.Sensitive(strings.TrimSpace(k)) {
			return true
		}
	}
	return false
}

func isUnreachable(err error) bool {
	var ur *unreachableError
	var pt *plainToTLSError
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var urlErr *url.Error
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.As(err, &ur), errors.As(err, &pt), errors.As(err, &dnsErr), errors.As(err, &certErr),
		errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &recordErr):
		return true
	case errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return true
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return true
	case errors.As(err, &urlErr) && errors.Is(urlErr.Err, context.DeadlineExceeded):
		return false
	}
	return false
}
