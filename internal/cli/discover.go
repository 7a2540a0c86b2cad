package cli

import (
	"context"
	"errors"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type discoverOptions struct {
	f          *factory
	withClient withClientFunc
	url        string
	extended   bool
	validate   bool
	checks     bool
}

func newDiscoverCmd(f *factory, runF func(context.Context, *discoverOptions) error) *cobra.Command {
	o := &discoverOptions{f: f, withClient: f.withClient}
	cmd := &cobra.Command{
		Use:   "discover <url>",
		Short: "Fetch and show an agent's card",
		Long: `Fetch the agent card from <url>/.well-known/agent-card.json (falling back to the v0.3 agent.json path)
and show it. <url> may also be the card's own URL or a local card file. With --extended, ask the agent for its
authenticated extended card.`,
		Example: `  a2a discover localhost:8080
  a2a discover https://agent.example -o json | jq .supportedInterfaces
  a2a discover https://agent.example --extended --auth "Bearer $TOKEN"
  a2a discover https://agent.example --validate
  a2a discover https://agent.example --validate --checks --jq .validation.findings
  a2a discover https://agent.example --verify --trust-keys agent-jwks.json`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runDiscover(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.extended, "extended", false, "fetch the authenticated extended card, with credentials for a scheme the public card declares")
	cmd.Flags().BoolVar(&o.validate, "validate", false, "check the card against the A2A JSON Schema of its version and lint it (exit 1 on an error)")
	cmd.Flags().BoolVar(&o.checks, "checks", false, `with -o json: print {"card":…,"signatureCheck":…,"validation":…} instead of the card alone`)
	cmd.MarkFlagsMutuallyExclusive("extended", "validate")
	cmd.MarkFlagsMutuallyExclusive("extended", "checks")
	return cmd
}

// newGetCardCmd is "get card", the long form of discover.
func newGetCardCmd(f *factory, runF func(context.Context, *discoverOptions) error) *cobra.Command {
	cmd := newDiscoverCmd(f, runF)
	cmd.Use = "card <url>"
	cmd.Short = "Fetch and show an agent's card (same as discover)"
	cmd.Example = `  a2a get card localhost:8080 -o json`
	return cmd
}

func runDiscover(ctx context.Context, o *discoverOptions) error {
	if !o.extended {
		r, err := o.f.dialer().Resolve(ctx, o.url)
		var ce *client.CardError
		if o.validate && errors.As(err, &ce) && ce.Body != nil {
			// A card a2a-go cannot read is the one a validation explains best.
			return o.f.validateUnreadable(ctx, ce)
		}
		if err != nil {
			return err
		}
		if r.Card == nil {
			return &client.CardError{URL: o.url, NotFound: true, Err: errors.New("no card at this URL")}
		}
		sig, err := o.f.verifyCard(ctx, r.CardBytes, r.CardURL())
		if err != nil {
			return err
		}
		notes := []output.CardNote{signatureNote(sig)}
		if o.validate {
			return o.f.validateCard(ctx, r.Card, r.CardBytes, r.CardURL(), o.checks, notes)
		}
		return o.f.printCard(r.Card, o.checks, notes)
	}
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		card := c.Card
		if o.extended {
			// Only with a scheme the public card advertises (the a2a-cli specification, §12.4).
			scheme, err := o.f.dialer().ExtendedCardScheme(c.Card, c.Params)
			if err != nil {
				return err
			}
			o.f.log.Printf("extended card: asked for with the card's security scheme %s", scheme)
			ext, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.AgentCard, error) {
				return c.GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{Tenant: o.f.opts.Tenant})
			})
			if err != nil {
				return client.WithHint(err, "the extended card needs credentials: "+client.CredentialAdvice(c.Card))
			}
			card = ext
		}
		if card == nil {
			return client.Usagef("no agent card at %s", o.url)
		}
		return o.f.printer().Card(card)
	})
}
