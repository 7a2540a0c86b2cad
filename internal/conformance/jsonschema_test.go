package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	jsonschema "github.com/a2acli/a2a/third_party/santhosh-tekuri/jsonschema"
)

// jsonschemaChild marks the process TestJSONSchemaFirstUse starts for itself.
const jsonschemaChild = "A2A_JSONSCHEMA_FIRST_USE"

// TestJSONSchemaFirstUse checks our patched jsonschema (third_party/santhosh-tekuri/jsonschema: the drafts'
// metaschemas compile on the first NewCompiler, not in init): several goroutines at once make the process's first
// compilers, compile a draft 2020-12 and a draft-07 schema, reject invalid schemas by the drafts' metaschemas, and
// validate good and bad instances, checking where the errors point. The test runs itself again in a new process,
// so that its goroutines are the very first users of the package whatever ran before; -race checks that first use.
func TestJSONSchemaFirstUse(t *testing.T) {
	if os.Getenv(jsonschemaChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestJSONSchemaFirstUse$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), jsonschemaChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestJSONSchemaFirstUse") {
			t.Fatalf("the first use in a new process: %v\n%s", err, out)
		}
		return
	}
	const goroutines = 8
	start := make(chan struct{})
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- checkJSONSchema()
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// jsonschemaCase is a schema with instances it accepts and one it rejects, and where the rejection's leaf errors
// point in the instance.
type jsonschemaCase struct {
	name, schema string
	invalid      string // a schema of the same draft its metaschema rejects
	good         []string
	bad          string
	badAt        []string // the instance locations of the leaf errors, as JSON pointers, sorted
}

var jsonschemaCases = []jsonschemaCase{{
	name: "draft 2020-12",
	schema: `{"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object", "required": ["name"],
		"properties": {
			"name": {"type": "string"},
			"skills": {"type": "array", "prefixItems": [{"$ref": "#/$defs/skill"}], "items": {"$ref": "#/$defs/skill"}}
		},
		"unevaluatedProperties": false,
		"$defs": {"skill": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "minLength": 1}}}}}`,
	invalid: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "strin"}`,
	good:    []string{`{"name": "a"}`, `{"name": "a", "skills": [{"id": "x"}, {"id": "y"}]}`},
	bad:     `{"name": 1, "skills": [{"id": "x"}, {"id": ""}, {}], "extra": true}`,
	badAt:   []string{"/extra", "/name", "/skills/1/id", "/skills/2"},
}, {
	name: "draft-07",
	schema: `{"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object", "required": ["url"],
		"properties": {
			"url": {"type": "string"},
			"port": {"type": "integer", "minimum": 1, "maximum": 65535},
			"tags": {"type": "array", "items": {"type": "string"}}
		},
		"if": {"properties": {"secure": {"const": true}}, "required": ["secure"]},
		"then": {"required": ["port"]}}`,
	invalid: `{"$schema": "http://json-schema.org/draft-07/schema#", "minLength": -1}`,
	good:    []string{`{"url": "http://a"}`, `{"url": "http://a", "secure": true, "port": 443, "tags": ["x"]}`},
	bad:     `{"url": 5, "port": 70000, "tags": ["x", 2]}`,
	badAt:   []string{"/port", "/tags/1", "/url"},
}}

// checkJSONSchema runs every case on a new compiler.
func checkJSONSchema() error {
	for _, c := range jsonschemaCases {
		if err := c.check(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

func (c jsonschemaCase) check() error {
	comp := jsonschema.NewCompiler()
	for url, text := range map[string]string{"schema.json": c.schema, "invalid.json": c.invalid} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return err
		}
		if err := comp.AddResource(url, doc); err != nil {
			return err
		}
	}
	var sve *jsonschema.SchemaValidationError
	if _, err := comp.Compile("invalid.json"); !errors.As(err, &sve) {
		return fmt.Errorf("compiling a schema its draft's metaschema rejects: got %v, want a SchemaValidationError", err)
	}
	sch, err := comp.Compile("schema.json")
	if err != nil {
		return err
	}
	for _, text := range c.good {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return err
		}
		if err := sch.Validate(v); err != nil {
			return fmt.Errorf("%s: %v", text, err)
		}
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(c.bad))
	if err != nil {
		return err
	}
	var ve *jsonschema.ValidationError
	if err := sch.Validate(v); !errors.As(err, &ve) {
		return fmt.Errorf("%s: got %v, want a ValidationError", c.bad, err)
	}
	var at []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := ""
			for _, tok := range e.InstanceLocation {
				loc += "/" + tok
			}
			at = append(at, loc)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(at)
	at = slices.Compact(at)
	if !slices.Equal(at, c.badAt) {
		return fmt.Errorf("%s: errors at %q, want %q\n%v", c.bad, at, c.badAt, ve)
	}
	return nil
}
