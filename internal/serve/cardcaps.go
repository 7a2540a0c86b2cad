package serve

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// CardCaps is what a user's card (--card) declares about the capabilities that change what serve does: nil
// where the card is silent, so serve's own default stands (it streams, its backends keep push configs, it has
// no extended card).
type CardCaps struct {
	Streaming, PushNotifications, ExtendedAgentCard *bool
}

// DeclaredCaps reads which of those capabilities a card's JSON sets, by their v1.0 or v0.3 names
// (capabilities.streaming, capabilities.pushNotifications, capabilities.extendedAgentCard or the v0.3
// supportsAuthenticatedExtendedCard). Bytes that are no card declare nothing: parsing them is the caller's.
func DeclaredCaps(card []byte) CardCaps {
	var doc struct {
		Capabilities struct {
			Streaming         *bool `json:"streaming"`
			PushNotifications *bool `json:"pushNotifications"`
			ExtendedAgentCard *bool `json:"extendedAgentCard"`
		} `json:"capabilities"`
		SupportsAuthenticatedExtendedCard *bool `json:"supportsAuthenticatedExtendedCard"`
	}
	if json.Unmarshal(card, &doc) != nil {
		return CardCaps{}
	}
	c := CardCaps{
		Streaming:         doc.Capabilities.Streaming,
		PushNotifications: doc.Capabilities.PushNotifications,
		ExtendedAgentCard: doc.Capabilities.ExtendedAgentCard,
	}
	if c.ExtendedAgentCard == nil {
		c.ExtendedAgentCard = doc.SupportsAuthenticatedExtendedCard
	}
	return c
}

// servedCaps is what the served card says and the server does.
type servedCaps struct {
	streaming bool
	push      PushSupport
	extended  *bool // nil: the backend answers GetExtendedAgentCard
}

// capsOf applies the user's card to the backend's defaults. The proxy is left alone: it serves its upstream's
// card (the user's only while the upstream's is out of reach), and what that card says is what the upstream does.
func capsOf(cfg *Config, parts *Parts) servedCaps {
	s := servedCaps{streaming: true, push: parts.Push}
	if cfg.Card == nil || parts.Push == PushUpstream {
		return s
	}
	d := cfg.CardCaps
	if d.Streaming != nil {
		s.streaming = *d.Streaming
	}
	if d.PushNotifications != nil && !*d.PushNotifications {
		s.push = PushOff
	}
	s.extended = d.ExtendedAgentCard
	return s
}

// gate wraps h so that it refuses what the served card says the agent does not do, as a2a-go's own request
// handler does: streaming calls with UnsupportedOperation, push configs (also inline in a message) with
// PushNotificationNotSupported, and GetExtendedAgentCard with UnsupportedOperation; a card that declares an
// extended card is its own extended card. A server whose card promises everything keeps h as it is.
func (s servedCaps) gate(h a2asrv.RequestHandler, card a2asrv.AgentCardProducer) a2asrv.RequestHandler {
	if s.streaming && s.push != PushOff && s.extended == nil {
		return h
	}
	return &capsHandler{RequestHandler: h, caps: s, card: card}
}

type capsHandler struct {
	a2asrv.RequestHandler
	caps servedCaps
	card a2asrv.AgentCardProducer
}

func (c *capsHandler) pushRefused() error {
	if c.caps.push == PushOff {
		return a2a.ErrPushNotificationNotSupported
	}
	return nil
}

func (c *capsHandler) sendRefused(req *a2a.SendMessageRequest) error {
	if req != nil && req.Config != nil && req.Config.PushConfig != nil {
		return c.pushRefused()
	}
	return nil
}

func refuse[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}

// SendMessage implements a2asrv.RequestHandler.
func (c *capsHandler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if err := c.sendRefused(req); err != nil {
		return nil, err
	}
	return c.RequestHandler.SendMessage(ctx, req)
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (c *capsHandler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if !c.caps.streaming {
		return refuse[a2a.Event](a2a.ErrUnsupportedOperation)
	}
	if err := c.sendRefused(req); err != nil {
		return refuse[a2a.Event](err)
	}
	return c.RequestHandler.SendStreamingMessage(ctx, req)
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (c *capsHandler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	if !c.caps.streaming {
		return refuse[a2a.Event](a2a.ErrUnsupportedOperation)
	}
	return c.RequestHandler.SubscribeToTask(ctx, req)
}

// CreateTaskPushConfig implements a2asrv.RequestHandler.
func (c *capsHandler) CreateTaskPushConfig(ctx context.Context, req *a2a.PushConfig) (*a2a.PushConfig, error) {
	if err := c.pushRefused(); err != nil {
		return nil, err
	}
	return c.RequestHandler.CreateTaskPushConfig(ctx, req)
}

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (c *capsHandler) GetTaskPushConfig(ctx context.Context, req *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	if err := c.pushRefused(); err != nil {
		return nil, err
	}
	return c.RequestHandler.GetTaskPushConfig(ctx, req)
}

// ListTaskPushConfigs implements a2asrv.RequestHandler.
func (c *capsHandler) ListTaskPushConfigs(ctx context.Context, req *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	if err := c.pushRefused(); err != nil {
		return nil, err
	}
	return c.RequestHandler.ListTaskPushConfigs(ctx, req)
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler.
func (c *capsHandler) DeleteTaskPushConfig(ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) error {
	if err := c.pushRefused(); err != nil {
		return err
	}
	return c.RequestHandler.DeleteTaskPushConfig(ctx, req)
}

// GetExtendedAgentCard implements a2asrv.RequestHandler.
func (c *capsHandler) GetExtendedAgentCard(ctx context.Context, req *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	switch {
	case c.caps.extended == nil:
		return c.RequestHandler.GetExtendedAgentCard(ctx, req)
	case !*c.caps.extended:
		return nil, a2a.ErrUnsupportedOperation
	}
	return c.card.Card(ctx)
}
