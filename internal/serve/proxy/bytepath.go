package proxy

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
)

// bytePath forwards HTTP requests to the upstream byte for byte, without decoding them into a2a
// types: an A2A call on a front binding whose binding and protocol version the upstream also
// serves goes to that upstream interface, the development tool's own paths (the Gemini server's
// GET /listCommands, POST /executeCommand) go to the upstream's origin without the operator's credentials (--auth and
// --svc-param are for the A2A endpoints the upstream's card names, not for whatever else runs at its origin), and anything else is
// answered 404 here (Unrouted): the operator's credentials reach no other path of the upstream. Unknown fields,
// extension metadata and custom endpoints survive; it costs a fraction of the decoding path.
// Everything else (other bindings or versions, the card, calls while recording) goes to next,
// the A2A handler. The traffic log keeps its one line per call from a cheap scan of the bytes.
type bytePath struct {
	p      *proxy
	log    Log
	routes Routes
	a2a    bool // A2A calls may take the fast path
	tr     *leanTransport
	rp     *httputil.ReverseProxy
	next   http.Handler
}

// Tuning of the fast path's upstream connections.
const (
	fastIdleConns        = 512
	fastIdleConnsPerHost = 128
	fastCopyBuffer       = 32 << 10
)

func newBytePath(p *proxy, e Env) *bytePath {
	f := &bytePath{p: p, log: e.Log, routes: e.Routes, a2a: e.Bytes}
	tune := func(t *http.Transport) http.RoundTripper {
		f.tr = newLeanTransport(fastTransport(t), fastIdleConnsPerHost)
		return f.tr
	}
	var rt http.RoundTripper
	if p.cfg.Transport != nil {
		rt = p.cfg.Transport(tune)
	} else {
		rt = tune(http.DefaultTransport.(*http.Transport).Clone())
	}
	f.rp = &httputil.ReverseProxy{
		Rewrite:        f.rewrite,
		ModifyResponse: f.modifyResponse,
		ErrorHandler:   f.failed,
		Transport:      rt,
		BufferPool:     &copyBuffers,
		ErrorLog:       log.New(io.Discard, "", 0), // failures are reported on the traffic line
		// FlushInterval 0: ReverseProxy flushes text/event-stream (and unsized) answers after
		// every write by itself, and does not start a flush timer for every unary answer.
	}
	return f
}

// fastTransport tunes t, a transport built with the upstream's TLS (Config.Transport), for the fast path: an idle
// connection per concurrent caller, bytes forwarded untouched (no gzip negotiated behind the caller's back).
func fastTransport(t *http.Transport) *http.Transport {
	t.MaxIdleConns = fastIdleConns
	t.MaxIdleConnsPerHost = fastIdleConnsPerHost
	t.DisableCompression = true
	return t
}

// front puts the fast path in front of the server's handler.
func (f *bytePath) front(next http.Handler) http.Handler {
	f.next = next
	return f
}

// maxRPCPeek bounds how much of a JSON-RPC body is read to find its method.
const maxRPCPeek = 16 << 20

// fastCallKey carries the call down to ReverseProxy's hooks (rewrite, modifyResponse, failed),
// which see only the request. It is this package's own key: the hooks fill in the call that
// ServeHTTP holds, nothing outside the package reads it.
type fastCallKey struct{}

func callFrom(ctx context.Context) *fastCall {
	c, _ := ctx.Value(fastCallKey{}).(*fastCall)
	return c
}

// ServeHTTP implements http.Handler.
func (f *bytePath) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fr := f.routes.Classify(r)
	if fr.Kind == Unrouted {
		http.NotFound(w, r) // nothing reaches the upstream that no binding routes
		return
	}
	if fr.Kind == Ours || (fr.Kind == A2A && !f.a2a) || f.p.base.Err() != nil {
		f.next.ServeHTTP(w, r)
		return
	}
	body, err := readBody(r)
	if err != nil {
		return // the caller's request broke off: nobody to answer
	}
	c := &fastCall{f: f, front: fr, in: r, body: body}
	up, err := f.p.connected(r.Context(), connectTimeout)
	if err != nil {
		c.unreachable(w, err)
		return
	}
	c.up, c.target = up, up.routes.target(fr, r.URL)
	if c.target == nil {
		f.next.ServeHTTP(w, c.replay(r.Context()))
		return
	}
	c.begin()
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), fastCallKey{}, c))
	stop := context.AfterFunc(f.p.base, cancel) // shutdown ends forwarded calls and streams
	defer func() {
		stop()
		cancel()
		c.finish(w)
	}()
	f.rp.ServeHTTP(w, r.WithContext(ctx))
}

// readBody reads the request body (small: a message or a task ID) so that it can be peeked at
// and replayed, and puts a replayable copy in its place.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 && r.ContentLength < maxRPCPeek {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	body := buf.Bytes()
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return body, nil
}

// rewrite aims the outgoing request at the upstream and applies the header policy.
func (f *bytePath) rewrite(pr *httputil.ProxyRequest) {
	c := callFrom(pr.In.Context())
	pr.Out.URL, pr.Out.Host = c.target, ""
	if body := c.body; body != nil {
		pr.Out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	f.p.policy.forward(pr.Out.Header, pr.In.Header, c.front.Kind == A2A)
}

// modifyResponse puts a scanner on the answer: always on a stream (a failing upstream must end it
// with an error event), on a unary answer only when the call is logged.
func (f *bytePath) modifyResponse(res *http.Response) error {
	c := callFrom(res.Request.Context())
	c.status = res.StatusCode
	c.logRequest()
	if ct := res.Header.Get("Content-Type"); strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "text/event-stream") {
		res.Body = &sseTee{rc: res.Body, c: c}
		return nil
	}
	if c.rec != nil && res.Header.Get("Content-Encoding") == "" {
		c.unary = true
		res.Body = &unaryTee{rc: res.Body, c: c}
	}
	return nil
}

// failed handles an upstream that could not be reached or answered nothing.
func (f *bytePath) failed(w http.ResponseWriter, out *http.Request, err error) {
	c := callFrom(out.Context())
	if c.in.Context().Err() != nil {
		c.err = err // the caller went away
		return
	}
	c.answerFailure(w, c.upstreamError(err))
}

// copyBuffers are ReverseProxy's copy buffers, reused.
var copyBuffers bufferPool

type bufferPool struct{ pool sync.Pool }

func (p *bufferPool) Get() []byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return *b
	}
	return make([]byte, fastCopyBuffer)
}

func (p *bufferPool) Put(b []byte) { p.pool.Put(&b) }
