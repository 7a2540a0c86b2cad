package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The memory tests play an attacker (or a heavy user) against the built serve and measure what its process holds:
// VmRSS and VmHWM (the peak) from /proc, and the Go heap from /metrics. The bounds are generous, for a loaded 2-core
// machine, but each is a fraction of what serve held before the fix (see the numbers in each test).

// peakKB is the process's peak resident set (VmHWM) in kB.
func peakKB(t testing.TB, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// sendBig sends one SendMessage whose text part is text, over a fresh connection, and returns the status and body.
func sendBig(t testing.TB, url, text string) (int, []byte) {
	t.Helper()
	msg, err := json.Marshal(map[string]any{"message": map[string]any{
		"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": text}}}})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", url+"/message:send", strings.NewReader(string(msg)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	c := &http.Client{Timeout: 120 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("send %d bytes: %v", len(msg), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// sendBigTask sends text as sendBig does, fails the test unless it was answered 200, and decodes the answer into
// task (a struct with the fields the caller reads).
func sendBigTask(t testing.TB, url, text string, task any) {
	t.Helper()
	code, body := sendBig(t, url, text)
	if code != 200 {
		t.Fatalf("send: status %d: %.300s", code, body)
	}
	if err := json.Unmarshal(body, task); err != nil {
		t.Fatalf("send: %v: %.300s", err, body)
	}
}

// TestServeAnnouncedBodiesMemory: 600 connections that announce a 4 MB body and send one byte cost serve what
// arrived, not what was announced. Before the fix, serve grew a buffer to the Content-Length at once: about
// 2.4 GB here.
func TestServeAnnouncedBodiesMemory(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--quiet")
	pid := s.cmd.Process.Pid
	host := strings.TrimPrefix(s.url, "http://")
	before := rssKB(t, pid)
	const conns = 600
	for range conns {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := fmt.Fprintf(c, "POST /message:send HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: 4194300\r\n\r\n{", host); err != nil {
			t.Fatal(err)
		}
	}
	// Serve counts the bodies it is reading: once all 600 are, each has had its chance to reserve memory. A serve
	// that reserves what is announced is over the bound long before (and has no such gauge).
	const bound = 200 << 10 // kB
	eventually(t, 60*time.Second, "600 bodies being read", func() bool {
		return peakKB(t, pid)-before > bound || value(scrape(t, s.url, ""), "a2a_serve_request_bodies") >= conns
	})
	held := value(scrape(t, s.url, ""), "a2a_serve_request_body_bytes")
	peak := peakKB(t, pid)
	t.Logf("serve RSS %d kB before, peak %d kB with %d bodies announcing 4 MB (%.0f bytes held for them)",
		before, peak, conns, held)
	if held > conns*64<<10 {
		t.Errorf("bodies of one byte hold %.0f bytes, want at most 64 KB each", held)
	}
	if grew := peak - before; grew > bound {
		t.Errorf("serve's peak RSS grew by %d kB for %d one-byte bodies, want under 200 MB", grew, conns)
	}
}

// TestServeBodyBudget: bodies in flight hold at most 64 × --max-request-bytes together; past it a body is refused
// with 503 and Retry-After (not waited for), and once the held ones go, the budget is free again.
func TestServeBodyBudget(t *testing.T) {
	t.Parallel()
	const maxBody = 64 << 10 // so the budget is 4 MB
	s := startServe(t, "--echo", "--quiet", "--max-request-bytes", strconv.Itoa(maxBody))
	host := strings.TrimPrefix(s.url, "http://")
	const conns = 100
	var mu sync.Mutex
	var refused []string // the answers of the refused
	var open []net.Conn
	for range conns {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		open = append(open, c)
		// All but the last bytes of the body: serve holds it whole, waiting for the rest.
		head := fmt.Sprintf("POST /message:send HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\n\r\n", host, maxBody)
		if _, err := io.WriteString(c, head+strings.Repeat(" ", maxBody-100)); err != nil {
			t.Logf("write: %v (serve refused this one early)", err)
		}
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				return // closed at the end of the test
			}
			b, _ := io.ReadAll(resp.Body)
			mu.Lock()
			refused = append(refused, fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("Retry-After"), b))
			mu.Unlock()
		}()
	}
	// 64 bodies of 64 KB fill the 4 MB budget: the other 36 are refused, whichever they are.
	eventually(t, 60*time.Second, "bodies past the budget refused", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(refused) >= conns-64
	})
	mu.Lock()
	for _, r := range refused {
		if !strings.HasPrefix(r, "503 1 ") || !strings.Contains(r, "too many request bodies") {
			t.Errorf("refusal = %q, want 503 with Retry-After: 1 and a message", r)
		}
	}
	n := len(refused)
	mu.Unlock()
	fams := scrape(t, s.url, "")
	held := value(fams, "a2a_serve_request_body_bytes")
	t.Logf("%d of %d bodies refused; %.0f bytes held by %.0f bodies", n, conns, held, value(fams, "a2a_serve_request_bodies"))
	if held > 64*maxBody {
		t.Errorf("bodies hold %.0f bytes, over the budget of %d", held, 64*maxBody)
	}
	for _, c := range open {
		c.Close()
	}
	eventually(t, 30*time.Second, "the budget given back", func() bool {
		return value(scrape(t, s.url, ""), "a2a_serve_request_body_bytes") == 0
	})
	if code, _ := sendBig(t, s.url, strings.Repeat("x", maxBody-200)); code != 200 {
		t.Errorf("a body within the limit after the flood: status %d, want 200", code)
	}
}

// TestServeChunkOverheadMemory: a --chunk of one byte does not make serve keep a part per byte. Before the fix,
// one 4 MB request of newlines kept about 2 million parts (~390 MB), 1.2 GB for three.
func TestServeChunkOverheadMemory(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--exec", "cat", "--chunk=\n", "--quiet")
	pid := s.cmd.Process.Pid
	before := rssKB(t, pid)
	text := strings.Repeat("\n", 2<<20-100) // 4 MB as JSON
	for i := range 3 {
		var task struct {
			Task struct {
				ID        string `json:"id"`
				Artifacts []struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"artifacts"`
			} `json:"task"`
		}
		if sendBigTask(t, s.url, text, &task); len(task.Task.Artifacts) != 1 {
			t.Fatalf("send %d: %d artifacts, want 1", i, len(task.Task.Artifacts))
		}
		// What the task keeps is the command's output exactly, in fewer parts.
		var got strings.Builder
		parts := task.Task.Artifacts[0].Parts
		for _, p := range parts {
			got.WriteString(p.Text)
		}
		if got.String() != text {
			t.Fatalf("send %d: the kept output is %d bytes, want the %d newlines the command wrote", i, got.Len(), len(text))
		}
		if len(parts) > 20000 {
			t.Errorf("send %d: the task keeps %d parts, want at most 20000", i, len(parts))
		}
		t.Logf("send %d: %d parts kept, serve RSS %d kB", i, len(parts), rssKB(t, pid))
	}
	after := rssKB(t, pid)
	t.Logf("serve RSS %d kB before, %d kB after three 4 MB requests of one-byte chunks", before, after)
	if grew := after - before; grew > 300<<10 {
		t.Errorf("serve's RSS grew by %d kB, want under 300 MB", grew)
	}
}

// TestServeInspectorMemory: the inspector keeps copies of at most 256 KB of each body and event, within its byte
// bound, not the whole buffers behind them. Before the fix, 60 calls of 4 MB reached 844 MB of heap with
// --max-tasks 1.
func TestServeInspectorMemory(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--ui", "--max-tasks", "1", "--quiet")
	pid := s.cmd.Process.Pid
	before := rssKB(t, pid)
	text := strings.Repeat("a", 4<<20-200)
	for range 60 {
		var task struct{}
		sendBigTask(t, s.url, text, &task)
	}
	heap := value(scrape(t, s.url, ""), "go_memstats_heap_alloc_bytes")
	after := rssKB(t, pid)
	t.Logf("serve RSS %d kB before, %d kB after 60 calls of 4 MB with --ui; heap %.0f MB", before, after, heap/(1<<20))
	// What the hub keeps is bounded at 64 MB; the rest is the GC's slack around 4 MB buffers (before: 820 MB of
	// heap, 1.5 GB of RSS).
	if heap > 400<<20 {
		t.Errorf("heap %.0f MB after 60 calls of 4 MB with --ui, want under 400 MB", heap/(1<<20))
	}
	if grew := after - before; grew > 500<<10 {
		t.Errorf("serve's RSS grew by %d kB, want under 500 MB", grew)
	}
}

// TestServeTaskBytesRetention: finished tasks are kept within --max-task-bytes, the oldest forgotten first.
// Before, retention counted only tasks: 120 requests of 4 MB reached 905 MB (each message kept twice, in the
// history and in the echo's artifact).
func TestServeTaskBytesRetention(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--quiet", "--max-task-bytes", strconv.Itoa(40<<20))
	pid := s.cmd.Process.Pid
	before := rssKB(t, pid)
	text := strings.Repeat("a", 4<<20-200)
	var ids []string
	for i := range 40 {
		var res struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		}
		if sendBigTask(t, s.url, text, &res); res.Task.ID == "" {
			t.Fatalf("send %d: no task", i)
		}
		ids = append(ids, res.Task.ID)
	}
	after := rssKB(t, pid)
	heap := value(scrape(t, s.url, ""), "go_memstats_heap_alloc_bytes")
	t.Logf("serve RSS %d kB before, %d kB after 40 tasks of 8 MB each; heap %.0f MB", before, after, heap/(1<<20))
	// The newest task is kept; the first ones are forgotten, like tasks past --max-tasks.
	if code, _ := rawRequest(t, "GET", s.url+"/tasks/"+ids[len(ids)-1], nil, ""); code != 200 {
		t.Errorf("GET the newest task: %d, want 200", code)
	}
	if code, _ := rawRequest(t, "GET", s.url+"/tasks/"+ids[0], nil, ""); code != 404 {
		t.Errorf("GET the first task: %d, want 404 (forgotten past --max-task-bytes)", code)
	}
	if heap > 200<<20 {
		t.Errorf("heap %.0f MB with --max-task-bytes 40 MB, want under 200 MB", heap/(1<<20))
	}
	// The budget is stated where users look for it.
	help := run(t, "", "serve", "--help")
	wantContains(t, "serve --help", help.stdout, "--max-task-bytes", "256 MiB", "bodies in flight")
	if grew := after - before; grew > 220<<10 {
		t.Errorf("serve's RSS grew by %d kB, want under 220 MB", grew)
	}
}

// TestServeHeaderFlood: headers are bounded at 64 KiB (431 past it), so 600 connections that each send a megabyte
// of header lines cannot hold 600 MB, as they did with net/http's default of 1 MiB (850 MB here before).
func TestServeHeaderFlood(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--quiet")
	pid := s.cmd.Process.Pid
	host := strings.TrimPrefix(s.url, "http://")
	before := rssKB(t, pid)
	line := "X-Pad: " + strings.Repeat("a", 8000) + "\r\n"
	const conns = 600
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	for range conns {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetDeadline(time.Now().Add(60 * time.Second))
			go func() { // a megabyte of headers, never ended; serve stops reading (and closes) first
				_, _ = fmt.Fprintf(c, "POST /message:send HTTP/1.1\r\nHost: %s\r\n", host)
				for range 128 {
					if _, err := io.WriteString(c, line); err != nil {
						return
					}
				}
			}()
			answer := "closed"
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				answer = strconv.Itoa(resp.StatusCode)
			}
			mu.Lock()
			answers[answer]++
			mu.Unlock()
		}()
	}
	wg.Wait() // every connection was answered or closed by serve
	peak := peakKB(t, pid)
	t.Logf("serve RSS %d kB before, peak %d kB with %d connections sending 1 MB of headers; answers %v",
		before, peak, conns, answers)
	if answers["431"] == 0 {
		t.Errorf("no 431 answer: %v", answers)
	}
	if grew := peak - before; grew > 200<<10 {
		t.Errorf("serve's peak RSS grew by %d kB, want under 200 MB", grew)
	}
}

// TestServeTaskItemsMemory plays a client that sends message after message of tiny parts to one task (a v0.3 caller
// may reopen a finished task; echo answers each with a new artifact): the history and the artifacts one task keeps
// are bounded in count and in bytes, each item's overhead counted, not only its payload. Before the fix each message
// of 20,000 empty parts (520 KB of JSON) was kept whole, about 2.7 MB of parts: 270 MB of heap for these 100.
func TestServeTaskItemsMemory(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--quiet", "--protocol", "0.3", "--transport", "jsonrpc", "--max-artifact-bytes", strconv.Itoa(1<<20))
	pid := s.cmd.Process.Pid
	before := rssKB(t, pid)
	parts := strings.TrimSuffix(strings.Repeat(`{"kind":"text","text":""},`, 20000), ",")
	rpc := func(method, params string) []byte {
		t.Helper()
		code, body := rawRequest(t, "POST", s.url+"/", map[string]string{"Content-Type": "application/json"},
			`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`)
		if code != 200 || strings.Contains(body, `"error"`) {
			t.Fatalf("%s: %d %.300s", method, code, body)
		}
		return []byte(body)
	}
	var task struct {
		Result struct {
			ID        string            `json:"id"`
			History   []json.RawMessage `json:"history"`
			Artifacts []struct {
				Parts []json.RawMessage `json:"parts"`
			} `json:"artifacts"`
			Metadata map[string]any `json:"metadata"`
		} `json:"result"`
	}
	const turns = 100
	for i := range turns {
		taskID := ""
		if i > 0 {
			taskID = fmt.Sprintf(`"taskId":%q,`, task.Result.ID)
		}
		body := rpc("message/send", fmt.Sprintf(`{"message":{"kind":"message","role":"user","messageId":"m-%d",%s"parts":[%s]}}`,
			i, taskID, parts))
		if i == 0 {
			if err := json.Unmarshal(body, &task); err != nil || task.Result.ID == "" {
				t.Fatalf("first send: %v: %.300s", err, body)
			}
		}
	}
	heap := value(scrape(t, s.url, ""), "go_memstats_heap_alloc_bytes")
	peak := peakKB(t, pid)
	if err := json.Unmarshal(rpc("tasks/get", fmt.Sprintf(`{"id":%q}`, task.Result.ID)), &task); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, h := range task.Result.History {
		kept += strings.Count(string(h), `"kind":"text"`)
	}
	for _, a := range task.Result.Artifacts {
		kept += len(a.Parts)
	}
	t.Logf("serve RSS %d kB before, peak %d kB after %d messages of 20,000 parts to one task; heap %.0f MB; the task "+
		"keeps %d messages, %d artifacts, %d parts; metadata %v", before, peak, turns, heap/(1<<20),
		len(task.Result.History), len(task.Result.Artifacts), kept, task.Result.Metadata)
	// 1 MiB of history and 1 MiB of artifacts at 128 bytes a part hold about 16,000 parts.
	if kept > 20000 {
		t.Errorf("the task keeps %d parts, want at most about 16,000 (1 MiB each of history and artifacts)", kept)
	}
	if task.Result.Metadata["a2a-cli/history-dropped"] == nil || task.Result.Metadata["a2a-cli/artifacts-dropped"] == nil {
		t.Errorf("the task's metadata does not count what was dropped: %v", task.Result.Metadata)
	}
	if heap > 100<<20 {
		t.Errorf("heap %.0f MB after the flood, want under 100 MB", heap/(1<<20))
	}
}
