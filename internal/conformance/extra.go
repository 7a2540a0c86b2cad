package conformance

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// extendedCard: CARD-EXT-001 when the card declares one, CORE-CAP-003 when it does not.
func (r *runner) extendedCard(ctx context.Context, b *binding) {
	if !r.t.Card.Capabilities.ExtendedAgentCard {
		if !b.ownCard {
			r.record("CORE-CAP-003", b.name, skip("the client could not be told to ask the agent"))
			return
		}
		r.expectErr(ctx, b, "CORE-CAP-003", "GetExtendedAgentCard (card: extendedAgentCard false)", nil, func(ctx context.Context) (any, error) {
			return b.c.GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{Tenant: b.iface.Tenant})
		})
		return
	}
	if !r.want("CARD-EXT-001") {
		return
	}
	if !r.spend(1) {
		r.record("CARD-EXT-001", b.name, skip(budgetSpent))
		return
	}
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	card, err := b.c.GetExtendedAgentCard(cctx, &a2a.GetExtendedAgentCardRequest{Tenant: b.iface.Tenant})
	switch {
	case errors.Is(err, a2a.ErrUnauthenticated) || errors.Is(err, a2a.ErrUnauthorized):
		r.record("CARD-EXT-001", b.name, skip("the extended card needs credentials: pass --auth"))
	case err != nil:
		r.record("CARD-EXT-001", b.name, fail("GetExtendedAgentCard", errText(err), "the card declares an extended card"))
	case card.Name == "":
		r.record("CARD-EXT-001", b.name, fail("GetExtendedAgentCard", "a card with no name", "want an AgentCard"))
	default:
		r.record("CARD-EXT-001", b.name, pass("card "+card.Name))
	}
}

// equivalence: BIND-EQUIV-001, a task made on one binding is found, in the same state, on every other of its version.
func (r *runner) equivalence(ctx context.Context, bs []*binding) {
	if len(bs) < 2 || !r.want("BIND-EQUIV-001") {
		return
	}
	for _, from := range bs {
		if len(from.made) == 0 {
			continue
		}
		t := from.made[0]
		for _, to := range bs {
			if to == from || to.v03 != from.v03 {
				continue
			}
			name := to.name + " ← " + from.name
			if !r.spend(1) {
				r.record("BIND-EQUIV-001", name, skip(budgetSpent))
				continue
			}
			cctx, cancel := r.callCtx(ctx)
			got, err := to.c.GetTask(cctx, &a2a.GetTaskRequest{ID: t.ID})
			cancel()
			sent := fmt.Sprintf("GetTask id=%s (made on %s)", t.ID, from.name)
			switch {
			case err != nil:
				r.record("BIND-EQUIV-001", name, fail(sent, errText(err), "a task is the agent's, whatever binding made it"))
			case got.ContextID != t.ContextID:
				r.record("BIND-EQUIV-001", name, fail(sent, describe(got), "want contextId "+t.ContextID))
			default:
				r.record("BIND-EQUIV-001", name, pass(describe(got)))
			}
		}
		return
	}
}
