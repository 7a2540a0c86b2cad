package servecmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/serve"
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
	d            Deps
	backends     []backendFlags // backend.go: one file each
	port         int
	host         string
	name         string
	description  string
	transports   string
	protocol     string
	cardFile     string
	cardCompat   bool
	quiet        bool
	maxTaskBytes int64
	maxTasks     int
	taskTTL      time.Duration
	maxArtBytes  int64
	maxSubs      int
	maxTaskSubs  int
	guard        serveGuardOptions
	ops          serveOpsOptions
	pushAllow    []string
	store        string
	lease        time.Duration
	storeBacklog int64
	ui           bool // serve_ui.go
}

// New is the serve verb: its flags become a serve.Config with its Backend, and serve.Run runs it.
func New(d Deps) *cobra.Command {
	o := &serveOptions{d: d, backends: backends()}
	var uses []string
	var helps strings.Builder
	for _, b := range o.backends {
		uses = append(uses, b.about().use)
		helps.WriteString(b.about().help)
	}
	cmd := &cobra.Command{
		Use:   "serve (" + strings.Join(uses, " | ") + ")",
		Short: "Serve an A2A agent: echo, a proxy to another agent, or any command",
		Long: "Start an A2A server on --host:--port (127.0.0.1:8080 by default) backed by one of:\n\n" + helps.String() + `
The card is served at /.well-known/agent-card.json and lists every transport served (--transport takes one
of rest, jsonrpc, grpc, or a comma list served together on the same port). Once ready, one line
"listening on <url>" goes to stderr. Ctrl-C stops accepting, ends open streams and stops every subprocess.

Web pages of other origins are refused (--allow-origin lets one in), so are Host names that are not this
machine's on a loopback listener (--allow-host); beyond loopback, --exec, --proxy and --a3s need a --token.
Request bodies are capped by --max-request-bytes, and all the bodies in flight by 64 times that (past it:
503 with Retry-After). Finished tasks are kept for --task-ttl, at most --max-tasks of them and
--max-task-bytes (256 MiB) together, the oldest forgotten first. Subscriptions held open are bounded:
--max-subscriptions-per-task on one task, --max-subscriptions in all; one more is refused at once.

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
		Args: o.checkArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer func() {
				for _, b := range o.backends {
					b.close()
				}
			}()
			cfg, err := o.config(cmd)
			if err != nil {
				return err
			}
			return serve.Run(cmd.Context(), cfg)
		},
	}
	for _, b := range o.backends {
		b.addFlags(cmd)
	}
	fl := cmd.Flags()
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
	fl.Int64Var(&o.maxArtBytes, "max-artifact-bytes", 8<<20, "keep at most n bytes of a task's artifacts and as many of its history, each part counted as its payload and 128 bytes (the oldest go first; 0: no limit)")
	fl.IntVar(&o.maxTaskSubs, "max-subscriptions-per-task", serve.MaxSubscriptionsPerTask, "hold at most n subscriptions (SubscribeToTask streams) open on one task; one more is refused")
	fl.IntVar(&o.maxSubs, "max-subscriptions", serve.MaxSubscriptions, "hold at most n subscriptions (SubscribeToTask streams) open in all; one more is refused")
	fl.StringVar(&o.store, "store", "memory", "where tasks are kept: memory, sqlite:PATH (survives restarts) or postgres://... (shared by replicas)")
	fl.DurationVar(&o.lease, "lease", 60*time.Second, "with a postgres:// --store: a replica silent this long has its running tasks failed by the others")
	fl.Int64Var(&o.storeBacklog, "store-backlog", 64<<20, "with a postgres:// --store: keep at most n bytes of events while the database is away; past it running tasks pause until it is back")
	fl.StringArrayVar(&o.pushAllow, "push-allow", nil, "also send push notifications to this webhook host (repeatable; '*': any host but link-local and cloud metadata addresses, which must be named; loopback hosts always on a loopback listener that no --public-url or --allow-host publishes, else only when one is named)")
	o.guard.addFlags(cmd)
	o.ops.addFlags(cmd)
	fl.BoolVar(&o.ui, "ui", false, "serve the inspector page (live calls, tasks, latency) at /_a2a/ on the same port")
	// The backend flags (one required, one at most) are checked by checkArgs, in sentences.
	_ = cmd.RegisterFlagCompletionFunc("protocol", fixedCompletion("latest", "0.3")) // cannot fail: the flag exists
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
		PushAllow: o.pushAllow, Store: o.store, Lease: o.lease, StoreBacklog: o.storeBacklog,
	}
	if err := checkStore(o.store, o.lease, cmd.Flags().Changed("lease"), o.storeBacklog, cmd.Flags().Changed("store-backlog")); err != nil {
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
	if o.maxTaskSubs < 1 {
		return cfg, usage("invalid --max-subscriptions-per-task %d: want at least 1", o.maxTaskSubs)
	}
	if o.maxSubs < 1 {
		return cfg, usage("invalid --max-subscriptions %d: want at least 1", o.maxSubs)
	}
	cfg.MaxSubscriptionsPerTask, cfg.MaxSubscriptions = o.maxTaskSubs, o.maxSubs
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
	v := &verb{cmd: cmd, d: o.d, cfg: &cfg}
	var chosen backendFlags
	risky := o.ui // --ui shows the traffic
	for _, b := range o.backends {
		if err := b.check(v); err != nil {
			return cfg, usage("%v", err)
		}
		if b.chosen() {
			chosen, risky = b, risky || b.about().risky
		}
	}
	if chosen == nil { // checkArgs said so already
		return cfg, usage("serve needs a backend, one of: %s", o.backendList())
	}
	if err := o.guard.apply(&cfg, o.d.Getenv, risky, usage); err != nil {
		return cfg, err
	}
	o.applyUI(&cfg)
	b, err := chosen.build(v)
	var ue *client.UsageError
	switch {
	case errors.As(err, &ue):
		return cfg, err
	case err != nil:
		return cfg, usage("%v", err)
	}
	cfg.Backend = b
	return cfg, nil
}

func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
