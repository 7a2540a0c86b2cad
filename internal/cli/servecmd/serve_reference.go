package servecmd

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/reference"
)

// referenceOptions are serve's flags for the reference agent.
type referenceOptions struct {
	on   bool
	long time.Duration
}

func (r *referenceOptions) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&r.on, "reference", false, "reference mode: play the A2A TCK's scenarios, chosen by message id (tck-artifact-text-…, tck-input-required-…); echo anything else")
	fl.DurationVar(&r.long, "reference-long", 10*time.Second, "with --reference: how long a long task works (tck-long-running-…, test-resubscribe-message-id-…)")
}

func (r *referenceOptions) check(cmd *cobra.Command) error {
	if !r.on && cmd.Flags().Changed("reference-long") {
		return errors.New("--reference-long goes with --reference")
	}
	if r.long <= 0 {
		return errors.New("invalid --reference-long: want a positive duration")
	}
	return nil
}

func (r *referenceOptions) backend() serve.Backend {
	return reference.Backend(reference.Config{Long: r.long})
}
