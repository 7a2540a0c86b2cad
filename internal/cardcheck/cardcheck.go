package cardcheck

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Level says how much a finding matters: an error breaks the specification, a warning is a likely mistake.
type Level string

const (
	Error   Level = "error"
	Warning Level = "warning"
)

// Finding is one problem of a card: where (a JSON Pointer into the card), what, and how bad.
type Finding struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Level   Level  `json:"level"`
}

// Report is the outcome of Validate: the card's protocol version ("1.0" or "0.3"), whether it has no error, and
// every finding, errors first, then by path.
type Report struct {
	Version  string    `json:"version"`
	Valid    bool      `json:"valid"`
	Findings []Finding `json:"findings"`
}

// Errors counts the findings of level Error.
func (r *Report) Errors() int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == Error {
			n++
		}
	}
	return n
}

// Options are what the checks that reach the network need.
type Options struct {
	// CardURL is where the card came from ("" for a card file): a jku must be on its origin.
	CardURL string
	// HTTP fetches jku key sets to check they are reachable (nil: that check is skipped).
	HTTP *http.Client
}

// Validate checks a card given as its bytes.
func Validate(ctx context.Context, card []byte, o Options) *Report {
	r := &Report{Findings: []Finding{}}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		r.add("", Error, "not a JSON object: %v", err)
		return r.done()
	}
	r.Version = versionOf(doc)
	r.schema(card)
	lint(ctx, r, doc, o)
	return r.done()
}

func (r *Report) add(path string, level Level, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Path: path, Message: fmt.Sprintf(format, args...), Level: level})
}

func (r *Report) done() *Report {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Level != b.Level {
			return a.Level == Error
		}
		return a.Path < b.Path
	})
	r.Valid = r.Errors() == 0
	return r
}

// versionOf: a card with supportedInterfaces is v1.0, one with url (and no interfaces) v0.3.
func versionOf(doc map[string]any) string {
	if _, ok := doc["supportedInterfaces"]; ok {
		return "1.0"
	}
	if _, ok := doc["supported_interfaces"]; ok {
		return "1.0"
	}
	if v, _ := doc["protocolVersion"].(string); strings.HasPrefix(v, "0.") {
		return "0.3"
	}
	for _, k := range []string{"url", "preferredTransport", "additionalInterfaces"} {
		if _, ok := doc[k]; ok {
			return "0.3"
		}
	}
	return "1.0"
}

//go:embed schema/*.json
var schemaFiles embed.FS

// schemas are the compiled AgentCard schemas per version, built on first use (start-up does no work for them).
var schemas struct {
	once sync.Once
	v1   *jsonschema.Schema
	v03  *jsonschema.Schema
	err  error
}

const schemaBase = "https://a2a-protocol.org/schema/"

func compiled() (v1, v03 *jsonschema.Schema, err error) {
	schemas.once.Do(func() {
		schemas.v1, schemas.v03, schemas.err = compile()
	})
	return schemas.v1, schemas.v03, schemas.err
}

func compile() (*jsonschema.Schema, *jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	v03doc, err := load("schema/a2a-v0.3.0.json")
	if err != nil {
		return nil, nil, err
	}
	if err := c.AddResource(schemaBase+"v0.3/a2a.json", v03doc); err != nil {
		return nil, nil, err
	}
	v1doc, err := load("schema/a2a-v1.0.json")
	if err != nil {
		return nil, nil, err
	}
	// The v1.0 definitions refer to each other as files, lf.a2a.v1.<Name>.jsonschema.json (google.protobuf.<Name>
	// for the well-known types), <Name> being the definition's title without its spaces.
	defs, _ := v1doc.(map[string]any)["definitions"].(map[string]any)
	for title, def := range defs {
		name := strings.ReplaceAll(title, " ", "")
		pkg := "lf.a2a.v1."
		switch name {
		case "Struct", "Value", "Timestamp":
			pkg = "google.protobuf."
		}
		if err := c.AddResource(schemaBase+"v1/"+pkg+name+".jsonschema.json", def); err != nil {
			return nil, nil, err
		}
	}
	v1, err := c.Compile(schemaBase + "v1/lf.a2a.v1.AgentCard.jsonschema.json")
	if err != nil {
		return nil, nil, err
	}
	v03, err := c.Compile(schemaBase + "v0.3/a2a.json#/definitions/AgentCard")
	if err != nil {
		return nil, nil, err
	}
	return v1, v03, nil
}

func load(name string) (any, error) {
	b, err := schemaFiles.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// schema checks the card against its version's schema; each leaf of the validation error is one finding.
func (r *Report) schema(card []byte) {
	v1, v03, err := compiled()
	if err != nil {
		r.add("", Error, "the embedded A2A schema does not compile: %v", err)
		return
	}
	sch := v1
	if r.Version == "0.3" {
		sch = v03
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(card))
	if err != nil {
		r.add("", Error, "not JSON: %v", err)
		return
	}
	err = sch.Validate(inst)
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		if err != nil {
			r.add("", Error, "schema: %v", err)
		}
		return
	}
	seen := map[Finding]bool{}
	p := message.NewPrinter(language.English)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		path := ""
		for _, tok := range e.InstanceLocation {
			path += "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
		}
		f := Finding{Path: path, Message: "schema v" + r.Version + ": " + e.ErrorKind.LocalizedString(p), Level: Error}
		if !seen[f] {
			seen[f] = true
			r.Findings = append(r.Findings, f)
		}
	}
	walk(ve)
	if len(seen) == 0 {
		r.add("", Error, "schema v%s: %v", r.Version, ve)
	}
}
