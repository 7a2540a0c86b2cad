package e2e

import (
	"regexp"
	"testing"
)

// TestVerboseLogsEachCallOnce: under -v every A2A call has one start line and one end line with its duration, on
// every binding, however many events a stream carries (a2a-go calls interceptors once per event).
func TestVerboseLogsEachCallOnce(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--transport", "rest,jsonrpc,grpc")
	start := regexp.MustCompile(`(?m)^\* call \w+ \S+$`)
	end := regexp.MustCompile(`call (\w+) (done in|failed after) [0-9.]+(µs|ms|s)`)
	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		for _, args := range [][]string{
			{"send", srv.url, "hello", "--stream"},
			{"send", srv.url, "hello", "--blocking"},
		} {
			r := run(t, "", append(args, "-v", "--transport", tr)...)
			wantCode(t, r, 0)
			starts := len(start.FindAllString(r.stderr, -1))
			ends := end.FindAllStringSubmatch(r.stderr, -1)
			if starts != 1 || len(ends) != 1 {
				t.Fatalf("%s %v: %d call lines and %d end lines, want one of each:\n%s", tr, args, starts, len(ends), r.stderr)
			}
			method := map[string]string{"--stream": "SendStreamingMessage", "--blocking": "SendMessage"}[args[3]]
			if ends[0][1] != method || ends[0][2] != "done in" {
				t.Fatalf("%s %v: end line %q, want %s done", tr, args, ends[0][0], method)
			}
			if args[3] == "--stream" && !regexp.MustCompile(`done in \S+, [0-9]+ events`).MatchString(r.stderr) {
				t.Fatalf("%s %v: the stream's end line does not count its events:\n%s", tr, args, r.stderr)
			}
		}
	}
}
