package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2acli/a2a/internal/redact"
	"github.com/a2acli/a2a/internal/termsafe"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Log writes -v diagnostics to stderr. A nil or disabled log writes nothing. Every line goes through the
// sanitiser text output uses: card names, headers, bodies and error messages come from the network.
type Log struct {
	mu      sync.Mutex
	W       io.Writer
	Enabled bool
	// Debug (--debug) adds the raw wire: whole bodies, event streams line by line, gRPC messages (wiredebug.go).
	Debug bool
}

func (l *Log) Printf(format string, args ...any) {
	if l == nil || !l.Enabled {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.W, termsafe.Sanitize(fmt.Sprintf("* "+format+"\n", args...))) //nolint:errcheck // stderr: nowhere to report to
}

const maxLoggedPayload = 16 << 10

func redactedHeaders(h http.Header) string { return redact.Lines(h, "  %s: %s\n", ", ") }

// roundTripper logs HTTP exchanges under -v and turns 401/403 into typed errors, whatever the binding. It keeps
// credentials off other origins (guard) and bounds replies to maxBody bytes (0: no bound).
type roundTripper struct {
	base    http.RoundTripper
	log     *Log
	guard   *credGuard
	maxBody int64
	// query is --api-key as the query parameter the card's apiKey scheme names (in: query), added to each request
	// the guard lets credentials go to, after the log line (which never shows it); nil when none.
	query *queryKey
}

// queryKey is a credential carried as a query parameter, set once the card is read.
type queryKey struct {
	mu          sync.Mutex
	name, value string
}

func (q *queryKey) get() (string, string) {
	if q == nil {
		return "", ""
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.name, q.value
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	req = rt.guard.strip(req)
	if _, ok := req.Context().Deadline(); ok {
		req = req.WithContext(withCallDeadline(req.Context())) // the dial's retry of a refused connection stops in time
	}
	verbose := rt.log != nil && rt.log.Enabled
	if verbose {
		var body []byte
		limit := rt.log.logLimit()
		if req.Body != nil && req.GetBody != nil {
			if rc, err := req.GetBody(); err == nil {
				body, _ = io.ReadAll(io.LimitReader(rc, int64(limit))) // best effort: logging only
				rc.Close()
			}
		}
		rt.log.Printf("> %s %s\n%s%s", req.Method, req.URL, redactedHeaders(req.Header), rt.log.logPayload(body, len(body) >= limit))
	}
	shown := req.URL // what the log shows: never the query credential
	if name, value := rt.query.get(); name != "" && rt.guard.allows(originOf(req.URL)) {
		out := req.Clone(req.Context())
		q := out.URL.Query()
		q.Set(name, value)
		out.URL.RawQuery = q.Encode()
		req = out
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		rt.log.Printf("< %s %s: %v (%s)", req.Method, shown, err, time.Since(start).Round(time.Microsecond))
		return nil, err
	}
	if verbose { // the headers are rendered only for the log: not on every answer of a load run
		rt.log.Printf("< %s (%s)\n%s", resp.Status, time.Since(start).Round(time.Microsecond), redactedHeaders(resp.Header))
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512)) // best effort: the status says enough
		resp.Body.Close()
		return nil, &HTTPStatusError{Code: resp.StatusCode, Status: resp.Status, Body: strings.TrimSpace(string(bytes.ToValidUTF8(body, nil)))}
	}
	if resp, err = capResponse(req, resp, rt.maxBody); err != nil {
		rt.log.Printf("< %s %s: %v", req.Method, shown, err)
		return nil, err
	}
	switch sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"); {
	case verbose && !sse:
		resp.Body = &loggedBody{ReadCloser: resp.Body, log: rt.log}
	case sse && rt.log.debugging():
		resp.Body = &sseLog{ReadCloser: resp.Body, log: rt.log}
	}
	return resp, nil
}

// logOnce logs the body read so far, once: at its end, or when it is closed before (a JSON decoder stops reading
// after the document, short of EOF).
func (b *loggedBody) logOnce() {
	if b.done {
		return
	}
	b.done = true
	b.log.Printf("< body%s", "\n"+b.log.logPayload(b.buf.Bytes(), b.buf.Len() >= b.log.logLimit()))
}

func (b *loggedBody) Close() error {
	b.mu.Lock()
	b.logOnce()
	b.mu.Unlock()
	return b.ReadCloser.Close()
}

type loggedBody struct {
	io.ReadCloser
	log  *Log
	mu   sync.Mutex // a body may be closed from another goroutine than the one reading it
	buf  bytes.Buffer
	done bool
}

func (b *loggedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	limit := b.log.logLimit()
	if b.buf.Len() < limit {
		b.buf.Write(p[:min(n, limit-b.buf.Len())])
	}
	if err == io.EOF {
		b.logOnce()
	}
	return n, err
}

// paramsInterceptor puts --svc-param, --auth and extensions on every call, over whatever the caller attached.
type paramsInterceptor struct {
	a2aclient.PassthroughInterceptor
	params map[string][]string
}

type versionKey struct{}

// WithVersion makes the calls made with ctx send A2A-Version v instead of their interface's: `a2a conformance` asks
// with a version no agent supports, over gRPC too, where no plain request can.
func WithVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

func (p *paramsInterceptor) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	if v, ok := ctx.Value(versionKey{}).(string); ok {
		for existing := range req.ServiceParams {
			if strings.EqualFold(existing, a2a.SvcParamVersion) {
				delete(req.ServiceParams, existing)
			}
		}
		req.ServiceParams[a2a.SvcParamVersion] = []string{v}
	}
	for k, v := range p.params {
		for existing := range req.ServiceParams {
			if strings.EqualFold(existing, k) {
				delete(req.ServiceParams, existing)
			}
		}
		req.ServiceParams[k] = append([]string(nil), v...)
	}
	return ctx, nil, nil
}

// callLogger prints each A2A call and its duration under -v: one "call M" line when it starts and one "done" or
// "failed" line when it ends. a2a-go calls After once per event of a stream, so a streaming call's end is logged by
// streamEnds, the transport wrapper that sees the stream finish; After logs the calls that return one answer.
type callLogger struct {
	log *Log
}

type callStartKey struct{}

// callState is one logged call, shared by callLogger and streamEnds through the call's context.
type callState struct {
	log      *Log
	method   string
	start    time.Time
	streamed bool // streamEnds owns the end line
	once     sync.Once
}

func (s *callState) end(err error, events int) {
	s.once.Do(func() {
		took := time.Since(s.start).Round(time.Microsecond)
		n := ""
		if s.streamed {
			n = fmt.Sprintf(", %d events", events)
			if events == 1 {
				n = ", 1 event"
			}
		}
		if err != nil {
			s.log.Printf("call %s failed after %s%s: %v", s.method, took, n, err)
			return
		}
		s.log.Printf("call %s done in %s%s", s.method, took, n)
	})
}

func (l *callLogger) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	if l.log == nil || !l.log.Enabled {
		return ctx, nil, nil
	}
	h := http.Header{}
	for k, v := range req.ServiceParams {
		h[k] = v
	}
	l.log.Printf("call %s %s\n%s", req.Method, req.BaseURL, redactedHeaders(h))
	return context.WithValue(ctx, callStartKey{}, &callState{log: l.log, method: req.Method, start: time.Now()}), nil, nil
}

func (l *callLogger) After(ctx context.Context, resp *a2aclient.Response) error {
	st, ok := ctx.Value(callStartKey{}).(*callState)
	if !ok || st.streamed {
		return nil
	}
	st.end(resp.Err, 0)
	return nil
}

// streamEnds wraps a transport so that a streaming call logged by callLogger gets one end line: when its stream
// ends, breaks, or its reader stops reading.
func streamEnds(f a2aclient.TransportFactory) a2aclient.TransportFactory {
	return a2aclient.TransportFactoryFn(func(ctx context.Context, card *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
		t, err := f.Create(ctx, card, iface)
		if err != nil {
			return nil, err
		}
		return &streamEndTransport{Transport: t}, nil
	})
}

type streamEndTransport struct {
	a2aclient.Transport
}

func (t *streamEndTransport) SendStreamingMessage(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return logStreamEnd(ctx, t.Transport.SendStreamingMessage(ctx, params, req))
}

func (t *streamEndTransport) SubscribeToTask(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return logStreamEnd(ctx, t.Transport.SubscribeToTask(ctx, params, req))
}

func logStreamEnd(ctx context.Context, events iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	events = agentRefusals(events)
	st, ok := ctx.Value(callStartKey{}).(*callState)
	if !ok {
		return events
	}
	return func(yield func(a2a.Event, error) bool) {
		st.streamed = true
		n := 0
		for ev, err := range events {
			if err != nil {
				st.end(err, n)
				yield(ev, err)
				return
			}
			n++
			if !yield(ev, nil) {
				st.end(nil, n)
				return
			}
		}
		st.end(nil, n)
	}
}

// agentRefusals passes events on, and the agent's error answer to a stream (a JSON document read by answerCheck)
// as the agent's error: a2a-go wraps it as a failed request ("failed to send HTTP request: Post \"URL\": …"),
// which it is not.
func agentRefusals(events iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		for ev, err := range events {
			var ue *url.Error
			var ae *a2a.Error
			var de *DataError
			if err != nil && errors.As(err, &ue) && (errors.As(ue.Err, &ae) || errors.As(ue.Err, &de)) {
				err = ue.Err
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// grpcUnaryErrors marks connection failures so they classify as unreachable, and a reply over limit (the
// --max-response-bytes receive limit) like the HTTP bindings do.
func grpcUnaryErrors(limit int64) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return grpcTooLarge(grpcConnErr(invoker(ctx, method, req, reply, cc, opts...)), limit)
	}
}

func grpcStreamErrors(limit int64) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, grpcTooLarge(grpcConnErr(err), limit)
		}
		return &grpcErrStream{ClientStream: s, limit: limit}, nil
	}
}

type grpcErrStream struct {
	grpc.ClientStream
	limit int64
}

func (s *grpcErrStream) RecvMsg(m any) error {
	return grpcTooLarge(grpcConnErr(s.ClientStream.RecvMsg(m)), s.limit)
}

func grpcConnErr(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.Unavailable:
		return &UnreachableError{err: fmt.Errorf("grpc: %s", st.Message())}
	case codes.OK, codes.Canceled, codes.DeadlineExceeded:
		return err
	}
	// a2a-go keeps only the status message, which may be empty or generic: name the status too.
	p := st.Proto()
	if st.Code() == codes.Unimplemented && specUnimplemented[errorInfoReason(st)] {
		// The specification answers these UNIMPLEMENTED; a2a-go's client knows them only under FAILED_PRECONDITION
		// (its server's code) and reads anything else as InternalError. The message keeps the real code (GRPCCode).
		p.Code = int32(codes.FailedPrecondition)
	}
	if p.Message == "" {
		p.Message = "gRPC status " + st.Code().String()
	} else {
		p.Message += " (gRPC status " + st.Code().String() + ")"
	}
	return status.ErrorProto(p)
}

// specUnimplemented are the A2A errors (ErrorInfo reasons) the specification maps to UNIMPLEMENTED where a2a-go
// maps them to FAILED_PRECONDITION.
var specUnimplemented = map[string]bool{
	"UNSUPPORTED_OPERATION":           true,
	"PUSH_NOTIFICATION_NOT_SUPPORTED": true,
	"VERSION_NOT_SUPPORTED":           true,
}

// errorInfoReason is the reason of st's A2A ErrorInfo detail, or "".
func errorInfoReason(st *status.Status) string {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == a2a.ProtocolDomain {
			return info.GetReason()
		}
	}
	return ""
}

// GRPCCode is the gRPC status an error of a gRPC call came back with, when grpcConnErr named it: a2a-go turns a
// status into an a2a.Error that keeps only its message (and reads the code through its own table, which differs
// from the specification's for UnsupportedOperationError), so the code survives only in that message.
func GRPCCode(err error) (codes.Code, bool) {
	if err == nil {
		return codes.OK, false
	}
	msg := err.Error()
	i := strings.LastIndex(msg, "gRPC status ")
	if i < 0 {
		return codes.OK, false
	}
	name := strings.TrimSuffix(strings.Fields(msg[i+len("gRPC status "):] + " ")[0], ")")
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == name {
			return c, true
		}
	}
	return codes.OK, false
}
