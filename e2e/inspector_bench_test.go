package e2e

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A browser that stops reading must not slow the traffic: its event stream loses messages (counted) instead.

// stuckReader opens GET /_a2a/api/events on a connection with a tiny receive buffer and never reads it.
func stuckReader(t testing.TB, base string) {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := fmt.Fprintf(conn, "GET /_a2a/api/events HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(base, "http://")); err != nil {
		t.Fatal(err)
	}
}

// sendMany makes n REST SendMessage calls on base from workers goroutines and returns how long they took.
func sendMany(client *http.Client, base string, n, workers int) (time.Duration, error) {
	body := `{"message":{"messageId":"m-%d","role":"ROLE_USER","parts":[{"text":"ping"}]}}`
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	next := make(chan int)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				req, _ := http.NewRequest(http.MethodPost, base+"/message:send", strings.NewReader(fmt.Sprintf(body, i)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("A2A-Version", "1.0")
				res, err := client.Do(req)
				if err == nil {
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						err = fmt.Errorf("SendMessage: %d", res.StatusCode)
					}
				}
				if err != nil {
					errs <- err
					for range next { // drain
					}
					return
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	return time.Since(start), <-errs
}

func inspHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}
}

// TestInspectorStuckReader: with a page that never reads its event stream, proxied calls still all complete,
// the lost messages are counted, and another page still gets calls live.
func TestInspectorStuckReader(t *testing.T) {
	t.Parallel()
	up := startServe(t, "--echo", "--quiet")
	px := startServe(t, "--proxy", up.url, "--quiet", "--ui")
	stuckReader(t, px.url)
	eventually(t, 10*time.Second, "the stuck reader is counted", func() bool {
		var st struct{ Readers int }
		apiJSON(t, px.url+"/_a2a/api/stats", "", &st)
		return st.Readers == 1
	})
	// The kernel's socket buffers take a few MB before the server's writes block; then the queue fills and
	// messages are dropped. Calls go on in batches until that shows, each batch bounded in time.
	var st struct {
		Calls, Readers int
		Dropped        int64
	}
	client := inspHTTPClient()
	n := 0
	for st.Dropped == 0 && n < 40000 {
		const batch = 2000
		type result struct {
			took time.Duration
			err  error
		}
		done := make(chan result, 1)
		go func() {
			took, err := sendMany(client, px.url, batch, 8)
			done <- result{took, err}
		}()
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatal(r.err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("proxied calls stalled behind a reader that does not read (after %d calls)", n)
		}
		n += batch
		apiJSON(t, px.url+"/_a2a/api/stats", "", &st)
	}
	kept := st.Calls == n || (n > 10000 && st.Calls >= 9000) // serve keeps the latest 10,000, then 9,000 and on
	if !kept || st.Dropped == 0 || st.Readers != 1 {
		t.Errorf("after %d calls with a stuck reader: %+v (want the calls kept, and lost messages counted)", n, st)
	}
	t.Logf("%d calls with a stuck reader: %d messages lost", n, st.Dropped)
	live := followEvents(t, px.url+"/_a2a/api/events", "")
	r := run(t, "", "send", px.url, "still live", "--blocking")
	wantCode(t, r, 0)
	waitEvent(t, live, 10*time.Second, "call", `"method":"SendMessage"`, `"status":"ok"`)

	// Nor does a stuck page hold serve's shutdown up (its grace is 5 s).
	start := time.Now()
	px.stop(t)
	if took, code := time.Since(start), px.cmd.ProcessState.ExitCode(); took > 3*time.Second || code != 0 {
		t.Errorf("serve took %s to stop with a stuck page open, exit %d:\n%s", took, code, px.Log())
	}
}

// BenchmarkInspectorProxy: proxied SendMessage throughput (serve --proxy in front of serve --echo, REST, the byte
// path) without the inspector, with it and nobody watching, with a page reading live, and with a page that never
// reads. Run: go test ./e2e -run '^$' -bench InspectorProxy -benchtime 20000x
func BenchmarkInspectorProxy(b *testing.B) {
	up := startServe(b, "--echo", "--quiet")
	cases := []struct {
		name string
		ui   bool
		read func(testing.TB, string)
	}{
		{"ui=off", false, nil},
		{"ui=on", true, nil},
		{"ui=on,live-reader", true, func(t testing.TB, base string) {
			ch := followEvents(t, base+"/_a2a/api/events", "")
			go func() {
				for range ch {
				}
			}()
		}},
		{"ui=on,stuck-reader", true, stuckReader},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			args := []string{"--proxy", up.url} // the traffic log on, as users run it
			if c.ui {
				args = append(args, "--ui")
			}
			px := startServe(b, args...)
			if c.read != nil {
				c.read(b, px.url)
			}
			client := inspHTTPClient()
			if _, err := sendMany(client, px.url, 200, 8); err != nil { // warm the connections up
				b.Fatal(err)
			}
			b.ResetTimer()
			took, err := sendMany(client, px.url, b.N, 8)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/took.Seconds(), "calls/s")
		})
	}
}
