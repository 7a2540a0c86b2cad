package client

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/status"
)

// ErrorClass names the class of a failed call for a load report, from a small set: "http 503", "a2a
// TASK_NOT_FOUND", "grpc Unavailable", "timeout", "transport: connection refused", "transport: connection
// closed", "transport: other". It never repeats the agent's words, only codes.
func ErrorClass(err error) string {
	var hs *HTTPStatusError
	if errors.As(err, &hs) {
		return "http " + strconv.Itoa(hs.Code)
	}
	var ans *answerError
	if errors.As(err, &ans) {
		if code, _, _ := strings.Cut(ans.status, " "); len(code) == 3 && code[0] != '2' {
			return "http " + code
		} else if len(code) == 3 {
			return "http " + code + ": not an A2A answer"
		}
		return "http: not an A2A answer"
	}
	var ae *a2a.Error
	if reason := a2a.ErrorReason(err); errors.As(err, &ae) || reason != "INTERNAL_ERROR" || errors.Is(err, a2a.ErrInternalError) {
		return "a2a " + reason
	}
	if errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	if st, ok := status.FromError(err); ok && st.Code() != 0 {
		return "grpc " + st.Code().String()
	}
	var errno syscall.Errno
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "transport: connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return "transport: connection closed"
	case errors.As(err, &errno):
		return "transport: " + errno.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return "transport: network"
	}
	return "transport: other"
}
