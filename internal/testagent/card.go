package testagent

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// legacyCardPath is the v0.2/v0.3 well-known card path, served for V03 agents.
const legacyCardPath = "/.well-known/agent.json"

// v03Version is the protocolVersion a v0.3 card declares.
const v03Version = a2a.ProtocolVersion("0.3.0")

// buildCard returns the v1 form of the card for an agent reached at endpoint.
func (a *Agent) buildCard(endpoint string) *a2a.AgentCard {
	version := a2a.Version
	if a.opts.V03 {
		version = v03Version
	}
	card := &a2a.AgentCard{
		Name:        "Test Agent " + a.opts.Behavior.String(),
		Description: fmt.Sprintf("Reference agent (%s) for CLI tests.", a.opts.Behavior),
		Version:     "0.0.1",
		SupportedInterfaces: []*a2a.AgentInterface{{
			URL:             endpoint,
			ProtocolBinding: a.opts.Transport,
			ProtocolVersion: version,
		}},
		Capabilities: a2a.AgentCapabilities{
			Streaming:         !a.opts.NoStreaming,
			ExtendedAgentCard: a.opts.ExtendedCard != nil,
			PushNotifications: a.opts.Push,
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID:          a.opts.Behavior.String(),
			Name:        a.opts.Behavior.String(),
			Description: "Scripted test behavior.",
			Tags:        []string{"test"},
		}},
	}
	for _, uri := range a.opts.RequiredExtensions {
		card.Capabilities.Extensions = append(card.Capabilities.Extensions, a2a.AgentExtension{URI: uri, Required: true})
	}
	if a.opts.EditCard != nil {
		a.opts.EditCard(card)
	}
	return card
}

// v03Card is the JSON shape of a v0.3 agent card (only the fields served here).
type v03Card struct {
	Name                              string                `json:"name"`
	Description                       string                `json:"description"`
	URL                               string                `json:"url"`
	PreferredTransport                a2a.TransportProtocol `json:"preferredTransport,omitempty"`
	ProtocolVersion                   a2a.ProtocolVersion   `json:"protocolVersion"`
	Version                           string                `json:"version"`
	Capabilities                      v03Capabilities       `json:"capabilities"`
	DefaultInputModes                 []string              `json:"defaultInputModes"`
	DefaultOutputModes                []string              `json:"defaultOutputModes"`
	Skills                            []v03Skill            `json:"skills"`
	SupportsAuthenticatedExtendedCard bool                  `json:"supportsAuthenticatedExtendedCard"`
}

type v03Capabilities struct {
	Streaming              bool `json:"streaming"`
	PushNotifications      bool `json:"pushNotifications"`
	StateTransitionHistory bool `json:"stateTransitionHistory"`
}

type v03Skill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

// v03CardJSON renders card in the v0.3 shape; additionalInterfaces is omitted.
func (a *Agent) v03CardJSON(card *a2a.AgentCard) ([]byte, error) {
	iface := card.SupportedInterfaces[0]
	c := v03Card{
		Name:               card.Name,
		Description:        card.Description,
		URL:                iface.URL,
		PreferredTransport: iface.ProtocolBinding,
		ProtocolVersion:    v03Version,
		Version:            card.Version,
		Capabilities:       v03Capabilities{Streaming: card.Capabilities.Streaming, PushNotifications: card.Capabilities.PushNotifications},
		DefaultInputModes:  card.DefaultInputModes,
		DefaultOutputModes: card.DefaultOutputModes,

		SupportsAuthenticatedExtendedCard: card.Capabilities.ExtendedAgentCard,
	}
	if a.opts.NoPreferredTransport {
		c.PreferredTransport = ""
	}
	for _, s := range card.Skills {
		c.Skills = append(c.Skills, v03Skill{ID: s.ID, Name: s.Name, Description: s.Description, Tags: s.Tags})
	}
	return json.MarshalIndent(c, "", "  ")
}

// mountCard registers the card handler(s) on mux.
func (a *Agent) mountCard(mux *http.ServeMux) error {
	if !a.opts.V03 {
		mux.Handle("GET "+a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(a.Card))
		return nil
	}
	body, err := a.v03CardJSON(a.Card)
	if err != nil {
		return fmt.Errorf("v0.3 card: %w", err)
	}
	serve := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}
	mux.HandleFunc("GET "+a2asrv.WellKnownAgentCardPath, serve)
	mux.HandleFunc("GET "+legacyCardPath, serve)
	return nil
}
