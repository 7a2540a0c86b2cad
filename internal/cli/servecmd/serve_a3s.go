package servecmd

import (
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/a3sbackend"
)

// a3sOptions are serve's flags for the A3S bridge.
type a3sOptions struct {
	addr, dialect, workspace string
}

func (o *a3sOptions) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&o.addr, "a3s", "", "A3S mode: bridge to the coding agent serving the A3S Code Agent Interface (gRPC) at `addr`")
	fl.StringVar(&o.dialect, "a3s-dialect", "auto", "with --a3s: the shape of the interface the agent speaks: auto, seed or a3s")
	fl.StringVar(&o.workspace, "workspace", "", "with --a3s: the workspace `dir` of the agent's sessions, unless a client's agent settings name one")
	_ = cmd.RegisterFlagCompletionFunc("a3s-dialect", fixedCompletion("auto", "seed", "a3s")) // cannot fail: the flag exists
	_ = cmd.MarkFlagDirname("workspace")                                                      // cannot fail: the flag exists
}

func (o *a3sOptions) check(cmd *cobra.Command) error {
	if o.addr == "" {
		if cmd.Flags().Changed("a3s-dialect") || cmd.Flags().Changed("workspace") {
			return errors.New("--a3s-dialect and --workspace go with --a3s")
		}
		return nil
	}
	if err := (a3sbackend.Config{Addr: o.addr, Dialect: o.dialect}).Check(); err != nil {
		return err
	}
	if o.workspace != "" {
		abs, err := filepath.Abs(o.workspace)
		if err != nil {
			return err
		}
		o.workspace = abs
	}
	return nil
}

// backend is the A3S bridge, dialing the agent with the client's TLS (--cacert, --cert/--key, --insecure).
func (o *a3sOptions) backend(up client.Upstream) serve.Backend {
	return a3sbackend.New(a3sbackend.Config{Addr: o.addr, Dialect: o.dialect, Workspace: o.workspace, TLS: up.TLS()})
}
