package servecmd

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
)

// execFlags are serve's flags for the exec backend (package execbackend).
type execFlags struct {
	noClose
	command       string
	env           []string
	chunk         string
	input         string
	timeout       time.Duration
	maxConcurrent int
}

func (*execFlags) about() backendAbout {
	return backendAbout{
		flag: "exec", use: "--exec <command>", needs: "CMD", does: "runs a shell command per message", risky: true,
		value: `the shell command to run, quoted when it has spaces: --exec "python -u agent.py"`,
		help: `  --exec CMD      run CMD per message: the message on stdin, stdout becomes the response artifact;
                  with --chunk=DELIM, stdout streams out in DELIM-separated chunks as they are written
`,
	}
}

func (x *execFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&x.command, "exec", "", "exec mode: run this shell command per message")
	fl.StringVar(&x.chunk, "chunk", "", "with --exec: stream stdout in chunks split at this delimiter (any bytes)")
	fl.StringVar(&x.input, "input", "text", "with --exec: what stdin gets: text (the message's parts) or json (the whole message)")
	fl.DurationVar(&x.timeout, "exec-timeout", 0, "with --exec: stop a command running longer than this (0: no limit)")
	fl.StringArrayVar(&x.env, "exec-env", nil, "with --exec: pass serve's own variable NAME (A2ACLI_*, PG*: kept from the command) to it, or set NAME=VALUE (repeatable)")
	fl.IntVar(&x.maxConcurrent, "max-concurrent", 0, "with --exec: at most n commands at once, the rest wait in order (default 4 per CPU; 0: no limit)")
	_ = cmd.RegisterFlagCompletionFunc("input", fixedCompletion("text", "json")) // cannot fail: the flag exists
}

func (x *execFlags) chosen() bool { return x.command != "" }

func (x *execFlags) check(v *verb) error {
	if !x.chosen() && (v.changed("chunk") || v.changed("input") || x.timeout != 0 || v.changed("max-concurrent") || len(x.env) > 0) {
		return errors.New("--chunk, --input, --exec-timeout, --exec-env and --max-concurrent go with --exec")
	}
	return nil
}

func (x *execFlags) build(v *verb) (serve.Backend, error) {
	chunkSet := v.changed("chunk")
	if chunkSet && x.chunk == "" {
		return nil, errors.New("--chunk needs a delimiter, e.g. --chunk=$'\\n'")
	}
	if x.input != "text" && x.input != "json" {
		return nil, fmt.Errorf("invalid --input %q: want text or json", x.input)
	}
	if x.maxConcurrent < 0 || x.timeout < 0 {
		return nil, errors.New("--max-concurrent and --exec-timeout must not be negative")
	}
	for _, e := range x.env {
		if name, _, _ := strings.Cut(e, "="); !envName(name) {
			return nil, fmt.Errorf("invalid --exec-env %q: want NAME or NAME=VALUE, NAME letters, digits and _", name)
		}
	}
	c := execbackend.Config{Command: x.command, InputJSON: x.input == "json", Timeout: x.timeout, MaxConcurrent: x.maxConcurrent, Env: x.env}
	if !v.changed("max-concurrent") {
		// Bounded by default: a burst of messages queues instead of forking a process each.
		c.MaxConcurrent = defaultMaxConcurrent()
	}
	if chunkSet {
		c.Chunk = []byte(x.chunk)
	}
	return execbackend.New(c), nil
}

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
