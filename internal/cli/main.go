package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/config"
	"github.com/a2acli/a2a/internal/exec"
	"github.com/a2acli/a2a/internal/exitcode"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/termsafe"
)

// Main runs the a2a command line with args and returns the process exit code. It owns signal handling: the first
// SIGINT/SIGTERM cancels the running command (exit 130); a second one returns at once.
func Main(ctx context.Context, args []string, s *Streams) int {
	return run(ctx, args, s, nil)
}

// run is Main with setup, which tests use to change the run's state before the command runs.
func run(ctx context.Context, args []string, s *Streams, setup func(*factory)) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	defer signal.Stop(sigs)

	s, term := shareTerminal(s)
	f := &factory{io: s, term: term, opts: &globalOptions{}, log: &client.Log{W: s.Err},
		catchSignals: func() { signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM) }}
	if setup != nil {
		setup(f)
	}
	root := newRootCmdFor(f, args)         // lazy.go
	root.SetArgs(withAgentRef(root, args)) // canonical.go
	done := make(chan error, 1)
	go func() {
		growStack()
		done <- root.ExecuteContext(ctx)
	}()

	var err error
	select {
	case err = <-done:
	case <-sigs:
		cancel(client.ErrInterrupted)
		select {
		case err = <-done:
		case <-sigs:
			hardStop()
			err = client.ErrInterrupted
		}
	}
	if err != nil && !f.started {
		var ue *client.UsageError
		if !errors.As(err, &ue) && !errors.Is(err, client.ErrInterrupted) {
			err = &client.UsageError{Msg: didYouMean(err.Error()), Cmd: f.cmdPath}
		}
	}
	var ue *client.UsageError
	if errors.As(err, &ue) && f.opts.output != string(output.JSON) && outputAsked(args, s.getenv) == string(output.JSON) {
		// The flags failed to parse before -o was read: the usage error is still the JSON document asked for.
		f.opts.output = string(output.JSON)
	}
	if err != nil && errors.Is(context.Cause(ctx), client.ErrInterrupted) && !errors.Is(err, client.ErrInterrupted) {
		err = &client.CausedError{Cause: client.ErrInterrupted, Err: err}
	}
	if err == nil {
		err = f.flushJQ()
	}
	return f.report(err)
}

// hardStop runs on a second signal, just before Main returns: no subprocess may outlive us.
func hardStop() { exec.KillAll() }

// report prints err the way the output format wants and returns the exit code.
func (f *factory) report(err error) int {
	if err == nil {
		return exitcode.OK
	}
	c := exitcode.Classify(err)
	var te *exitcode.TaskOutcome
	var done *exitcode.Reported
	if errors.As(err, &done) {
		return exitcode.Failure // the report on stdout says what failed
	}
	if errors.As(err, &te) && !f.failDoc {
		// The result (and a warning or hint) is already out: --fail only changes the exit code. With -o json, the
		// error document stands for a result not printed (failReplacesResult).
		return c.Exit
	}
	if w := f.dialer().Withheld(); c.Code == exitcode.CodeAuthFailed && len(w) > 0 && !f.opts.sentCredentials(w) {
		// Every credential given was withheld: none of them fits a scheme the card declares.
		c.Code = exitcode.CodeCredentialsMissing
		c.Hint = strings.TrimPrefix(client.CredentialAdvice(f.agentCard)+"; ", "; ") +
			"--auth-undeclared sends " + w[0].Flag + " anyway, to an agent that does not declare what it accepts"
	}
	if c.Code == exitcode.CodeAuthFailed && !f.opts.hasCredentials() {
		c.Code, c.Hint = exitcode.CodeCredentialsMissing, "the agent wants credentials: pass them with --auth \"Bearer <token>\""
		if f.agentOAuth {
			c.Hint = "the agent wants an OAuth token: log in with: a2a auth login " + termsafe.ShellQuote(f.agentURL)
		}
	}
	if c.Code == exitcode.CodeAuthFailed && f.storedToken {
		c.Hint = "the agent refused the token of `a2a auth login`: log in again with: a2a auth login " + termsafe.ShellQuote(f.agentURL)
	}
	if from := f.dialer().WithheldFrom(); c.Exit == exitcode.Auth && len(from) > 0 {
		c.Hint = fmt.Sprintf("the credentials were not sent to %s, not the origin you named: pass --auth-all-origins if you trust it",
			strings.Join(from, ", "))
	}
	var ue *client.UsageError
	if errors.As(err, &ue) && ue.Cmd == "" && f.cmdPath != "" {
		c.Hint = fmt.Sprintf("run '%s --help' for usage", f.cmdPath)
	}
	msg := err.Error()
	if f.opts.output == string(output.JSON) {
		p := output.New(f.stdout(), output.Options{Format: output.JSON})
		if perr := p.Error(output.ErrorDoc{Code: c.Code, Message: msg, Hint: c.Hint, A2ACode: c.A2ACode, TaskID: c.TaskID, Data: c.Data}); perr == nil {
			return c.Exit
		}
	}
	if c.Exit == exitcode.Interrupted {
		fmt.Fprintln(f.io.Err, "a2a: interrupted")
		if c.TaskID != "" {
			// A live task was given up on: say how to follow it.
			fmt.Fprintf(f.io.Err, "hint: %s\n", c.Hint)
		}
		return c.Exit
	}
	fmt.Fprintf(f.io.Err, "a2a: %s\n", output.Sanitize(oneLine(msg)))
	if c.Hint != "" {
		fmt.Fprintf(f.io.Err, "hint: %s\n", output.Sanitize(c.Hint))
	}
	return c.Exit
}

// didYouMean turns cobra's suggestions ("…\n\nDid you mean this?\n\tsend\n") into one sentence that reads on one
// line: `unknown command "sned" for "a2a"; did you mean send?`.
func didYouMean(msg string) string {
	head, tail, ok := strings.Cut(msg, "\n\nDid you mean this?\n")
	if !ok {
		return msg
	}
	names := strings.Fields(tail)
	if len(names) == 0 {
		return head
	}
	return head + "; did you mean " + strings.Join(names, " or ") + "?"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// newRootShell is the root command with its flags and no commands.
func newRootShell(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "a2a",
		Short: "netcat for agents: talk to any A2A agent, or serve one",
		Long: `a2a talks to any A2A (Agent2Agent) agent - protocol v1.0 and v0.3, over JSON-RPC, HTTP+JSON (REST) and gRPC -
and serves agents of its own (echo, a proxy, or any command).

The agent <url> may be a base URL, a bare host:port, the card's URL, or a local card file.
Data goes to stdout; progress, warnings and hints go to stderr.

Exit codes: 0 done, 1 failure, 2 usage, 3 unreachable or no card, 4 authentication, 5 --timeout,
130 interrupted; with --fail also 6 (task failed, rejected or canceled) and 7 (input or auth required).`,
		Example: `  a2a serve --echo --port 8080 &
  a2a discover localhost:8080
  a2a send localhost:8080 "hello"
  a2a send localhost:8080 "hello" --stream -o json | jq -c .
  a2a list tasks localhost:8080 --status completed`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		Version:           cmp.Or(version, "dev"), // the switch for --version; versionTemplate prints the line
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if f.catchSignals != nil {
				f.catchSignals()
			}
			f.cmdPath = cmd.CommandPath()
			sources, err := config.ApplyFor(cmd.Flags(), f.io.getenv, f.io.In, agentOf(cmd, args)) // canonical.go
			if err != nil {
				return withCmd(err, f.cmdPath)
			}
			f.sources = sources
			if err := f.prepareEveryday(cmd.Flags()); err != nil {
				return withCmd(err, f.cmdPath)
			}
			if err := f.applyCanonical(cmd); err != nil {
				return withCmd(err, f.cmdPath)
			}
			switch f.opts.output {
			case string(output.Text), string(output.JSON), string(output.Raw):
			default:
				return &client.UsageError{Msg: fmt.Sprintf("invalid --output %q: want text, json or raw", f.opts.output), Cmd: f.cmdPath}
			}
			if f.opts.MaxResponseBytes < 0 {
				return &client.UsageError{Msg: "invalid --max-response-bytes: must not be negative", Cmd: f.cmdPath}
			}
			if f.opts.Timeout < 0 {
				return &client.UsageError{Msg: "invalid --timeout: must not be negative", Cmd: f.cmdPath}
			}
			if err := cmd.ValidateFlagGroups(); err != nil {
				return &client.UsageError{Msg: err.Error(), Cmd: f.cmdPath}
			}
			f.log.Enabled, f.log.Debug = f.opts.verbose || f.opts.canon.debug, f.opts.canon.debug
			if f.opts.Insecure {
				msg := "warning: --insecure: TLS certificates are not verified"
				if f.opts.hasCredentials() {
					// The a2a-cli specification, §12.1: a credential sent without verification is flagged loudly.
					msg += "; the credentials given go to a peer whose identity is not checked: anyone on the path can read them"
				}
				fmt.Fprintln(f.io.Err, msg)
			}
			f.started = true
			return nil
		},
	}
	root.SetOut(f.io.Out)
	root.SetErr(f.io.Err)
	root.SetIn(f.io.In)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &client.UsageError{Msg: err.Error(), Cmd: cmd.CommandPath()}
	})
	root.SetVersionTemplate(versionTemplate())
	setUsage(root) // usage.go

	pf := root.PersistentFlags()
	pf.StringVarP(&f.opts.output, "output", "o", "text", "output format: text, json, or raw (only the agent's content, byte for byte)")
	pf.StringArrayVar(&f.opts.canon.transports, "transport", nil, "force a transport: rest, jsonrpc or grpc; repeat (or a comma list) for an order of preference, bindings the card lacks skipped, the card's order when it has none of them (default: from the card)")
	pf.StringArrayVar(&f.opts.SvcParams, "svc-param", nil, "service parameter `key=value`, sent as a header or gRPC metadata (repeatable)")
	pf.StringVar(&f.opts.Auth, "auth", "", "credentials, shorthand for --svc-param \"Authorization=<creds>\"")
	pf.StringVar(&f.opts.Tenant, "tenant", "", "tenant id, passed on every request")
	pf.DurationVar(&f.opts.Timeout, "timeout", 30*time.Second, "bound on connecting and each call (0: none); on streams, silence this long asks GetTask whether the task is alive")
	pf.BoolVarP(&f.opts.verbose, "verbose", "v", false, "print what travels to stderr (credentials redacted)")
	pf.BoolVar(&f.opts.Insecure, "insecure", false, "skip TLS certificate verification")
	pf.BoolVar(&f.opts.NoCardCache, "no-card-cache", false, "fetch the agent card anew: neither read nor write the card cache (a card is cached per its HTTP caching headers, see docs/client.md)")
	pf.BoolVar(&f.opts.AuthUndeclared, "auth-undeclared", false, "send --bearer and --api-key even to an agent whose card declares no security scheme that takes them (by default they go only per the card's schemes)")
	pf.BoolVar(&f.opts.AuthAllOrigins, "auth-all-origins", false, "send credentials to every origin, not only the one <url> names (a card's interface elsewhere, a redirect)")
	pf.Int64Var(&f.opts.MaxResponseBytes, "max-response-bytes", client.DefaultMaxResponseBytes, "refuse a reply (or card) larger than `n` bytes; streams are bounded per event (0: no limit)")
	pf.StringArrayVar(&f.opts.Extensions, "extension", nil, "activate an extension by `URI` (A2A-Extensions header, repeatable); the card's required ones are always on")
	pf.BoolVar(&f.opts.verify, "verify", false, "refuse an agent card whose signature is not verified (exit 8)")
	pf.StringArrayVar(&f.opts.trustKeys, "trust-keys", nil, "verify card signatures with this key set: a JWKS or PEM public key, a `FILE` or https URL (repeatable)")
	f.addEverydayFlags(pf)
	f.addCanonicalGlobals(pf)
	_ = root.RegisterFlagCompletionFunc("output", fixedCompletion("text", "json", "jsonl", "raw")) // cannot fail: the flag exists
	_ = root.RegisterFlagCompletionFunc("transport", fixedCompletion("rest", "jsonrpc", "grpc"))   // cannot fail: the flag exists

	return root
}

// newRootCmd is the whole command tree: the root and every command (lazy.go builds only what a run needs).
func newRootCmd(f *factory) *cobra.Command {
	root := newRootShell(f)
	for _, v := range verbs {
		root.AddCommand(v.buildIn(f))
	}
	addFlagAliases(root)
	f.acceptEnvAgent(root)
	f.setupHelp(root)
	return root
}

// nounArgs rejects a verb used without its noun ("a2a get"), naming the nouns it takes.
func nounArgs(cmd *cobra.Command, args []string) error {
	var nouns []string
	for _, c := range cmd.Commands() {
		nouns = append(nouns, c.Name())
	}
	if len(args) == 0 {
		return &client.UsageError{Msg: fmt.Sprintf("%s needs a noun: %s", cmd.CommandPath(), strings.Join(nouns, ", ")), Cmd: cmd.CommandPath()}
	}
	ue := &client.UsageError{Msg: fmt.Sprintf("unknown noun %q for %s: want %s", args[0], cmd.CommandPath(), strings.Join(nouns, ", ")), Cmd: cmd.CommandPath()}
	if s := suggestNoun(cmd, args[0]); s != "" {
		return client.WithHint(ue, fmt.Sprintf("did you mean '%s %s'? run '%s --help' for usage", cmd.CommandPath(), s, cmd.CommandPath()))
	}
	return ue
}

func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// exactArgs is cobra.ExactArgs with a usage error that names what is missing.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < len(names) {
			return &client.UsageError{Msg: fmt.Sprintf("missing %s", strings.Join(names[len(args):], " and ")), Cmd: cmd.CommandPath()}
		}
		if len(args) > len(names) {
			return &client.UsageError{Msg: fmt.Sprintf("unexpected argument %q", args[len(names)]), Cmd: cmd.CommandPath()}
		}
		return nil
	}
}

// outputAsked is the output format args ask for (the last -o/--output; --jq implies json), else A2ACLI_OUTPUT's, read
// without parsing the flags.
func outputAsked(args []string, getenv func(string) string) string {
	asked := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "-o" || a == "--output":
			asked = next()
		case strings.HasPrefix(a, "--output="):
			asked = strings.TrimPrefix(a, "--output=")
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--"):
			asked = strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "=")
		case a == "--jq" || strings.HasPrefix(a, "--jq="):
			asked = string(output.JSON)
		}
	}
	if asked == "" {
		asked = getenv("A2ACLI_OUTPUT")
	}
	return asked
}

// commandStack is the stack a command's goroutine starts with. A goroutine starts with a few KiB of stack and
// doubles it whenever a call needs more, copying the stack and adjusting every frame on it; a send reaches a depth
// (cobra, the client, the stream follower, net/http) that took four such copies, each walking a deeper stack.
// Growing it once at the goroutine's start, while it holds two frames, took 3.5% of a send's instructions off
// (callgrind, 8.70 M to 8.40 M) and changed neither its page faults nor --help's.
const commandStack = 64 << 10

// growStack grows the calling goroutine's stack to commandStack at once (see there).
//
//go:noinline
func growStack() {
	var pad [commandStack]byte
	keep(pad[:])
}

// keep uses b so that the compiler keeps growStack's frame.
//
//go:noinline
func keep(b []byte) {
	if len(b) == 0 {
		panic("unreachable")
	}
}
