package cli

import (
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/termsafe"
)

// cardProblems checks a card against the A2A v1.0 AgentCard's required fields (card get --validate, the a2a-cli
// specification §10.1): what a client needs to reach the agent and say what it does. The identity work will bring
// a full schema validator and signatures; until then this is the floor.
func cardProblems(c *a2a.AgentCard) []string {
	var p []string
	need := func(ok bool, what string) {
		if !ok {
			p = append(p, what)
		}
	}
	need(strings.TrimSpace(c.Name) != "", "name is missing")
	need(strings.TrimSpace(c.Description) != "", "description is missing")
	need(strings.TrimSpace(c.Version) != "", "version is missing")
	need(len(c.SupportedInterfaces) > 0, "supportedInterfaces is empty: no way to reach the agent")
	for i, iface := range c.SupportedInterfaces {
		if iface == nil {
			p = append(p, fmt.Sprintf("supportedInterfaces[%d] is null", i))
			continue
		}
		need(iface.URL != "", fmt.Sprintf("supportedInterfaces[%d].url is missing", i))
		need(iface.ProtocolBinding != "", fmt.Sprintf("supportedInterfaces[%d].protocolBinding is missing", i))
		need(iface.ProtocolVersion != "", fmt.Sprintf("supportedInterfaces[%d].protocolVersion is missing", i))
	}
	need(len(c.DefaultInputModes) > 0, "defaultInputModes is empty")
	need(len(c.DefaultOutputModes) > 0, "defaultOutputModes is empty")
	for i, s := range c.Skills {
		need(s.ID != "", fmt.Sprintf("skills[%d].id is missing", i))
		need(s.Name != "", fmt.Sprintf("skills[%d].name is missing", i))
		need(s.Description != "", fmt.Sprintf("skills[%d].description is missing", i))
		need(len(s.Tags) > 0, fmt.Sprintf("skills[%d].tags is empty", i))
	}
	return p
}

// validateCard is --validate: nil for a valid card (stderr says so), else a CardError naming every problem.
func (f *factory) validateCard(url string, c *a2a.AgentCard) error {
	p := cardProblems(c)
	if len(p) == 0 {
		fmt.Fprintln(f.io.Err, "card: valid (A2A 1.0 AgentCard, required fields)")
		return nil
	}
	for i := range p {
		p[i] = termsafe.Line(p[i])
	}
	return &client.CardError{URL: url, Err: fmt.Errorf("invalid card: %s", strings.Join(p, "; "))}
}
