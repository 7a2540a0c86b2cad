package cli

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/config"
	"github.com/a2acli/a2a/internal/message"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The a2a-cli specification's grammar, accepted beside the seed's (docs/grammar.md maps the two). Our verbs and
// flags stay as they are and come first in help; the specification's spellings are real commands and flags that
// reach the same code: `card get` and `task get|list|cancel|subscribe|push-config|download` are the same commands
// under a resource noun, `server` is serve, `-a/--agent-card` and `-e/--endpoint` name the agent the positional
// <url> names, and the flag aliases below write the same variables as ours. Where the two grammars give one word
// different meanings, the seed's meaning stays (the table in docs/grammar.md).

// canonicalOptions are the specification's global flags that have no seed spelling.
type canonicalOptions struct {
	agentCard, endpoint string
	a2aVersion          string
	// versionOptIn is the version the command line or the environment forces (--a2a-version, --svc-param
	// A2A-Version), "" when none or when only a config file does: what printed follow-up commands carry.
	versionOptIn string
	debug        bool
	transports   []string
	// jsonl: -o jsonl, which is -o json with one document per line (streams and lists).
	jsonl bool
}

// addCanonicalGlobals registers the specification's global flags on the root.
func (f *factory) addCanonicalGlobals(pf *pflag.FlagSet) {
	c := &f.opts.canon
	pf.StringVarP(&c.agentCard, "agent-card", "a", "", "the agent, as the a2a-cli specification names it: same as the positional <url>")
	pf.StringVarP(&c.endpoint, "endpoint", "e", "", "the agent's interface `URL`, used without fetching a card (with one --transport)")
	pf.StringVar(&c.a2aVersion, "a2a-version", "", "protocol `version` to speak: 1.0, or 0.3 (the opt-in an agent that speaks nothing newer needs); same as --svc-param A2A-Version=<version>")
	pf.BoolVar(&c.debug, "debug", false, "the raw wire on stderr: what -v shows, plus every body whole, event streams line by line and gRPC messages (credentials masked, control bytes escaped)")
	if cfg := pf.Lookup("config"); cfg != nil {
		pf.AddFlag(&pflag.Flag{Name: "env-file", Usage: "alias of --config (a2a-cli spelling)", Value: cfg.Value, DefValue: cfg.DefValue})
	}
}

// applyCanonical turns the specification's global flags into our options, once the flags parsed.
func (f *factory) applyCanonical(cmd *cobra.Command) error {
	c := &f.opts.canon
	f.opts.Transport = strings.Join(c.transports, ",")
	if f.opts.output == "jsonl" {
		f.opts.output, c.jsonl = string(output.JSON), true
	}
	c.versionOptIn = f.commandLineVersion()
	if c.a2aVersion != "" {
		f.opts.SvcParams = append(f.opts.SvcParams, "A2A-Version="+c.a2aVersion)
	}
	if c.endpoint != "" {
		if c.agentCard != "" {
			return &client.UsageError{Msg: "give the agent one way: --agent-card or --endpoint", Cmd: cmd.CommandPath()}
		}
		prefs, err := client.ParseTransports(f.opts.Transport)
		if err != nil {
			return err
		}
		if len(prefs) != 1 {
			return &client.UsageError{Msg: "--endpoint needs exactly one --transport: the binding the endpoint speaks", Cmd: cmd.CommandPath()}
		}
		f.opts.NoCard = true
	}
	return nil
}

// commandLineVersion is the protocol version other than the default that the command line or the environment
// forces, by --a2a-version or --svc-param A2A-Version; "" when none does. A version from a config file is left out:
// the file applies to a pasted follow-up command as well.
func (f *factory) commandLineVersion() string {
	given := func(flag string) bool {
		k := f.sources[flag].Kind
		return k == "flag" || k == "env"
	}
	v := ""
	if c := &f.opts.canon; c.a2aVersion != "" && given("a2a-version") {
		v = c.a2aVersion
	} else if given("svc-param") {
		for _, kv := range f.opts.SvcParams {
			if strings.EqualFold(svcParamKey(kv), "A2A-Version") {
				v = strings.TrimSpace(kv[strings.IndexAny(kv, "=:")+1:])
			}
		}
	}
	if v == string(a2a.Version) {
		return ""
	}
	return v
}

// agentOf is the agent a command names, its <url> (where -a/--agent-card put it too), for the settings scoped to
// that agent; "" for a command that names none.
func agentOf(cmd *cobra.Command, args []string) string {
	if len(args) > 0 && strings.Contains(cmd.Use, "<url>") {
		return args[0]
	}
	return ""
}

// agentRefFlags are the flags that name the agent in the specification's grammar.
func agentRefValue(args []string) (string, bool) {
	ref, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case a == "-a" || a == "--agent-card" || a == "-e" || a == "--endpoint":
			if i+1 < len(args) {
				ref, found = args[i+1], true
				i++
			}
		case strings.HasPrefix(a, "--agent-card="):
			ref, found = strings.TrimPrefix(a, "--agent-card="), true
		case strings.HasPrefix(a, "--endpoint="):
			ref, found = strings.TrimPrefix(a, "--endpoint="), true
		case len(a) > 2 && (strings.HasPrefix(a, "-a") || strings.HasPrefix(a, "-e")) && a[1] != '-':
			ref, found = strings.TrimPrefix(a[2:], "="), true
		}
	}
	return ref, found
}

// withAgentRef puts the agent -a/--agent-card or -e/--endpoint names where our grammar has it, the first positional
// argument after the command's words: `a2a task get -a HOST ID` runs as `a2a task get HOST -a HOST ID`.
func withAgentRef(root *cobra.Command, args []string) []string {
	ref, ok := agentRefValue(args)
	if !ok {
		return args
	}
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root || !cmd.Runnable() {
		return args
	}
	var chain []*cobra.Command
	for c := cmd; c != nil && c != root; c = c.Parent() {
		chain = append([]*cobra.Command{c}, chain...)
	}
	at, j := 0, 0
	for i, a := range args {
		if a == "--" {
			break
		}
		if j < len(chain) && (a == chain[j].Name() || chain[j].HasAlias(a)) {
			j++
			at = i + 1
		}
	}
	if j < len(chain) {
		return args
	}
	out := make([]string, 0, len(args)+1)
	out = append(out, args[:at]...)
	out = append(out, ref)
	return append(out, args[at:]...)
}

// acceptEnvAgent lets every command that takes an agent <url> take it from A2ACLI_AGENT_CARD (or A2ACLI_ENDPOINT),
// in the environment or a configuration file, when the command line names none: the specification's
// `a2a send --task-id <id> "<reply>"` and `a2a task get --wait <task-id>` with the agent configured. A command line
// with all its positionals keeps its own.
func (f *factory) acceptEnvAgent(c *cobra.Command) {
	if c.Name() == "serve" {
		return
	}
	if max, required, ok := positionals(c.Use); ok && max > 0 && c.RunE != nil && strings.Contains(c.Use, " <url>") {
		args, run := c.Args, c.RunE
		with := func(cmd *cobra.Command, a []string) []string {
			if len(a) != max-1 && len(a) >= required {
				return a
			}
			// Checking the arguments comes before the flags' other sources are read (f.sources): the agent is then
			// read from the environment and the files alone; once they are (running), from the flags they set.
			var ref string
			if f.sources == nil {
				if f.opts.canon.agentCard != "" || f.opts.canon.endpoint != "" {
					return a // on the command line: -a/-e put it among the arguments already
				}
				var err error
				if ref, err = f.configuredAgent(cmd); err != nil {
					// A file that cannot be read (a --config that is not there): the command reads the files again
					// before it runs and reports that, rather than a missing <url>.
					return append([]string{"<url>"}, a...)
				}
			} else {
				for _, name := range []string{"agent-card", "endpoint"} {
					if f.sources[name].Kind == "flag" {
						return a
					}
				}
				ref = cmp.Or(f.opts.canon.agentCard, f.opts.canon.endpoint)
			}
			if ref == "" {
				return a
			}
			return append([]string{ref}, a...)
		}
		if args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error { return args(cmd, with(cmd, a)) }
		}
		c.RunE = func(cmd *cobra.Command, a []string) error { return run(cmd, with(cmd, a)) }
	}
	for _, sub := range c.Commands() {
		f.acceptEnvAgent(sub)
	}
}

// configuredAgent is the agent the environment or a configuration file names (A2ACLI_AGENT_CARD or
// A2ACLI_ENDPOINT; agent-card: in YAML or JSON), read as the command will read them (--config, ./.env, the user's
// files), for checking the arguments before the command's own flags take them in.
func (f *factory) configuredAgent(cmd *cobra.Command) (string, error) {
	fs := pflag.NewFlagSet("agent", pflag.ContinueOnError)
	card := fs.String("agent-card", "", "")
	endpoint := fs.String("endpoint", "", "")
	fs.String("config", "", "")
	if fl := cmd.Flags().Lookup("config"); fl != nil && fl.Changed {
		_ = fs.Set("config", fl.Value.String()) // a string flag: cannot fail
	}
	if _, err := config.Apply(fs, f.io.getenv, nil); err != nil {
		return "", err
	}
	return cmp.Or(*card, *endpoint), nil
}

// positionals counts the <arg> and [arg] words of a Use line (max) and the <arg> ones (required); ok is false for
// a variadic command.
func positionals(use string) (max, required int, ok bool) {
	for _, w := range strings.Fields(use)[1:] {
		if strings.HasPrefix(w, "-") {
			break
		}
		if strings.HasSuffix(w, "...]") || strings.HasSuffix(w, "...>") {
			return 0, 0, false
		}
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") {
			max++
		}
		if strings.HasPrefix(w, "<") {
			required++
		}
	}
	return max, required, true
}

// flagAliases are the specification's spellings of our flags, per flag of ours: each writes the same variable.
var flagAliases = map[string][]string{
	"task":      {"task-id"},
	"context":   {"context-id"},
	"immediate": {"async", "return-immediately", "no-wait"},
	"save":      {"save-fileparts"},
	"json":      {"request-payload"},
}

// addFlagAliases gives every command under c the specification's spellings of its flags.
func addFlagAliases(c *cobra.Command) {
	if c.Name() == "serve" {
		return // serve's flags are the server's own; the specification's server verb has none of these
	}
	fs := c.Flags()
	for ours, theirs := range flagAliases {
		fl := fs.Lookup(ours)
		if fl == nil {
			continue
		}
		for _, name := range theirs {
			if fs.Lookup(name) != nil {
				continue
			}
			fs.AddFlag(&pflag.Flag{Name: name, Usage: "alias of --" + ours + " (a2a-cli spelling)",
				Value: fl.Value, DefValue: fl.DefValue, NoOptDefVal: fl.NoOptDefVal})
		}
	}
	for _, sub := range c.Commands() {
		addFlagAliases(sub)
	}
}

// partFlag is one of the part flags of send (--text-part, --file-part/--file, --data-part/--data): each use
// appends a part to the message, in command-line order.
type partFlag struct {
	kind  string
	parts *[]message.PartSpec
}

func (p *partFlag) String() string { return "" }
func (p *partFlag) Type() string   { return "string" }
func (p *partFlag) Set(v string) error {
	*p.parts = append(*p.parts, message.PartSpec{Kind: p.kind, Value: v})
	return nil
}

// mediaTypeFlag is --media-type: it binds to the part flag just before it.
type mediaTypeFlag struct {
	parts *[]message.PartSpec
}

func (m *mediaTypeFlag) String() string { return "" }
func (m *mediaTypeFlag) Type() string   { return "type" }
func (m *mediaTypeFlag) Set(v string) error {
	n := len(*m.parts)
	if n == 0 {
		return fmt.Errorf("--media-type binds to the part flag before it (--file, --file-part, --text-part, --data-part): give one first")
	}
	if (*m.parts)[n-1].MediaType != "" {
		return fmt.Errorf("the part before this --media-type already has one")
	}
	(*m.parts)[n-1].MediaType = v
	return nil
}

// addPartFlags registers send's part flags: ours (--file, --data) and the specification's, one ordered list.
func addPartFlags(fl *pflag.FlagSet, in *message.Input) {
	fl.Var(&partFlag{"file", &in.Extra}, "file", "attach a file (a path, or a URL sent by reference) as a file part (repeatable, in order)")
	fl.Var(&partFlag{"data", &in.Extra}, "data", "attach JSON from a file, - for stdin, or inline ('{\"k\":\"v\"}') as a data part (repeatable, in order)")
	fl.Var(&partFlag{"text", &in.Extra}, "text-part", "add a text part (a2a-cli spelling; repeatable, in order)")
	fl.Var(&partFlag{"text", &in.Extra}, "text", "alias of --text-part (a2a-cli compliance registry spelling)")
	fl.Var(&partFlag{"file", &in.Extra}, "file-part", "alias of --file (a2a-cli spelling)")
	fl.Var(&partFlag{"data", &in.Extra}, "data-part", "alias of --data (a2a-cli spelling)")
	fl.Var(&mediaTypeFlag{&in.Extra}, "media-type", "media type of the part flag just before it (default: from the name or content)")
	fl.StringVar(&in.Metadata, "metadata", "", "a JSON object put in the message's metadata")
}
