package conformance

import (
	"bytes"
	_ "embed"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The specification's JSON schemas, as the A2A TCK pins them (a2aproject/a2a, Apache-2.0): v1.0's bundle generated
// from a2a.proto, and v0.3.0's a2a_schema.json.
var (
	//go:embed schema/a2a-v1.json
	schemaV1 []byte
	//go:embed schema/a2a-v03.json
	schemaV03 []byte
)

var (
	schemaOnce      sync.Once
	cardV1, cardV03 *jsonschema.Schema
	schemaErr       error
)

// cardSchemas compiles the two AgentCard schemas on first use.
func cardSchemas() (*jsonschema.Schema, *jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		v1, err := bundleV1(schemaV1)
		if err == nil {
			err = c.AddResource("a2a-v1.json", v1)
		}
		if err == nil {
			var v03 any
			v03, err = jsonschema.UnmarshalJSON(bytes.NewReader(schemaV03))
			if err == nil {
				err = c.AddResource("a2a-v03.json", v03)
			}
		}
		if err == nil {
			cardV1, err = c.Compile("a2a-v1.json#/definitions/" + url.PathEscape("Agent Card"))
		}
		if err == nil {
			cardV03, err = c.Compile("a2a-v03.json#/definitions/AgentCard")
		}
		schemaErr = err
	})
	return cardV1, cardV03, schemaErr
}

// bundleV1 points the v1.0 bundle's file references ("lf.a2a.v1.AgentSkill.jsonschema.json") at its own
// definitions ("#/definitions/Agent Skill"): the bundle keys them by title, the name with spaces.
func bundleV1(raw []byte) (any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("v1 schema: not an object")
	}
	defs, _ := m["definitions"].(map[string]any)
	byName := map[string]string{}
	for k := range defs {
		byName[strings.ReplaceAll(k, " ", "")] = k
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasSuffix(ref, ".jsonschema.json") {
				name := strings.TrimSuffix(ref, ".jsonschema.json")
				name = name[strings.LastIndex(name, ".")+1:]
				if k, ok := byName[name]; ok {
					x["$ref"] = "#/definitions/" + url.PathEscape(k)
				}
			}
			delete(x, "$schema") // nested 2020-12 markers: one dialect for the whole bundle
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(m)
	m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	return m, nil
}

// v03Keys are the fields a v0.3 card has and a v1.0 card does not: a card serving both versions carries them.
var v03Keys = []string{"url", "preferredTransport", "additionalInterfaces", "protocolVersion", "supportsAuthenticatedExtendedCard"}

// validateCard checks body against the schema of the card's version; it says which schema it used.
func validateCard(body []byte) (which string, err error) {
	v1, v03, err := cardSchemas()
	if err != nil {
		return "", fmt.Errorf("schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return "", fmt.Errorf("not a JSON object")
	}
	if _, isV1 := m["supportedInterfaces"]; !isV1 {
		return "v0.3 AgentCard", v03.Validate(doc)
	}
	if _, both := m["url"]; both {
		// A card for v1.0 and v0.3 clients: the v0.3 fields are checked against v0.3's schema, the rest against v1.0's.
		old := map[string]any{}
		for k, v := range m {
			old[k] = v
		}
		for _, k := range v03Keys {
			delete(m, k)
		}
		if err := v1.Validate(m); err != nil {
			return "v1.0 AgentCard (v0.3 fields set aside)", err
		}
		return "v1.0 AgentCard (v0.3 fields set aside)", nil
	}
	return "v1.0 AgentCard", v1.Validate(doc)
}

// oneLine is a validation error on one line: its first leaf causes, each with where in the card it is.
func oneLine(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(leaves) == 3 {
			return
		}
		if len(e.Causes) == 0 {
			msg := strings.ReplaceAll(e.Error(), "\n", " ")
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			leaves = append(leaves, fmt.Sprintf("at %q: %s", "/"+strings.Join(e.InstanceLocation, "/"), msg))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}
