package output

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// none stands for an empty list, so that every card shows the same labels.
const none = "none"

// card writes an agent card. Labels always appear in the same order; Security, Provider and
// Documentation only when the card has them.
func (p *Printer) card(b *bytes.Buffer, c *a2a.AgentCard) {
	if c == nil {
		c = &a2a.AgentCard{}
	}
	p.field(b, "Name", Line(c.Name)) // names and ids show every character: no look-alike hides in them
	p.field(b, "Description", c.Description)
	p.field(b, "Version", Line(c.Version))
	p.cardInterfaces(b, c.SupportedInterfaces)
	p.field(b, "Streaming", yesNo(c.Capabilities.Streaming))
	p.field(b, "Push Notifications", yesNo(c.Capabilities.PushNotifications))
	p.field(b, "Extended Card", yesNo(c.Capabilities.ExtendedAgentCard))
	p.field(b, "Input Modes", commaList(c.DefaultInputModes))
	p.field(b, "Output Modes", commaList(c.DefaultOutputModes))
	p.cardSkills(b, c.Skills)
	p.cardExtensions(b, c.Capabilities.Extensions)
	if len(c.SecuritySchemes) > 0 {
		names := make([]string, 0, len(c.SecuritySchemes))
		for n := range c.SecuritySchemes {
			names = append(names, string(n))
		}
		sort.Strings(names)
		p.field(b, "Security", strings.Join(names, ", "))
	}
	if pr := c.Provider; pr != nil && (pr.Org != "" || pr.URL != "") {
		v := pr.Org
		if pr.URL != "" {
			v = strings.TrimSpace(fmt.Sprintf("%s (%s)", pr.Org, pr.URL))
		}
		p.field(b, "Provider", v)
	}
	if c.DocumentationURL != "" {
		p.field(b, "Documentation", c.DocumentationURL)
	}
}

// blockLines writes a block label followed by its lines, or "Label: none" when empty.
func (p *Printer) blockLines(b *bytes.Buffer, label string, lines []string) {
	if len(lines) == 0 {
		p.styledField(b, label, none)
		return
	}
	p.styledField(b, label, "")
	for _, l := range lines {
		b.WriteString(indentLines(Sanitize(l), indent, true))
		b.WriteByte('\n')
	}
	b.WriteByte('\n') // a block is closed by a blank line
}

func (p *Printer) cardInterfaces(b *bytes.Buffer, ifaces []*a2a.AgentInterface) {
	var lines []string
	for _, i := range ifaces {
		if i == nil {
			continue
		}
		l := fmt.Sprintf("%s %s %s", Line(string(i.ProtocolBinding)), Line(string(i.ProtocolVersion)), Line(i.URL))
		if i.Tenant != "" {
			l += " tenant=" + Line(i.Tenant)
		}
		lines = append(lines, l)
	}
	p.blockLines(b, "Interfaces", lines)
}

func (p *Printer) cardSkills(b *bytes.Buffer, skills []a2a.AgentSkill) {
	var lines []string
	for _, s := range skills {
		l := fmt.Sprintf("%s: %s", Line(s.ID), Line(s.Name))
		if s.Description != "" {
			l += " - " + oneLine(s.Description)
		}
		lines = append(lines, l)
		for _, ex := range s.Examples {
			lines = append(lines, indent+"Example: "+oneLine(ex))
		}
	}
	p.blockLines(b, "Skills", lines)
}

func (p *Printer) cardExtensions(b *bytes.Buffer, exts []a2a.AgentExtension) {
	var lines []string
	for _, e := range exts {
		req := "optional"
		if e.Required {
			req = "required"
		}
		lines = append(lines, fmt.Sprintf("%s (%s)", Line(e.URI), req))
	}
	p.blockLines(b, "Extensions", lines)
}

// oneLine folds a multi-line value into one line, for entries of a block.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func commaList(v []string) string {
	if len(v) == 0 {
		return none
	}
	return strings.Join(v, ", ")
}
