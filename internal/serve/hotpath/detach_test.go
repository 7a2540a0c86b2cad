package hotpath

import (
	"bufio"
	"context"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// detachedServer serves the handler made by mk on 127.0.0.1 the way Run does: a Splitter's queue
// feeds the HTTP server, and the detacher hands finished streams' connections back to it.
func detachedServer(t *testing.T, mk func(d *Detacher) http.Handler) (url string, d *Detacher) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d = NewDetacher(0)
	sp := NewSplitter(ln, false)
	d.Requeue = sp.HTTP.Put
	srv := &http.Server{Handler: GateFlushes(mk(d)), ConnState: d.ConnState}
	go sp.Serve()
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(sp.HTTP) //nolint:errcheck // ends with the listener
	}()
	t.Cleanup(func() {
		ln.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Wait(ctx); err != nil {
			t.Errorf("detached streams still open at the end: %v", err)
		}
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("HTTP server shutdown: %v", err)
		}
		<-served
	})
	return "http://" + ln.Addr().String(), d
}

// fetchHTTP makes one request and returns what a client sees of the answer, made comparable.
func fetchHTTP(t *testing.T, c *http.Client, method, url, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(url, ":stream") || strings.Contains(body, "Streaming") || strings.Contains(body, "Subscribe") {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	h.Del("Content-Length") // net/http sets it for short answers it holds whole; a stream cannot
	return resp.StatusCode, h, normalized(string(b))
}

// TestDetachedMatchesA2asrv: a client sees the same answer from a detached stream as from a2asrv,
// errors included, and the connection serves the next request.
func TestDetachedMatchesA2asrv(t *testing.T) {
	t.Parallel()
	for _, c := range fastCases() {
		var lib http.Handler
		url, _ := detachedServer(t, func(d *Detacher) http.Handler {
			var fast http.Handler
			lib, fast, _, _ = c.handlers(d)
			return fast
		})
		libSrv := httptest.NewServer(lib)
		wc, wh, wb := fetchHTTP(t, libSrv.Client(), c.method, libSrv.URL+c.path, c.body)
		libSrv.Close()
		client := &http.Client{Transport: &http.Transport{}}
		gc, gh, gb := fetchHTTP(t, client, c.method, url+c.path, c.body)
		if gc != wc {
			t.Errorf("%s: status %d, want %d", c, gc, wc)
		}
		if diff := cmp.Diff(wh, gh); diff != "" {
			t.Errorf("%s: headers (-a2asrv +detached):\n%s", c, diff)
		}
		if diff := cmp.Diff(wb, gb); diff != "" {
			t.Errorf("%s: body (-a2asrv +detached):\n%s", c, diff)
		}
		// The connection (or a fresh one, after an error) answers the same again.
		if ac, _, ab := fetchHTTP(t, client, c.method, url+c.path, c.body); ac != gc || ab != gb {
			t.Errorf("%s: asked again, got %d %q; want %d %q", c, ac, ab, gc, gb)
		}
		client.CloseIdleConnections()
	}
}

// TestDetachedKeepsConnection: streams and calls after a stream reuse the client's connection.
func TestDetachedKeepsConnection(t *testing.T) {
	t.Parallel()
	ts := &scripted{events: []a2a.Event{&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}}}
	url, _ := detachedServer(t, func(d *Detacher) http.Handler { return REST(ts, d, nil) })
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	send := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	for i, call := range []struct{ method, path, body string }{
		{"POST", "/message:stream", send},
		{"POST", "/message:stream", send},
		{"GET", "/tasks/t1:subscribe", ""},
		{"POST", "/message:send", send},
	} {
		reused := false
		req, _ := http.NewRequest(call.method, url+call.path, strings.NewReader(call.body))
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
		}))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck // only the connection matters
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d %s: status %d", i, call.path, resp.StatusCode)
		}
		if i > 0 && !reused {
			t.Errorf("call %d %s did not reuse the connection", i, call.path)
		}
	}
}

// dialCompletedTask serves a REST fast path whose streams carry one completed task, and dials it.
func dialCompletedTask(t *testing.T) net.Conn {
	t.Helper()
	ts := &scripted{events: []a2a.Event{&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}}}
	url, _ := detachedServer(t, func(d *Detacher) http.Handler { return REST(ts, d, nil) })
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestDetachedPipelined: a request the client sent right behind a stream's is answered after it.
func TestDetachedPipelined(t *testing.T) {
	t.Parallel()
	conn := dialCompletedTask(t)
	send := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	reqs := "POST /message:stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(send)) + "\r\n\r\n" + send + "GET /tasks/t1 HTTP/1.1\r\nHost: x\r\n\r\n"
	if _, err := io.WriteString(conn, reqs); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	for i, want := range []struct {
		code int
		body string
	}{{200, `"state":"TASK_STATE_COMPLETED"`}, {404, "not found"}} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != want.code || !strings.Contains(string(b), want.body) {
			t.Fatalf("response %d = %d %q (%v), want %d with %q", i, resp.StatusCode, b, err, want.code, want.body)
		}
	}
}

// hangingStream yields one task, then waits for its call's end and reports it on ended.
type hangingStream struct {
	scripted
	ended chan struct{}
}

func (h *hangingStream) SubscribeToTask(ctx context.Context, _ *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if yield(&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil) {
			<-ctx.Done()
		}
		close(h.ended)
	}
}

// TestDetachedClientHangup: a client that goes away mid-stream ends its call at once, not at the
// next event (which may never come).
func TestDetachedClientHangup(t *testing.T) {
	t.Parallel()
	h := &hangingStream{ended: make(chan struct{})}
	url, _ := detachedServer(t, func(d *Detacher) http.Handler { return REST(h, d, nil) })
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "GET /tasks/t1:subscribe HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "id: ") {
		t.Fatalf("first line of the stream = %q, %v; want an event id", line, err)
	}
	conn.Close()
	select {
	case <-h.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the call went on 10s after its client hung up")
	}
}

// TestDetachedHTTP10: an HTTP/1.0 client, which cannot read a chunked answer, gets its stream from
// net/http as before.
func TestDetachedHTTP10(t *testing.T) {
	t.Parallel()
	conn := dialCompletedTask(t)
	if _, err := io.WriteString(conn, "GET /tasks/t1:subscribe HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	resp := string(b)
	if !strings.HasPrefix(resp, "HTTP/1.0 200") || strings.Contains(resp, "chunked") || !strings.Contains(resp, `"state":"TASK_STATE_COMPLETED"`) {
		t.Fatalf("HTTP/1.0 stream answered:\n%s", resp)
	}
}
