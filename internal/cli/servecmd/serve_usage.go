package servecmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
)

// checkArgs is serve's Args check: it says in sentences what cobra's flag groups would have said in its own terms,
// before any positional argument is refused, since a stray argument is most often a backend flag's lost value
// (`serve --exec --port 8080` reads "--port" as the command and leaves "8080" over).
func (o *serveOptions) checkArgs(cmd *cobra.Command, args []string) error {
	usage := func(format string, a ...any) error {
		return &client.UsageError{Msg: fmt.Sprintf(format, a...), Cmd: cmd.CommandPath()}
	}
	fl := cmd.Flags()
	var set []string
	for _, be := range o.backends {
		b := be.about()
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
			return usage("--%s needs %s", b.flag, b.value)
		case strings.HasPrefix(v, "-") && fl.Lookup(strings.TrimLeft(strings.SplitN(v, "=", 2)[0], "-")) != nil:
			return usage("--%s needs %s; it took the flag %q as its value", b.flag, b.value, v)
		}
	}
	switch {
	case len(set) == 0:
		return usage("serve needs a backend, one of: %s", o.backendList())
	case len(set) > 1:
		return usage("serve runs one backend at a time: %s were given together", strings.Join(set, " and "))
	case len(args) > 0:
		return usage("unexpected argument %q: serve takes flags only (quote a command that has spaces: --exec \"CMD ARGS\")", args[0])
	}
	return nil
}

// backendList names each backend flag with its value and what it does.
func (o *serveOptions) backendList() string {
	parts := make([]string, len(o.backends))
	for i, be := range o.backends {
		b := be.about()
		f := "--" + b.flag
		if b.needs != "" {
			f += " " + b.needs
		}
		parts[i] = fmt.Sprintf("%s (%s)", f, b.does)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
