package proxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// leanGet makes one call through lt.
func leanGet(ctx context.Context, t *testing.T, lt *leanTransport, method, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return lt.RoundTrip(req)
}

// readAll reads and closes an answer's body.
func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLeanTransportReusesConnections: calls one after the other share one connection, bodies
// whole, whatever their framing.
func TestLeanTransportReusesConnections(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/chunked" {
			w.Write([]byte("part1,"))
			w.(http.Flusher).Flush()
		}
		w.Write(append([]byte(r.Method+":"), b...))
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	lt := newLeanTransport(http.DefaultTransport, 4)
	defer lt.CloseIdleConnections()
	for i, c := range []struct{ method, path, body, want string }{
		{"POST", "/", "one", "POST:one"},
		{"GET", "/", "", "GET:"},
		{"POST", "/chunked", "two", "part1,POST:two"},
		{"HEAD", "/", "", ""},
		{"POST", "/", "three", "POST:three"},
	} {
		resp, err := leanGet(context.Background(), t, lt, c.method, srv.URL+c.path, c.body)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := readAll(t, resp); got != c.want {
			t.Errorf("call %d %s %s = %q, want %q", i, c.method, c.path, got, c.want)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 calls used %d connections, want 1", n)
	}
}

// TestLeanTransportRetriesStaleConnection: an upstream that closed the kept connection gets the
// call again, body included, on a new one.
func TestLeanTransportRetriesStaleConnection(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Each connection answers one request (echoing its body) and then closes without saying so.
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				b, _ := io.ReadAll(req.Body)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(b))+"\r\n\r\n"+string(b))
			}()
		}
	}()
	lt := newLeanTransport(http.DefaultTransport, 4)
	defer lt.CloseIdleConnections()
	url := "http://" + ln.Addr().String() + "/"
	for i, body := range []string{"first", "second", "third"} {
		resp, err := leanGet(context.Background(), t, lt, "POST", url, body)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := readAll(t, resp); got != body {
			t.Fatalf("call %d = %q, want %q", i, got, body)
		}
	}
}

// TestLeanTransportCancelMidStream: cancelling a call whose answer is still streaming ends the
// read at once and does not keep the connection.
func TestLeanTransportCancelMidStream(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first\n"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	lt := newLeanTransport(http.DefaultTransport, 4)
	defer lt.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := leanGet(ctx, t, lt, "GET", srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "first\n" {
		t.Fatalf("first line = %q, %v", line, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := br.ReadString('\n')
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("read after cancel returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read did not end 10s after the call was cancelled")
	}
	resp.Body.Close()
	lt.mu.Lock()
	idle := len(lt.idle[strings.TrimPrefix(srv.URL, "http://")])
	lt.mu.Unlock()
	if idle != 0 {
		t.Errorf("%d connections kept after a cancelled call, want 0", idle)
	}
}

// TestLeanTransportHTTPSGoesToNext: https calls take the wrapped transport (TLS and all).
func TestLeanTransportHTTPSGoesToNext(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secure")
	}))
	defer srv.Close()
	lt := newLeanTransport(srv.Client().Transport, 4)
	defer lt.CloseIdleConnections()
	resp, err := leanGet(context.Background(), t, lt, "GET", srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "secure" {
		t.Fatalf("https call = %q, want secure", got)
	}
}

// TestLeanTransportHonoursHTTPProxy: a call the environment routes through an HTTP proxy goes to the wrapped
// transport, which knows how to speak to proxies.
func TestLeanTransportHonoursHTTPProxy(t *testing.T) {
	t.Parallel()
	var proxied atomic.Int32
	proxySrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		io.WriteString(w, "via proxy to "+r.URL.Host)
	}))
	defer proxySrv.Close()
	next := http.DefaultTransport.(*http.Transport).Clone()
	proxyURL, _ := url.Parse(proxySrv.URL)
	next.Proxy = http.ProxyURL(proxyURL)
	lt := newLeanTransport(next, 4)
	defer lt.CloseIdleConnections()
	resp, err := leanGet(context.Background(), t, lt, "GET", "http://upstream.invalid/x", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "via proxy to upstream.invalid" || proxied.Load() != 1 {
		t.Fatalf("call = %q (%d through the proxy), want it answered by the proxy", got, proxied.Load())
	}
}
