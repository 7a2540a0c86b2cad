package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/bench"
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/message"
	"github.com/a2acli/a2a/internal/output"
)

// Without --yes, a run against an agent off this machine stays within the defaults.
const (
	benchMaxRequests = 10000
	benchMaxDuration = 10 * time.Second
	benchMaxWorkers  = 1000
)

type benchOptions struct {
	f          *factory
	withClient withClientFunc
	url        string
	msg        message.Input
	size       int

	workers      int
	requests     int
	duration     time.Duration
	rate         float64
	warmup       time.Duration
	stream, poll bool
	get          bool
	mix          string
	pollInterval time.Duration
	yes          bool
	compare      string
	record       string
}

func newBenchCmd(f *factory, runF func(context.Context, *benchOptions) error) *cobra.Command {
	o := &benchOptions{f: f, withClient: f.withClient}
	cmd := &cobra.Command{
		Use:   "bench <url> [message]",
		Short: "Measure an agent under load: throughput, latency percentiles, errors",
		Long: `Send requests to an agent on the binding its card lists (or --transport) and report throughput, latency
percentiles from an HDR histogram, errors by class and the tasks' final states.

Closed loop by default: -c workers, each sending its next request when the last one answered, for --duration or
-n requests, whichever comes first. With --rate, an open loop: requests start at that rate and each is timed from
when it should have started, so an agent that stalls shows in the tail (coordinated omission corrected).

Against an agent off this machine, more than 10000 requests or 10s needs --yes.`,
		Example: `  a2a bench localhost:8080 -n 100                          # 100 blocking sends, one worker
  a2a bench localhost:8080 -c 16 -n 200 "hello"            # 16 workers
  a2a bench localhost:8080 --rate 50 --duration 2s         # open loop at 50 requests/s
  a2a bench localhost:8080 --stream --size 1024 -n 100     # streams: time to first event, gaps
  a2a bench localhost:8080 --mix send=8,get=2 -n 100 -o json > before.json
  a2a bench localhost:8080 -n 100 --compare before.json    # the change, marked beyond the noise
  a2a bench localhost:8080 --rate 20 --mix send=2,stream=2,poll=1,subscribe=1,cancel=1 --record tasks.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exactArgs("<url>")(cmd, args)
			}
			if len(args) > 2 {
				return exactArgs("<url>", "[message]")(cmd, args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if len(args) > 1 {
				o.msg.Text, o.msg.HasText = args[1], true
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runBench(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&o.workers, "concurrency", "c", 0, "concurrent requests (default 1; with --rate, 64 at most in flight)")
	fl.IntVarP(&o.requests, "requests", "n", benchMaxRequests, "stop after this many measured requests (0: no bound)")
	fl.DurationVar(&o.duration, "duration", benchMaxDuration, "stop after this long, warm-up not included (0: no bound)")
	fl.Float64Var(&o.rate, "rate", 0, "open loop: start this many requests per second, each timed from its intended start")
	fl.DurationVar(&o.warmup, "warmup", 0, "send for this long first without counting")
	fl.BoolVar(&o.stream, "stream", false, "stream each message: also time to first event and gaps between events")
	fl.BoolVar(&o.poll, "poll", false, "send with ReturnImmediately and poll GetTask until the task ends")
	fl.BoolVar(&o.get, "get", false, "GetTask of one task (sent first, not counted)")
	fl.StringVar(&o.mix, "mix", "", "a weighted mix of `send=W,stream=W,poll=W,get=W,subscribe=W,cancel=W`")
	fl.DurationVar(&o.pollInterval, "poll-interval", 50*time.Millisecond, "with --poll: time between GetTask calls")
	fl.IntVar(&o.size, "size", 0, "send a generated text of `n` bytes")
	fl.StringVarP(&o.msg.File, "message-file", "f", "", "read the Message (or a parts array) from a JSON file, - for stdin")
	fl.BoolVar(&o.yes, "yes", false, "allow more than 10000 requests or 10s against an agent off this machine")
	fl.StringVar(&o.compare, "compare", "", "print the change from a previous run's -o json `file`")
	fl.StringVar(&o.record, "record", "", "write one JSON line per request to `file`: op, task id, final state, error and its class, times")
	cmd.MarkFlagsMutuallyExclusive("stream", "poll", "get", "mix")
	_ = cmd.MarkFlagFilename("message-file") // cannot fail: the flag exists
	_ = cmd.MarkFlagFilename("compare", "json")
	return cmd
}

// benchOps are the weighted ops --mix (or --stream, --poll, --get) asks for.
func (o *benchOptions) weights() ([]string, []int, error) {
	switch {
	case o.stream:
		return []string{"stream"}, []int{1}, nil
	case o.poll:
		return []string{"poll"}, []int{1}, nil
	case o.get:
		return []string{"get"}, []int{1}, nil
	case o.mix == "":
		return []string{"send"}, []int{1}, nil
	}
	var names []string
	var ws []int
	for _, part := range strings.Split(o.mix, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(w)
		if !ok || err != nil || n < 0 || n > 1000 {
			return nil, nil, client.Usagef("--mix %q: want name=weight pairs, weights 0 to 1000, e.g. send=8,get=2", o.mix)
		}
		switch name {
		case "send", "stream", "poll", "get", "subscribe", "cancel":
		default:
			return nil, nil, client.Usagef("--mix: unknown request %q: want send, stream, poll, get, subscribe or cancel", name)
		}
		if n > 0 {
			names, ws = append(names, name), append(ws, n)
		}
	}
	if len(names) == 0 {
		return nil, nil, client.Usagef("--mix %q: no request has a weight", o.mix)
	}
	return names, ws, nil
}

func (o *benchOptions) check() error {
	switch {
	case o.requests < 0 || o.duration < 0 || o.warmup < 0 || o.rate < 0 || o.size < 0 || o.workers < 0:
		return client.Usagef("-c, -n, --duration, --warmup, --rate and --size cannot be negative")
	case o.requests == 0 && o.duration == 0:
		return client.Usagef("-n 0 and --duration 0 would never stop: give one a bound")
	case o.workers > benchMaxWorkers:
		return client.Usagef("-c %d: at most %d", o.workers, benchMaxWorkers)
	case o.rate > 1e6:
		return client.Usagef("--rate %g: at most 1000000", o.rate)
	case o.pollInterval <= 0:
		return client.Usagef("--poll-interval must be positive")
	case o.size > 0 && (o.msg.HasText || o.msg.File != ""):
		return client.Usagef("give the message one way only: text, --size or -f")
	}
	if o.workers == 0 {
		o.workers = 1
		if o.rate > 0 {
			o.workers = 64
		}
	}
	return nil
}

// beyondDefaults says what of the run exceeds the defaults an agent off this machine gets without --yes.
func (o *benchOptions) beyondDefaults() string {
	switch {
	case o.requests == 0 || o.requests > benchMaxRequests:
		return fmt.Sprintf("more than %d requests", benchMaxRequests)
	case o.duration == 0 || o.duration+o.warmup > benchMaxDuration:
		return fmt.Sprintf("longer than %s", benchMaxDuration)
	}
	return ""
}

func runBench(ctx context.Context, o *benchOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	names, weights, err := o.weights()
	if err != nil {
		return err
	}
	var prev *bench.Report
	if o.compare != "" {
		if prev, err = readBenchReport(o.compare); err != nil {
			return err
		}
	}
	if o.size > 0 {
		o.msg.Text, o.msg.HasText = benchText(o.size), true
	} else if !o.msg.HasText && o.msg.File == "" {
		o.msg.Text, o.msg.HasText = "ping", true
	}
	base, err := message.Build(&o.msg, o.f.io.In)
	if err != nil {
		return err
	}
	var rec *benchRecorder
	if o.record != "" {
		if rec, err = openBenchRecord(o.record); err != nil {
			return err
		}
		defer rec.close()
	}
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		if why := o.beyondDefaults(); why != "" && !o.yes && !loopbackURL(c.Iface.URL) {
			return client.WithHint(client.Usagef("%s is not on this machine: a run %s needs --yes", c.Iface.URL, why),
				"check that you may load this agent, then add --yes")
		}
		b := &benchOps{c: c, base: base, tenant: o.f.opts.Tenant, pollEvery: o.pollInterval}
		ops := make([]bench.Op, len(names))
		for i, n := range names {
			if n == "send" && rec == nil {
				if b.wire, err = c.WireSend(ctx, b.request(false)); err != nil {
					return err
				}
			}
			ops[i] = bench.Op{Name: n, Weight: weights[i], Do: b.op(n)}
			if n == "get" && b.taskID == "" {
				if err := b.newTask(ctx); err != nil {
					return err
				}
			}
		}
		cfg := bench.Config{Workers: o.workers, Count: o.requests, Duration: o.duration, Rate: o.rate, Warmup: o.warmup,
			Ops: ops, Classify: func(err error) string {
				if ctx.Err() != nil {
					return "" // interrupted: not the agent's doing
				}
				return client.ErrorClass(err)
			}}
		if rec != nil {
			cfg.Trace = rec.write
		}
		if o.f.io.getenv("GOGC") == "" {
			// The generator's heap is a few MiB of short-lived answers: collecting it less often leaves the CPU to the
			// agent on the same machine (about 15% less CPU per request than the default 100).
			defer debug.SetGCPercent(debug.SetGCPercent(400))
		}
		live := &bench.Live{}
		stop := o.progress(live)
		rep := bench.Run(ctx, cfg, live)
		stop()
		rep.Mode = strings.Join(names, "+")
		rep.Target = bench.Target{URL: c.Iface.URL, Transport: string(c.Iface.ProtocolBinding), Version: string(c.Iface.ProtocolVersion)}
		if rec != nil {
			if err := rec.close(); err != nil {
				return err
			}
		}
		return o.print(rep, prev)
	})
}

func (o *benchOptions) print(rep *bench.Report, prev *bench.Report) error {
	var deltas []bench.Delta
	if prev != nil {
		deltas = rep.Compare(prev)
	}
	w := o.f.io.Out
	if o.f.opts.output == string(output.JSON) {
		doc := struct {
			*bench.Report
			Compare []bench.Delta `json:"compare,omitempty"`
		}{rep, deltas}
		enc := json.NewEncoder(w)
		return enc.Encode(doc)
	}
	rep.Target.URL = output.Sanitize(rep.Target.URL)
	rep.WriteText(w, o.f.io.OutTTY)
	if prev != nil {
		bench.WriteDeltas(w, deltas)
	}
	return nil
}

// progress shows a line on a terminal's stderr while the run goes; stop erases it.
func (o *benchOptions) progress(live *bench.Live) (stop func()) {
	if !o.f.io.ErrTTY {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(o.f.io.Err, "\r\x1b[K")
				return
			case now := <-t.C:
				el, ok := live.Measuring(now)
				if !ok {
					fmt.Fprint(o.f.io.Err, "\r\x1b[Kwarming up…")
					continue
				}
				n := live.Done.Load()
				fmt.Fprintf(o.f.io.Err, "\r\x1b[K%5.1fs  %d requests  %.0f req/s  %d errors", el.Seconds(), n,
					float64(n)/max(el.Seconds(), 0.001), live.Errors.Load())
			}
		}
	}()
	return func() { close(done); <-finished }
}

func readBenchReport(path string) (*bench.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, client.Usagef("--compare: %v", err)
	}
	defer f.Close()
	var r bench.Report
	if err := json.NewDecoder(io.LimitReader(f, 16<<20)).Decode(&r); err != nil || r.Latency == nil {
		return nil, client.Usagef("--compare %s: not the -o json of a2a bench", path)
	}
	return &r, nil
}

// benchText is a generated text of n bytes: words, so that an agent that tokenises sees text.
func benchText(n int) string {
	const words = "the quick brown fox jumps over the lazy dog "
	return strings.Repeat(words, n/len(words)+1)[:n]
}

// loopbackURL reports whether an interface URL (or a gRPC host:port) names this machine.
func loopbackURL(raw string) bool {
	host := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(raw); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
