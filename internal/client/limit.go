package client

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DefaultMaxResponseBytes bounds a reply (a unary answer, a card) unless --max-response-bytes says otherwise: above
// the answers agents give in practice (a 20 MB artifact passes), and low enough that the JSON decoder's buffers
// (about three times the reply while it grows) keep a hostile reply's cost near 100 MB.
const DefaultMaxResponseBytes = 32 << 20

// ResponseTooLargeError is a reply cut off at --max-response-bytes.
type ResponseTooLargeError struct{ limit int64 }

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("the reply is larger than --max-response-bytes (%s)", sizeText(e.limit))
}

// TooLarge is the error of an answer over limit bytes that a client gathers itself (a stream it holds whole).
func TooLarge(limit int64) error { return &ResponseTooLargeError{limit: limit} }

// sizeText writes n bytes the way a user reads them: "67108864 bytes" becomes "64 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// capResponse bounds the body of a reply to limit bytes. Event streams a streaming call asked for are left alone:
// their length is the task's, and each event is bounded by the SSE reader. A reply that announces a larger
// Content-Length is refused before a byte of it is read.
func capResponse(req *http.Request, resp *http.Response, limit int64) (*http.Response, error) {
	if limit <= 0 || isEventStream(req, resp) {
		return resp, nil
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		return nil, &ResponseTooLargeError{limit: limit}
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: limit, limit: limit}
	return resp, nil
}

// isEventStream reports whether resp is the event stream req asked for. A stream nobody asked for is capped like
// any reply, so an agent cannot dodge the cap by labelling a unary answer text/event-stream.
func isEventStream(req *http.Request, resp *http.Response) bool {
	return strings.Contains(req.Header.Get("Accept"), "text/event-stream") &&
		strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}

// cappedBody reads at most limit bytes; one more is an error, not a silent truncation.
type cappedBody struct {
	io.ReadCloser
	left, limit int64
	over        bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, &ResponseTooLargeError{limit: b.limit}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if int64(n) > b.left {
		n, b.left, b.over = int(b.left), 0, true
		return n, &ResponseTooLargeError{limit: b.limit}
	}
	b.left -= int64(n)
	return n, err
}

// grpcRecvLimit is the gRPC per-message receive limit for --max-response-bytes (0: as large as gRPC allows).
func grpcRecvLimit(limit int64) grpc.CallOption {
	if limit <= 0 || limit > math.MaxInt32 {
		limit = math.MaxInt32
	}
	return grpc.MaxCallRecvMsgSize(int(limit))
}

// grpcTooLarge turns gRPC's own "received message larger than max (N vs. LIMIT)" into the error the HTTP bindings
// give. gRPC says it only as ResourceExhausted with that text, hence the match; the limit in the text tells our
// receive limit from a server refusing a request too large for its own.
func grpcTooLarge(err error, limit int64) error {
	st, ok := status.FromError(err)
	if ok && limit > 0 && limit <= math.MaxInt32 && st.Code() == codes.ResourceExhausted &&
		strings.Contains(st.Message(), "larger than max") && strings.Contains(st.Message(), strconv.FormatInt(limit, 10)) {
		return &ResponseTooLargeError{limit: limit}
	}
	return err
}
