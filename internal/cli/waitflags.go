package cli

import (
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/spf13/cobra"
)

// addWaitFlags registers --poll-interval and --wait (verbs that wait for a task: send, subscribe).
func addWaitFlags(cmd *cobra.Command, w *follow.Wait) {
	cmd.Flags().DurationVar(&w.PollInterval, "poll-interval", follow.DefaultPollInterval, "time between GetTask calls while waiting for a task (backs off up to 8×; at the default the first come sooner, from 20ms)")
	cmd.Flags().DurationVar(&w.Wait, "wait", 0, "give up waiting for the task after this long, exit 5 (0: no limit)")
}

// waits returns the wait options with defaults for verbs that have no flags for them.
func (f *factory) waits() *follow.Wait {
	if f.opts.wait.PollInterval <= 0 {
		f.opts.wait.PollInterval = follow.DefaultPollInterval
	}
	return &f.opts.wait
}

// env is what following a task needs from this run.
func (f *factory) env() *follow.Env {
	return &follow.Env{Log: f.log, Tenant: f.opts.Tenant, Wait: f.waits(), VersionOptIn: f.opts.canon.versionOptIn}
}

// newTurn is a turn on the agent c (named url) with the development-tool flags dt, rendering through p.
func (f *factory) newTurn(c *client.Conn, url string, dt *devtoolOptions, p *output.Printer) *follow.Turn {
	return follow.New(f.env(), c, url, dt.turnAnswers(), p)
}
