package e2e

import (
	"bytes"
	"encoding/binary"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// grpcFlooder speaks gRPC's HTTP/2 framing by hand, so that it can do what no gRPC client does: open stream after
// stream and send each all but the last byte of a large request message, leaving serve to hold what arrived.
type grpcFlooder struct {
	t     *testing.T
	conn  net.Conn
	fr    *http2.Framer
	wmu   sync.Mutex // the framer's writes
	mu    sync.Mutex
	cond  *sync.Cond
	conw  int64             // the connection's send window
	initw int64             // a new stream's send window (serve's SETTINGS_INITIAL_WINDOW_SIZE)
	win   map[uint32]int64  // each stream's send window
	shut  map[uint32]string // streams serve ended: how
	done  bool              // the connection is gone
}

func dialGRPCFlooder(t *testing.T, hostport string) *grpcFlooder {
	t.Helper()
	conn, err := net.Dial("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(3 * time.Minute)) // a flood that stalls fails the test, not the run
	f := &grpcFlooder{t: t, conn: conn, fr: http2.NewFramer(conn, conn), conw: 65535, initw: 65535,
		win: map[uint32]int64{}, shut: map[uint32]string{}}
	f.cond = sync.NewCond(&f.mu)
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := f.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	go f.read()
	return f
}

// read follows serve's frames: settings (acknowledged), window updates, and the ends of streams.
func (f *grpcFlooder) read() {
	defer func() {
		f.mu.Lock()
		f.done = true
		f.cond.Broadcast()
		f.mu.Unlock()
	}()
	dec := hpack.NewDecoder(4096, nil)
	for {
		fr, err := f.fr.ReadFrame()
		if err != nil {
			return
		}
		f.mu.Lock()
		switch fr := fr.(type) {
		case *http2.SettingsFrame:
			if v, ok := fr.Value(http2.SettingInitialWindowSize); ok && !fr.IsAck() {
				// A new initial window (grpc-go's estimate of the bandwidth raises it) changes every stream's.
				for id := range f.win {
					f.win[id] += int64(v) - f.initw
				}
				f.initw = int64(v)
			}
			if !fr.IsAck() {
				go f.write(func() error { return f.fr.WriteSettingsAck() })
			}
		case *http2.WindowUpdateFrame:
			if fr.StreamID == 0 {
				f.conw += int64(fr.Increment)
			} else {
				f.win[fr.StreamID] += int64(fr.Increment)
			}
		case *http2.HeadersFrame:
			if fr.StreamEnded() {
				fields, _ := dec.DecodeFull(fr.HeaderBlockFragment())
				how := "ended"
				for _, h := range fields {
					if h.Name == "grpc-status" || h.Name == "grpc-message" {
						how += " " + h.Name + "=" + h.Value
					}
				}
				f.shut[fr.StreamID] = how
			} else {
				_, _ = dec.DecodeFull(fr.HeaderBlockFragment())
			}
		case *http2.RSTStreamFrame:
			if _, ok := f.shut[fr.StreamID]; !ok {
				f.shut[fr.StreamID] = "reset " + fr.ErrCode.String()
			}
		case *http2.PingFrame:
			if !fr.IsAck() {
				data := fr.Data
				go f.write(func() error { return f.fr.WritePing(true, data) })
			}
		}
		f.cond.Broadcast()
		f.mu.Unlock()
	}
}

// write runs one write of frames. The reading goroutine never waits for one (it answers from goroutines of its own):
// were it to wait while a data write waits for serve to read, and serve for us to read, neither would go on.
func (f *grpcFlooder) write(w func() error) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_ = w()
}

// open starts a SendMessage call on stream id and sends its message's 5-byte prefix announcing n bytes.
func (f *grpcFlooder) open(id uint32, authority string, n int) {
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, h := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", "/lf.a2a.v1.A2AService/SendMessage"},
		{":authority", authority}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: h[0], Value: h[1]})
	}
	prefix := make([]byte, 5)
	binary.BigEndian.PutUint32(prefix[1:], uint32(n))
	f.mu.Lock()
	f.win[id] += f.initw
	f.conw -= 5
	f.win[id] -= 5
	f.mu.Unlock()
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if err := f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true}); err != nil {
		f.t.Fatal(err)
	}
	if err := f.fr.WriteData(id, false, prefix); err != nil {
		f.t.Fatal(err)
	}
}

// fill sends n bytes of stream id's message as flow control lets it, and reports false (having sent less) when serve
// ends the stream first.
func (f *grpcFlooder) fill(id uint32, n int) (string, bool) {
	chunk := make([]byte, 16<<10)
	for n > 0 {
		f.mu.Lock()
		for f.shut[id] == "" && !f.done && (f.conw <= 0 || f.win[id] <= 0) {
			f.cond.Wait()
		}
		if how := f.shut[id]; how != "" || f.done {
			f.mu.Unlock()
			return how, false
		}
		k := int(min(int64(n), int64(len(chunk)), f.conw, f.win[id]))
		f.conw -= int64(k)
		f.win[id] -= int64(k)
		f.mu.Unlock()
		f.wmu.Lock()
		err := f.fr.WriteData(id, false, chunk[:k])
		f.wmu.Unlock()
		if err != nil {
			return "write: " + err.Error(), false
		}
		n -= k
	}
	return "", true
}

// TestServeGRPCMessageBudget: gRPC request messages share the bodies' budget (64 × --max-request-bytes). A client
// that opens 300 streams on one connection and sends each all but the last byte of a 1 MB message gets 64 of them
// held at most; the others are refused at once with UNAVAILABLE, and once it hangs up the budget is free again.
// Before the fix serve held every stream's bytes: about 300 MB here.
func TestServeGRPCMessageBudget(t *testing.T) {
	t.Parallel()
	const maxMsg = 1 << 20
	s := startServe(t, "--echo", "--transport", "grpc", "--max-request-bytes", strconv.Itoa(maxMsg))
	pid := s.cmd.Process.Pid
	hostport := strings.TrimPrefix(s.url, "http://")
	before := rssKB(t, pid)
	f := dialGRPCFlooder(t, hostport)
	const streams = 300
	for i := range streams {
		id := uint32(2*i + 1)
		f.open(id, hostport, maxMsg-100)
		// A refused stream's bytes may all go out before its refusal comes back: serve drops them.
		if how, _ := f.fill(id, maxMsg-101); how != "" && !strings.Contains(how, "grpc-status=14") {
			t.Fatalf("stream %d: %s", i, how)
		}
	}
	refused := func() (n int) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, how := range f.shut {
			if strings.Contains(how, "grpc-status=14") && strings.Contains(how, "too many request messages") {
				n++
			} else {
				t.Errorf("a stream ended: %s", how)
			}
		}
		return n
	}
	eventually(t, 60*time.Second, "the streams past the budget refused", func() bool { return refused() >= streams-64 })
	fams := scrape(t, s.url, "")
	bodyBytes := value(fams, "a2a_serve_request_body_bytes")
	peak := peakKB(t, pid)
	n := refused()
	t.Logf("serve RSS %d kB before, peak %d kB; of %d streams %d refused; %.0f bytes reserved for %.0f messages",
		before, peak, streams, n, bodyBytes, value(fams, "a2a_serve_request_bodies"))
	if bodyBytes > 64*maxMsg {
		t.Errorf("%.0f bytes reserved, over the budget of %d", bodyBytes, 64*maxMsg)
	}
	if grew := peak - before; grew > 150<<10 {
		t.Errorf("serve's peak RSS grew by %d kB, want under 150 MB (64 MB of messages)", grew)
	}
	f.conn.Close()
	eventually(t, 30*time.Second, "the budget given back", func() bool {
		return value(scrape(t, s.url, ""), "a2a_serve_request_body_bytes") == 0
	})
	r := run(t, "", "send", s.url, "--transport", "grpc", "after the flood")
	wantCode(t, r, 0)
}
