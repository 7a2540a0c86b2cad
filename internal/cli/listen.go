package cli

import (
	"context"
	"fmt"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/push"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type listenOptions struct {
	f          *factory
	host       string
	port       int
	token      string
	untilFinal bool
	ready      func(url string) // tests: called once listening; nil => not called
}

func newListenCmd(f *factory, runF func(context.Context, *listenOptions) error) *cobra.Command {
	o := &listenOptions{f: f}
	cmd := &cobra.Command{
		Use:   "listen",
		Short: "Receive push notifications: a webhook that prints what agents POST to it",
		Long: `Listen for push notifications on --host:--port (127.0.0.1 and a free port by default) and print each one
as it arrives: in text like subscribe, with -o json one StreamResponse per line (JSON Lines). Stderr says
"listening on <url>": hand that URL to an agent (send --push-url, create push-config).

With --token, a notification without that X-A2A-Notification-Token is refused (401); a body that is not a
notification is refused (400). As serve does, it refuses what a web page can send: a request with an Origin
(403), a Host that is not a loopback name while it listens on loopback (421), a body that is not application/json
(415). With --until-final, listen exits 0 after the first notification that carries a
terminal task state. Ctrl-C stops it.`,
		Example: `  a2a listen --port 9000 --token s3cret
  a2a listen --port 9000 --until-final -o json | jq -c .statusUpdate.status.state`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.port < 0 || o.port > 65535 {
				return &client.UsageError{Msg: fmt.Sprintf("invalid --port %d: want 0 to 65535", o.port), Cmd: cmd.CommandPath()}
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runListen(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.host, "host", "127.0.0.1", "bind address")
	fl.IntVar(&o.port, "port", 0, "listen port (0: any free port)")
	fl.StringVar(&o.token, "token", "", "accept only notifications carrying this X-A2A-Notification-Token")
	fl.BoolVar(&o.untilFinal, "until-final", false, "exit after a notification with a terminal task state")
	return cmd
}

func runListen(ctx context.Context, o *listenOptions) error {
	p := o.f.printer()
	var lastTask a2a.TaskID
	rc := push.NewReceiver(o.token, func(ev a2a.Event) bool {
		if info := ev.TaskInfo(); info.TaskID != "" && info.TaskID != lastTask {
			lastTask = info.TaskID
			if err := p.NotificationTask(string(info.TaskID), string(info.ContextID)); err != nil {
				fmt.Fprintf(o.f.io.Err, "a2a: print notification: %v\n", err)
			}
		}
		if err := p.Event(ev); err != nil {
			fmt.Fprintf(o.f.io.Err, "a2a: print notification: %v\n", err)
		}
		return o.untilFinal && push.Final(ev)
	})
	rc.Refused = func(from, why string, status int) {
		fmt.Fprintf(o.f.io.Err, "warning: refused a notification from %s %s (%d)\n", output.Line(from), why, status)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-rc.Final():
			cancel()
		case <-ctx.Done():
		}
	}()
	err := push.Serve(ctx, o.host, o.port, rc, func(url string) {
		fmt.Fprintf(o.f.io.Err, "listening on %s\n", url)
		if o.ready != nil {
			o.ready(url)
		}
	})
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	return err
}
