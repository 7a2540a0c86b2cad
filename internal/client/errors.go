package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"
)

var (
	ErrTimeout     = errors.New("timeout expired")
	ErrInterrupted = errors.New("interrupted")
)

// UsageError is a bad flag, argument or combination. cmd names the command for the help hint.
type UsageError struct {
	Msg string
	Cmd string
}

func (e *UsageError) Error() string { return e.Msg }

func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// CardError is a card that could not be found (notFound) or read.
type CardError struct {
	URL      string
	File     bool // URL is a local card file
	NotFound bool
	// Unauthorized: the card's URL answered 401 or 403 (a card behind authentication).
	Unauthorized bool
	Err          error
	Hint         string
	// Body is the card's bytes when they arrived but did not parse (for --validate); nil otherwise.
	Body []byte
}

func (e *CardError) Error() string {
	switch {
	case e.File && e.NotFound:
		return fmt.Sprintf("card file %s does not exist", e.URL)
	case e.File:
		return fmt.Sprintf("read card file %s: %v", e.URL, e.Err)
	case e.NotFound:
		return fmt.Sprintf("agent card not found at %s: %v", e.URL, e.Err)
	}
	return fmt.Sprintf("invalid agent card from %s: %v", e.URL, e.Err)
}

func (e *CardError) Unwrap() error { return e.Err }

// ResolveError is a host name that does not resolve: no agent can be reached by it.
type ResolveError struct {
	Host string
	Err  *net.DNSError
}

func (e *ResolveError) Error() string {
	if e.Err.IsNotFound {
		return fmt.Sprintf("the host name %s does not resolve: DNS knows no such host", e.Host)
	}
	return fmt.Sprintf("the host name %s could not be resolved: %v", e.Host, e.Err.Err)
}

func (e *ResolveError) Unwrap() error { return e.Err }

// resolveErrors makes a host name that does not resolve a ResolveError wherever a call dials it (an endpoint a card
// names, not only the card's own host).
func resolveErrors(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		var dnsErr *net.DNSError
		if err != nil && errors.As(err, &dnsErr) {
			host, _, splitErr := net.SplitHostPort(addr)
			if splitErr != nil {
				host = dnsErr.Name
			}
			return nil, &ResolveError{Host: host, Err: dnsErr}
		}
		return c, err
	}
}

// asResolveError returns err as a ResolveError when a host name failed to resolve, else nil.
func asResolveError(err error) *ResolveError {
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) {
		return nil
	}
	host := dnsErr.Name
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if u, perr := url.Parse(urlErr.URL); perr == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
	}
	return &ResolveError{Host: host, Err: dnsErr}
}

// HTTPStatusError is an HTTP response that refused the request (401, 403) before any A2A payload was read.
type HTTPStatusError struct {
	Code   int
	Status string
	Body   string
}

func (e *HTTPStatusError) Error() string {
	if e.Body != "" {
		return fmt.Sprintf("HTTP %s: %s", e.Status, e.Body)
	}
	return "HTTP " + e.Status
}

// DataError is an agent's protocol error with the data it sent along: JSON-RPC's error.data, which JSON-RPC 2.0 and
// A2A v0.3 allow to be any JSON value (one server sends {"stack": …}). Data is compact JSON; -o json keeps it in the
// error document.
type DataError struct {
	Err  error
	Data json.RawMessage
}

func (e *DataError) Error() string { return e.Err.Error() }
func (e *DataError) Unwrap() error { return e.Err }

// UnreachableError marks a connection-level failure from a transport that does not expose net errors (gRPC).
type UnreachableError struct{ err error }

func (e *UnreachableError) Error() string { return e.err.Error() }
func (e *UnreachableError) Unwrap() error { return e.err }

// Hinted attaches a hint line to an error.
type Hinted struct {
	Err  error
	Hint string
}

func (h *Hinted) Error() string { return h.Err.Error() }
func (h *Hinted) Unwrap() error { return h.Err }

func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &Hinted{Err: err, Hint: hint}
}

func IsUnreachable(err error) bool {
	var ur *UnreachableError
	var pt *PlainToTLSError
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

// ProtocolErrors maps the A2A error sentinels to their protocol names and JSON-RPC codes.
var ProtocolErrors = []struct {
	Err  error
	Name string
	Code int
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

// SignatureError is --verify refusing a card whose signatures are not verified (Status: unverifiable, invalid or
// absent; Reason says why).
type SignatureError struct {
	URL, Status, Reason string
}

func (e *SignatureError) Error() string {
	msg := fmt.Sprintf("card %s: signature %s", e.URL, e.Status)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// LoginError is a stored OAuth token that is missing or could not be renewed: the user must log in (again).
type LoginError struct {
	URL, Msg string
}

func (e *LoginError) Error() string { return e.Msg }

// LimitKey is the ErrorInfo metadata key with which `a2a serve` names the limit a refusal hit
// (max-subscriptions-per-task, say); the same as serve/tasks.LimitKey.
const LimitKey = "a2a-cli/limit"

// RefusedForLimit is the limit an agent named in the ErrorInfo metadata of err (LimitKey), or "": a server that
// refuses a call because it is busy, not because it cannot do it. Read from an *a2a.Error's typed details (REST,
// gRPC) or a JSON-RPC error's data (DataError).
func RefusedForLimit(err error) string {
	var ae *a2a.Error
	if errors.As(err, &ae) {
		for _, d := range ae.TypedDetails {
			if d.TypeURL != errordetails.ErrorInfoType {
				continue
			}
			switch m := d.Value["metadata"].(type) {
			case map[string]string:
				if v := m[LimitKey]; v != "" {
					return v
				}
			case map[string]any:
				if v, _ := m[LimitKey].(string); v != "" {
					return v
				}
			}
		}
	}
	var de *DataError
	if errors.As(err, &de) {
		var details []struct {
			Type     string            `json:"@type"`
			Metadata map[string]string `json:"metadata"`
		}
		if json.Unmarshal(de.Data, &details) == nil {
			for _, d := range details {
				if d.Type == errordetails.ErrorInfoType && d.Metadata[LimitKey] != "" {
					return d.Metadata[LimitKey]
				}
			}
		}
	}
	return ""
}
