package servecmd

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/reference"
)

// referenceFlags are serve's flags for the reference agent (package reference).
type referenceFlags struct {
	noClose
	on   bool
	long time.Duration
}

func (*referenceFlags) about() backendAbout {
	return backendAbout{
		flag: "reference", use: "--reference", does: "plays the A2A TCK's scenarios",
		help: `  --reference     a reference agent playing the A2A TCK's scenarios, chosen by message id (artifacts of
                  each kind, a Message reply, input-required, auth-required, failed, rejected, a long
                  cancelable task, slow streams); anything else is echoed. docs/conformance.md lists them
`,
	}
}

func (r *referenceFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&r.on, "reference", false, "reference mode: play the A2A TCK's scenarios, chosen by message id (tck-artifact-text-…, tck-input-required-…); echo anything else")
	fl.DurationVar(&r.long, "reference-long", 10*time.Second, "with --reference: how long a long task works (tck-long-running-…, test-resubscribe-message-id-…)")
}

func (r *referenceFlags) chosen() bool { return r.on }

func (r *referenceFlags) check(v *verb) error {
	if !r.on && v.changed("reference-long") {
		return errors.New("--reference-long goes with --reference")
	}
	if r.long <= 0 {
		return errors.New("invalid --reference-long: want a positive duration")
	}
	return nil
}

func (r *referenceFlags) build(*verb) (serve.Backend, error) {
	return reference.New(reference.Config{Long: r.long}), nil
}
