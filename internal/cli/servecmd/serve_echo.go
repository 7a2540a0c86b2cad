package servecmd

import (
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
)

// echoFlags are serve's flags for the echo backend, the reference: serve.Echo.
type echoFlags struct {
	noClose
	on bool
}

func (*echoFlags) about() backendAbout {
	return backendAbout{
		flag: "echo", use: "--echo", does: "answers with the message it gets",
		help: "  --echo          return the user's message back: the \"ping\" for agents\n",
	}
}

func (e *echoFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&e.on, "echo", false, "echo mode: return the message back")
}

func (e *echoFlags) chosen() bool { return e.on }

func (*echoFlags) check(*verb) error { return nil }

func (*echoFlags) build(*verb) (serve.Backend, error) { return serve.Echo(), nil }
