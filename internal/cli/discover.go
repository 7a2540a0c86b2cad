package cli

import (
	"context"
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type discoverOptions struct {
	f          *factory
	withClient withClientFunc
	url        string
	extended   bool
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
  a2a discover https://agent.example --extended --auth "Bearer $TOKEN"`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runDiscover(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.extended, "extended", false, "fetch the authenticated extended card (needs --auth)")
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
		r, err := o.f.resolve(ctx, o.url)
		if err != nil {
			return err
		}
		if r.card == nil {
			return &cardError{url: o.url, notFound: true, err: errors.New("no card at this URL")}
		}
		return o.f.printer().Card(r.card)
	}
	return o.withClient(ctx, o.url, func(ctx context.Context, c *conn) error {
		card := c.card
		if o.extended {
			ext, err := unary(ctx, c, func(ctx context.Context) (*a2a.AgentCard, error) {
				return c.GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{Tenant: o.f.opts.tenant})
			})
			if err != nil {
				return withHint(err, "the extended card needs credentials: pass --auth")
			}
			card = ext
		}
		if card == nil {
			return usagef("no agent card at %s", o.url)
		}
		return o.f.printer().Card(card)
	})
}
