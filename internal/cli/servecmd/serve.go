package servecmd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/proxy"
)

// Deps is what the serve verb takes from the CLI's run.
type Deps struct {
	// Err receives the traffic log and the "listening on" line.
	Err io.Writer
	// Getenv reads the environment (serve's token variable).
	Getenv func(string) string
	// Opts are the root's client flags: --auth and --svc-param go to the proxy's upstream; a proxy sets
	// NoRefusedRetry. TLS (--cacert, --cert/--key, --insecure) reaches the proxy and the A3S bridge through the
	// Dialer's Upstream.
	Opts *client.Options
	// Verbose is the root's -v, read once the flags are parsed.
	Verbose *bool
	// Dialer is the run's dialer: the proxy reaches its upstream through it.
	Dialer func() *client.Dialer
	// Given reports whether a flag was given on the command line, not taken from the environment or a dotenv file;
	// nil => every flag set counts as given.
	Given func(flag string) bool
}

type serveOptions struct {
	d             Deps
	echo          bool
	proxy         string
	execCmd       string
	execEnv       []string
	chunk         string
	chunkSet      bool
	input         string
	execTimeout   time.Duration
	maxConcurrent int
	port          int
	host          string
	name          string
	description   string
	transports    string
	protocol      string
	cardFile      string
	cardCompat    bool
	replay        replayOptions
	quiet         bool
	maxTaskBytes  int64
	maxTasks      int
	taskTTL       time.Duration
	maxArtBytes   int64
	guard         serveGuardOptions
	ops           serveOpsOptions
	pushAllow     []string
	store         string
	lease         time.Duration
	ui            bool // serve_ui.go
	a3s           a3sOptions
}

// New is the serve verb: its flags become a serve.Config with its Backend, and serve.Run runs it.
func New(d Deps) *cobra.Command {
	o := &serveOptions{d: d}
	cmd := &cobra.Command{
		Use:   "serve (--echo | --proxy <url> | --exec <command> | --replay <file> | --a3s <addr>)",
		Short: "Serve an A2A agent: echo, a proxy to another agent, or any command",
		Long: `Start an A2A server on --host:--port (127.0.0.1:8080 by default) backed by one of:

  --echo          return the user's message back: the "ping" for agents
  --proxy URL     forward every call to an upstream agent, logging traffic to stderr
  --exec CMD      run CMD per message: the message on stdin, stdout becomes the response artifact;
                  with --chunk=DELIM, stdout streams out in DELIM-separated chunks as they are written
  --replay FILE   serve a recorded session turn by turn (repeatable: branches sharing a prefix);
                  --speed 1 replays in real time; --proxy URL --record FILE writes such a recording
  --a3s ADDR      bridge to a coding agent speaking the A3S Code Agent Interface over gRPC (HOST:PORT,
                  https:// for TLS); --a3s-dialect seed|a3s, --workspace DIR for its sessions

The card is served at /.well-known/agent-card.json and lists every transport served (--transport takes one
of rest, jsonrpc, grpc, or a comma list served together on the same port). Once ready, one line
"listening on <url>" goes to stderr. Ctrl-C stops accepting, ends open streams and stops every subprocess.

Web pages of other origins are refused (--allow-origin lets one in), so are Host names that are not this
machine's on a loopback listener (--allow-host); beyond loopback, --exec, --proxy and --a3s need a --token.
Request bodies are capped by --max-request-bytes, and all the bodies in flight by 64 times that (past it:
503 with Retry-After). Finished tasks are kept for --task-ttl, at most --max-tasks of them and
--max-task-bytes (256 MiB) together, the oldest forgotten first.

For operators: --tls-cert/--tls-key serve every transport over TLS; the traffic log has one line per call
and per refused request (--log-format json: one object per line); GET /healthz answers without the token,
GET /metrics is Prometheus' text format (behind the token; --no-metrics turns it off).`,
		Example: `  a2a serve --echo
  a2a serve --echo --port 9090 --name "Echo Agent"
  a2a serve --echo --port 0 --transport rest,jsonrpc,grpc
  a2a serve --proxy https://upstream-agent.example --auth "Bearer $TOKEN"
  a2a serve --proxy https://upstream-agent.example --svc-param "X-Request-Source=a2a-proxy"
  a2a serve --exec "python -u a2a_unaware_agent.py"
  a2a serve --exec "for i in 1 2 3; do echo \$i; sleep 0.5; done" --chunk=$'\n'
  a2a serve --exec "echo 'alpha beta gamma'" --chunk=' '
  a2a serve --exec "./agent.sh" --store sqlite:tasks.db
  a2a serve --replay approve.jsonl --replay reject.jsonl --speed 1
  a2a serve --proxy http://localhost:41242 --record session.jsonl
  a2a serve --echo --port 8443 --tls-cert server.pem --tls-key server-key.pem --log-format json
  a2a serve --a3s localhost:4088 --workspace ~/project`,
		Args: checkArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.chunkSet = cmd.Flags().Changed("chunk")
			defer o.replay.close()
			cfg, err := o.config(cmd)
			if err != nil {
				return err
			}
			return serve.Run(cmd.Context(), cfg)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.echo, "echo", false, "echo mode: return the message back")
	fl.StringVar(&o.proxy, "proxy", "", "proxy mode: forward every call to this upstream agent")
	fl.StringVar(&o.execCmd, "exec", "", "exec mode: run this shell command per message")
	fl.StringVar(&o.chunk, "chunk", "", "with --exec: stream stdout in chunks split at this delimiter (any bytes)")
	fl.StringVar(&o.input, "input", "text", "with --exec: what stdin gets: text (the message's parts) or json (the whole message)")
	fl.DurationVar(&o.execTimeout, "exec-timeout", 0, "with --exec: stop a command running longer than this (0: no limit)")
	fl.StringArrayVar(&o.execEnv, "exec-env", nil, "with --exec: pass serve's own variable NAME (A2ACLI_*, PG*: kept from the command) to it, or set NAME=VALUE (repeatable)")
	fl.IntVar(&o.maxConcurrent, "max-concurrent", 0, "with --exec: at most n commands at once, the rest wait in order (default 4 per CPU; 0: no limit)")
	fl.IntVar(&o.port, "port", 8080, "listen port (0: any free port)")
	fl.StringVar(&o.host, "host", "127.0.0.1", "bind address")
	fl.StringVar(&o.name, "name", "", "agent name for the generated card")
	fl.StringVar(&o.description, "description", "", "agent description for the generated card")
	fl.StringVar(&o.transports, "transport", "rest", "transports to serve: rest, jsonrpc, grpc, or a comma list")
	fl.StringVar(&o.protocol, "protocol", "latest", "protocol version: latest or 0.3")
	fl.StringVar(&o.cardFile, "card", "", "serve this agent card JSON instead of a generated one")
	fl.BoolVar(&o.cardCompat, "card-compat", false, "serve the card in a form both v0.3 and v1.0 clients read")
	fl.BoolVar(&o.quiet, "quiet", false, "no traffic log on stderr")
	fl.IntVar(&o.maxTasks, "max-tasks", 1000, "keep at most n finished tasks")
	fl.Int64Var(&o.maxTaskBytes, "max-task-bytes", 256<<20, "keep finished tasks within n bytes together (messages, artifacts, ~128 bytes a part), forgetting the oldest first (0: no limit)")
	fl.DurationVar(&o.taskTTL, "task-ttl", time.Hour, "forget finished tasks after this long")
	fl.Int64Var(&o.maxArtBytes, "max-artifact-bytes", 8<<20, "keep at most n bytes of a task's artifacts (dropping the oldest streamed chunks) and of each message in its history (0: no limit)")
	fl.StringVar(&o.store, "store", "memory", "where tasks are kept: memory, sqlite:PATH (survives restarts) or postgres://... (shared by replicas)")
	fl.DurationVar(&o.lease, "lease", 60*time.Second, "with a postgres:// --store: a replica silent this long has its running tasks failed by the others")
	fl.StringArrayVar(&o.pushAllow, "push-allow", nil, "also send push notifications to this webhook host (repeatable; '*': any host; loopback hosts always on a loopback listener, else only when one is named)")
	o.replay.addFlags(cmd)
	o.guard.addFlags(cmd)
	o.ops.addFlags(cmd)
	fl.BoolVar(&o.ui, "ui", false, "serve the inspector page (live calls, tasks, latency) at /_a2a/ on the same port")
	o.a3s.addFlags(cmd)
	// The backend flags (one required, one at most) are checked by checkArgs, in sentences.
	_ = cmd.RegisterFlagCompletionFunc("protocol", fixedCompletion("latest", "0.3")) // cannot fail: the flag exists
	_ = cmd.RegisterFlagCompletionFunc("input", fixedCompletion("text", "json"))     // cannot fail: the flag exists
	_ = cmd.MarkFlagFilename("card", "json")                                         // cannot fail: the flag exists
	// The root's --transport means "force a client transport"; serve's own flag shadows it with its own meaning.
	return cmd
}

func (o *serveOptions) config(cmd *cobra.Command) (serve.Config, error) {
	usage := func(format string, args ...any) error {
		return &client.UsageError{Msg: fmt.Sprintf(format, args...), Cmd: cmd.CommandPath()}
	}
	cfg := serve.Config{
		Host: o.host, Port: o.port, Name: o.name, Description: o.description, CardCompat: o.cardCompat,
		Quiet: o.quiet, Verbose: *o.d.Verbose, Log: o.d.Err, MaxTasks: o.maxTasks, TaskTTL: o.taskTTL,
		PushAllow: o.pushAllow, Store: o.store, Lease: o.lease,
	}
	if err := checkStore(o.store, o.lease, o.proxy != "", cmd.Flags().Changed("lease")); err != nil {
		return cfg, usage("%v", err)
	}
	if err := o.ops.apply(&cfg, usage); err != nil {
		return cfg, err
	}
	if o.port < 0 || o.port > 65535 {
		return cfg, usage("invalid --port %d: want 0 to 65535", o.port)
	}
	if o.maxTasks < 1 {
		return cfg, usage("invalid --max-tasks %d: want at least 1", o.maxTasks)
	}
	cfg.MaxArtifactBytes = o.maxArtBytes
	if o.maxArtBytes == 0 {
		cfg.MaxArtifactBytes = -1 // serve.Config's "no bound"
	}
	cfg.MaxTaskBytes = o.maxTaskBytes
	if o.maxTaskBytes == 0 {
		cfg.MaxTaskBytes = -1 // serve.Config's "no bound"
	}
	if o.maxTaskBytes < 0 {
		return cfg, usage("invalid --max-task-bytes %d: want 0 or more", o.maxTaskBytes)
	}
	if o.maxArtBytes < 0 {
		return cfg, usage("invalid --max-artifact-bytes %d: want 0 or more", o.maxArtBytes)
	}
	if o.taskTTL <= 0 {
		return cfg, usage("invalid --task-ttl %s: want a positive duration", o.taskTTL)
	}
	switch o.protocol {
	case "latest", "1.0", "":
		cfg.Protocol = "latest"
	case "0.3", "0.3.0":
		cfg.Protocol = "0.3"
	default:
		return cfg, usage("invalid --protocol %q: want latest or 0.3", o.protocol)
	}
	seen := map[a2a.TransportProtocol]bool{}
	for _, name := range strings.Split(o.transports, ",") {
		t, err := client.ParseTransport(strings.TrimSpace(name))
		if err != nil || t == "" {
			return cfg, usage("invalid --transport %q: want rest, jsonrpc, grpc or a comma list of them", o.transports)
		}
		if !seen[t] {
			cfg.Transports = append(cfg.Transports, t)
			seen[t] = true
		}
	}
	if o.cardFile != "" {
		body, err := os.ReadFile(o.cardFile)
		if err != nil {
			return cfg, usage("--card: %v", err)
		}
		card, err := client.ParseCard(body)
		if err != nil {
			return cfg, usage("--card %s: %v", o.cardFile, err)
		}
		cfg.Card, cfg.CardCaps = card, serve.DeclaredCaps(body)
	}
	if !o.execSet() && (o.chunkSet || cmd.Flags().Changed("input") || o.execTimeout != 0 || cmd.Flags().Changed("max-concurrent") || len(o.execEnv) > 0) {
		return cfg, usage("--chunk, --input, --exec-timeout, --exec-env and --max-concurrent go with --exec")
	}
	// A client's A2ACLI_AUTH or A2ACLI_SVC_PARAM in serve's environment is not serve's business (it reaches no
	// command: see --exec-env): only the flags themselves are refused without --proxy.
	if o.proxy == "" && (o.given("auth") && o.d.Opts.Auth != "" || o.given("svc-param") && len(o.d.Opts.SvcParams) > 0) {
		return cfg, usage("--auth and --svc-param go with --proxy")
	}
	if err := o.replay.check(cmd, o.proxy != ""); err != nil {
		return cfg, usage("%v", err)
	}
	risky := o.execSet() || o.proxy != "" || o.a3s.addr != "" || o.ui // --ui shows the traffic
	if err := o.guard.apply(&cfg, o.d.Getenv, risky, usage); err != nil {
		return cfg, err
	}
	o.applyUI(&cfg)
	if err := o.a3s.check(cmd); err != nil {
		return cfg, usage("%v", err)
	}
	switch {
	case o.a3s.addr != "":
		cfg.Backend = o.a3s.backend(o.d.Dialer().Upstream())
	case o.echo:
		cfg.Backend = serve.Echo()
	case len(o.replay.files) > 0:
		b, err := o.replay.backend()
		if err != nil {
			return cfg, usage("%v", err)
		}
		cfg.Backend = b
	case o.execSet():
		if o.chunkSet && o.chunk == "" {
			return cfg, usage("--chunk needs a delimiter, e.g. --chunk=$'\\n'")
		}
		if o.input != "text" && o.input != "json" {
			return cfg, usage("invalid --input %q: want text or json", o.input)
		}
		if o.maxConcurrent < 0 || o.execTimeout < 0 {
			return cfg, usage("--max-concurrent and --exec-timeout must not be negative")
		}
		for _, e := range o.execEnv {
			if name, _, _ := strings.Cut(e, "="); !envName(name) {
				return cfg, usage("invalid --exec-env %q: want NAME or NAME=VALUE, NAME letters, digits and _", name)
			}
		}
		ec := execbackend.Config{Command: o.execCmd, InputJSON: o.input == "json", Timeout: o.execTimeout, MaxConcurrent: o.maxConcurrent, Env: o.execEnv}
		if !cmd.Flags().Changed("max-concurrent") {
			// Bounded by default: a burst of messages queues instead of forking a process each.
			ec.MaxConcurrent = defaultMaxConcurrent()
		}
		if o.chunkSet {
			ec.Chunk = []byte(o.chunk)
		}
		cfg.Backend = execbackend.New(ec)
	default:
		if _, err := client.ParseRef(o.proxy); err != nil {
			return cfg, usage("invalid --proxy: %v", err)
		}
		headers, err := o.d.Opts.ServiceParams()
		if err != nil {
			return cfg, err
		}
		// A2A-Version is the version of a body: the byte path forwards the caller's body with the caller's header,
		// the decoding path's client writes its own (a version forced with --svc-param chooses its interface).
		delete(headers, http.CanonicalHeaderKey(a2a.SvcParamVersion))
		o.d.Opts.NoRefusedRetry = true // a proxy answers its callers at once when the upstream is down
		// Both of the proxy's paths reach the upstream through the run's dialer: the decoding path connects with it,
		// the byte path's transport is its Upstream's.
		pc := proxy.Config{Connect: o.connectUpstream, AuthInjected: o.d.Opts.Auth != "", Headers: headers,
			Upstream: o.proxy, Transport: o.d.Dialer().Upstream().Transport}
		cfg.Backend = proxy.New(pc)
		b, err := o.replay.wrapRecord(cfg.Backend)
		if err != nil {
			return cfg, usage("%v", err)
		}
		cfg.Backend = b
	}
	return cfg, nil
}

func (o *serveOptions) execSet() bool { return o.execCmd != "" }

// given reports whether flag was on the command line (see Deps.Given).
func (o *serveOptions) given(flag string) bool { return o.d.Given == nil || o.d.Given(flag) }

// envName reports whether name is a portable environment variable name.
func envName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// defaultMaxConcurrent is --max-concurrent when not given: four commands per CPU Go may use.
func defaultMaxConcurrent() int { return 4 * runtime.GOMAXPROCS(0) }

// connectUpstream resolves the proxy's upstream with the shared factory, whatever its transport or version.
func (o *serveOptions) connectUpstream(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	// serve's --transport names what we serve, not how to reach the upstream. The dialer is the run's: every
	// reconnect reuses its HTTP client and pool.
	c, err := o.d.Dialer().WithTransport("").Connect(ctx, o.proxy)
	if err != nil {
		return nil, nil, err
	}
	return c.Client, c.Card, nil
}

// noArgs rejects positional arguments with a usage error (as the CLI's exactArgs() does).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &client.UsageError{Msg: fmt.Sprintf("unexpected argument %q", args[0]), Cmd: cmd.CommandPath()}
	}
	return nil
}

func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
