package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/cardsig"
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/conformance"
	"github.com/a2acli/a2a/internal/exitcode"
	"github.com/a2acli/a2a/internal/output"
)

type conformanceOptions struct {
	f           *factory
	url         string
	level       string
	only, skip  []string
	maxRequests int
	junit       string
}

func newConformanceCmd(f *factory, runF func(context.Context, *conformanceOptions) error) *cobra.Command {
	o := &conformanceOptions{f: f}
	cmd := &cobra.Command{
		Use:   "conformance <url>",
		Short: "Check an agent against the A2A specification on every binding",
		Long: `Check the agent at <url> against the requirements of the A2A specification, on every binding its card
lists (or those --transport names, comma-separated), each in the protocol version the interface declares (1.0
or 0.3): the card (schema, well-known path, cache headers, interfaces, security schemes, signatures verified
with --trust-keys or a jku over https), messages (blocking and non-blocking send, get with historyLength, list
with pagination and filters, cancel, subscribe, terminal-task rules), streaming (event order and kinds), each
binding's error codes and content types, A2A-Version negotiation, push notification configs and delivery to a
loopback webhook of its own when the card declares push, the extended card, and equivalence across bindings.

Each check carries the A2A TCK's requirement id, its level and the specification's section. A check whose
precondition the agent cannot meet (a long task to cancel, an agent that fails) is skipped with the reason. An
agent that declares the reference scenarios (serve --reference) also plays them, chosen by message id as in
the TCK. The run creates only tasks of its own and cancels only those; --max-requests bounds what it sends.
--timeout bounds each call. Credentials (--auth, --bearer, --api-key, or the token of a2a auth login) travel
as every other verb sends them.

Exit status 0 when every MUST passed on every binding tested, 1 when one failed.`,
		Example: `  a2a conformance localhost:8080
  a2a conformance https://agent.example --transport grpc --level must
  a2a conformance localhost:8080 --only 'CORE-*,wire' -o json | jq '.results[] | select(.verdict=="fail")'
  a2a conformance localhost:8080 --junit conformance.xml --max-requests 200`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runConformance(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.level, "level", "may", "the weakest level checked: must, should or may")
	fl.StringSliceVar(&o.only, "only", nil, "run only these requirement ids or areas (`ID`, * matches; comma-separated or repeated)")
	fl.StringSliceVar(&o.skip, "skip", nil, "skip these requirement ids or areas (`ID`, * matches)")
	fl.IntVar(&o.maxRequests, "max-requests", 0, "send at most `n` requests to the agent; checks past it are skipped (0: no bound)")
	fl.StringVar(&o.junit, "junit", "", "also write the report as JUnit XML to `FILE`")
	return cmd
}

func runConformance(ctx context.Context, o *conformanceOptions) error {
	f := o.f
	level, ok := conformance.ParseLevel(o.level)
	if !ok {
		return client.Usagef("invalid --level %q: want must, should or may", o.level)
	}
	if o.maxRequests < 0 {
		return client.Usagef("invalid --max-requests %d: want 0 or more", o.maxRequests)
	}
	var transports []a2a.TransportProtocol
	for _, name := range strings.Split(f.opts.Transport, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		t, err := client.ParseTransport(name)
		if err != nil {
			return err
		}
		transports = append(transports, t)
	}
	if f.opts.Tenant != "" {
		ctx = a2a.AttachTenant(ctx, f.opts.Tenant)
	}
	// Credentials travel as every other verb sends them: given ones, else the token `a2a auth login` stored for
	// the agent's origin.
	f.agentURL = o.url
	if err := f.useStoredToken(ctx, o.url); err != nil {
		return err
	}
	// A conformance run judges the card the agent serves now, never a cached one.
	f.opts.NoCardCache = true
	d := f.dialer().WithTransport("")
	if len(f.opts.trustKeys) > 0 {
		// A key set that cannot be read is the user's error, said before the run rather than as a skipped check.
		if _, err := cardsig.NewKeys(ctx, d.HTTPClient(), "", f.opts.trustKeys); err != nil {
			return err
		}
	}
	res, err := d.Resolve(ctx, o.url)
	if err != nil {
		return err
	}
	if res.Card == nil {
		return &client.CardError{URL: o.url, NotFound: true, Err: fmt.Errorf("no agent card: conformance starts from the card")}
	}
	var conns []*client.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Destroy() //nolint:errcheck // closing has nothing to report
		}
	}()
	target := &conformance.Target{
		Card: res.Card, CardURL: res.CardURL(), HC: d.HTTPClient(), Params: res.Params(), GRPCCode: client.GRPCCode,
		WithVersion: client.WithVersion, CardBody: res.CardBytes,
		Signature: func(ctx context.Context, raw []byte, cardURL string) (conformance.SignatureStatus, string) {
			r, err := f.cardSignature(ctx, raw, cardURL)
			switch {
			case err != nil:
				return conformance.SignatureUnverifiable, err.Error()
			case r.Status == cardsig.Verified:
				return conformance.SignatureVerified, fmt.Sprintf("%s, kid %s, key from %s", r.Algorithm, r.KeyID, r.KeySource)
			case r.Status == cardsig.Invalid:
				return conformance.SignatureInvalid, r.Reason
			}
			return conformance.SignatureUnverifiable, r.Reason
		},
		Connect: func(ctx context.Context, iface *a2a.AgentInterface) (*a2aclient.Client, error) {
			c, err := d.ConnectTo(ctx, res, iface)
			if err != nil {
				return nil, err
			}
			conns = append(conns, c)
			return c.Client, nil
		},
	}
	timeout := f.opts.Timeout
	if f.io.ErrTTY || f.opts.verbose {
		fmt.Fprintf(f.io.Err, "checking %s on %d interface(s)…\n", output.Sanitize(res.Card.Name), len(res.Card.SupportedInterfaces))
	}
	rep := conformance.Run(ctx, target, conformance.Options{Transports: transports, Level: level, Only: o.only, Skip: o.skip,
		Timeout: timeout, MaxRequests: o.maxRequests})
	if err := ctx.Err(); err != nil {
		return client.ErrInterrupted
	}
	if o.junit != "" {
		if err := writeJUnit(o.junit, rep); err != nil {
			return err
		}
	}
	if f.opts.output == string(output.JSON) {
		err = rep.WriteJSON(f.io.Out)
	} else {
		err = rep.WriteText(f.io.Out)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		return &exitcode.Reported{Msg: "a MUST failed"}
	}
	return nil
}

func writeJUnit(path string, rep *conformance.Report) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := rep.WriteJUnit(fh); err != nil {
		fh.Close()
		return fmt.Errorf("--junit: %w", err)
	}
	return fh.Close()
}
