package servecmd

import (
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/a3sbackend"
)

// a3sFlags are serve's flags for the A3S bridge (package a3sbackend).
type a3sFlags struct {
	noClose
	addr, dialect, workspace string
}

func (*a3sFlags) about() backendAbout {
	return backendAbout{
		flag: "a3s", use: "--a3s <addr>", needs: "HOST:PORT", does: "drives an A3S coding agent", risky: true,
		value: "the A3S agent's address: --a3s localhost:4088",
		help: `  --a3s ADDR      bridge to a coding agent speaking the A3S Code Agent Interface over gRPC (HOST:PORT,
                  https:// for TLS); --a3s-dialect seed|a3s, --workspace DIR for its sessions
`,
	}
}

func (o *a3sFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&o.addr, "a3s", "", "A3S mode: bridge to the coding agent serving the A3S Code Agent Interface (gRPC) at `addr`")
	fl.StringVar(&o.dialect, "a3s-dialect", "auto", "with --a3s: the shape of the interface the agent speaks: auto, seed or a3s")
	fl.StringVar(&o.workspace, "workspace", "", "with --a3s: the workspace `dir` of the agent's sessions, unless a client's agent settings name one")
	_ = cmd.RegisterFlagCompletionFunc("a3s-dialect", fixedCompletion("auto", "seed", "a3s")) // cannot fail: the flag exists
	_ = cmd.MarkFlagDirname("workspace")                                                      // cannot fail: the flag exists
}

func (o *a3sFlags) chosen() bool { return o.addr != "" }

func (o *a3sFlags) check(v *verb) error {
	if !o.chosen() && (v.changed("a3s-dialect") || v.changed("workspace")) {
		return errors.New("--a3s-dialect and --workspace go with --a3s")
	}
	return nil
}

// build is the A3S bridge, dialing the agent with the client's TLS (--cacert, --cert/--key, --insecure).
func (o *a3sFlags) build(v *verb) (serve.Backend, error) {
	if err := (a3sbackend.Config{Addr: o.addr, Dialect: o.dialect}).Check(); err != nil {
		return nil, err
	}
	workspace := o.workspace
	if workspace != "" {
		abs, err := filepath.Abs(workspace)
		if err != nil {
			return nil, err
		}
		workspace = abs
	}
	return a3sbackend.New(a3sbackend.Config{Addr: o.addr, Dialect: o.dialect, Workspace: workspace, TLS: v.d.Dialer().Upstream().TLS()}), nil
}
