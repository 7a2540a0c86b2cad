package servecmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
)

// backends are serve's backend flags, in the order the usage errors name them, with what each needs.
var backends = []struct{ flag, needs, does string }{
	{"echo", "", "answers with the message it gets"},
	{"exec", "CMD", "runs a shell command per message"},
	{"proxy", "URL", "forwards every call to an agent"},
	{"replay", "FILE", "replays a recorded session"},
	{"a3s", "HOST:PORT", "drives an A3S coding agent"},
	{"reference", "", "plays the A2A TCK's scenarios"},
}

// needsValue says what a backend flag's value is, for the error of one that took a flag as its value.
var needsValue = map[string]string{
	"exec":   `the shell command to run, quoted when it has spaces: --exec "python -u agent.py"`,
	"proxy":  "the upstream agent's URL: --proxy http://localhost:9999",
	"replay": "a recording to replay: --replay session.jsonl",
	"a3s":    "the A3S agent's address: --a3s localhost:4088",
}

// checkArgs is serve's Args check: it says in sentences what cobra's flag groups would have said in its own terms,
// before any positional argument is refused, since a stray argument is most often a backend flag's lost value
// (`serve --exec --port 8080` reads "--port" as the command and leaves "8080" over).
func checkArgs(cmd *cobra.Command, args []string) error {
	usage := func(format string, a ...any) error {
		return &client.UsageError{Msg: fmt.Sprintf(format, a...), Cmd: cmd.CommandPath()}
	}
	fl := cmd.Flags()
	var set []string
	for _, b := range backends {
		f := fl.Lookup(b.flag)
		if f == nil || !f.Changed {
			continue
		}
		set = append(set, "--"+b.flag)
		if b.needs == "" {
			continue
		}
		v := f.Value.String()
		if sv, ok := f.Value.(interface{ GetSlice() []string }); ok {
			v = strings.Join(sv.GetSlice(), "")
			for _, s := range sv.GetSlice() {
				if s == "" || strings.HasPrefix(s, "-") {
					v = s
				}
			}
		}
		switch {
		case v == "":
			return usage("--%s needs %s", b.flag, needsValue[b.flag])
		case strings.HasPrefix(v, "-") && fl.Lookup(strings.TrimLeft(strings.SplitN(v, "=", 2)[0], "-")) != nil:
			return usage("--%s needs %s; it took the flag %q as its value", b.flag, needsValue[b.flag], v)
		}
	}
	switch {
	case len(set) == 0:
		return usage("serve needs a backend, one of: %s", backendList())
	case len(set) > 1:
		return usage("serve runs one backend at a time: %s were given together", strings.Join(set, " and "))
	case len(args) > 0:
		return usage("unexpected argument %q: serve takes flags only (quote a command that has spaces: --exec \"CMD ARGS\")", args[0])
	}
	return nil
}

// backendList names each backend flag with its value and what it does.
func backendList() string {
	parts := make([]string, len(backends))
	for i, b := range backends {
		f := "--" + b.flag
		if b.needs != "" {
			f += " " + b.needs
		}
		parts[i] = fmt.Sprintf("%s (%s)", f, b.does)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
