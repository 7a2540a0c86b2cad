package yaml_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	upstream "go.yaml.in/yaml/v3"

	"github.com/a2acli/a2a/third_party/go-yaml/yaml"
)

// docs exercise every table the patch made lazy: the resolve table and map (bools, nulls, infinities, NaN, merge
// keys), the float regexp (yamlStyleFloat), the long and short tags (explicit !!tags and tag:yaml.org,2002: tags),
// and, when marshalled back, the base-60 float regexp (strings like 1:20 must stay quoted).
var docs = []string{
	"a: 1\nb: -2\nc: 0x1F\nd: 0o17\ne: 1_000\n",
	"f: 1.5\ng: .5\nh: 1e3\ni: -1.25E-2\nj: +.inf\nk: -.Inf\nl: .NAN\nm: 1.\n",
	"t: true\nu: False\nv: TRUE\nw: yes\nx: no\ny: on\nz: ~\nn: null\ne:\n",
	"s: 1:20\nr: 190:20:30.15\nq: '1:20'\np: \"0x10\"\n",
	"ts: 2001-12-14t21:59:43.10-05:00\nd: 2002-12-14\n",
	"a: !!str 12\nb: !!int \"7\"\nc: !!float 3\nd: !!binary aGVsbG8=\ne: !<tag:yaml.org,2002:str> 5\nf: !!null ''\n",
	"base: &b {x: 1, y: 2}\nmerged:\n  <<: *b\n  y: 3\n",
	"- [1, 2.5, true, null, str]\n- {k: v}\n- !custom 5\n",
	"bearer: secret\ntimeout: 30s\nagents:\n  http://127.0.0.1:8080:\n    bearer: other\n",
	"a: 9223372036854775808\nb: -9223372036854775809\nc: 0b101\nd: 1__0\n",
	"[unclosed\n",
	"a: b: c\n",
}

// TestSameAsUpstream is the differential test of the patch: for every document, decoding into any and into a Node,
// and encoding the decoded value back, give what go.yaml.in/yaml/v3 v3.0.4 (the release this copy is of) gives,
// errors included.
func TestSameAsUpstream(t *testing.T) {
	for _, doc := range docs {
		var ours, theirs any
		errO := yaml.Unmarshal([]byte(doc), &ours)
		errT := upstream.Unmarshal([]byte(doc), &theirs)
		if fmt.Sprint(errO) != fmt.Sprint(errT) {
			t.Errorf("%q: error %v, upstream %v", doc, errO, errT)
			continue
		}
		if errO != nil {
			continue
		}
		// %#v so that NaN compares equal to NaN and types show.
		if fmt.Sprintf("%#v", ours) != fmt.Sprintf("%#v", theirs) {
			t.Errorf("%q: decoded %#v, upstream %#v", doc, ours, theirs)
		}
		outO, errO := yaml.Marshal(ours)
		outT, errT := upstream.Marshal(theirs)
		if string(outO) != string(outT) || fmt.Sprint(errO) != fmt.Sprint(errT) {
			t.Errorf("%q: encoded %q (%v), upstream %q (%v)", doc, outO, errO, outT, errT)
		}
		var nO yaml.Node
		var nT upstream.Node
		if err := yaml.Unmarshal([]byte(doc), &nO); err != nil {
			t.Fatal(err)
		}
		if err := upstream.Unmarshal([]byte(doc), &nT); err != nil {
			t.Fatal(err)
		}
		if got, want := nodeString(&nO), upNodeString(&nT); got != want {
			t.Errorf("%q: node %s, upstream %s", doc, got, want)
		}
	}
	// Strings that look like base-60 floats or YAML 1.1 words stay quoted, as upstream.
	for _, s := range []string{"1:20", "190:20:30.15", "1.5", "true", "y", "~", "0x10", "2001-12-14"} {
		outO, _ := yaml.Marshal(map[string]string{"k": s})
		outT, _ := upstream.Marshal(map[string]string{"k": s})
		if string(outO) != string(outT) {
			t.Errorf("Marshal(%q) = %q, upstream %q", s, outO, outT)
		}
	}
}

// TestFirstUseConcurrent: the tables are built once however many goroutines decode first (run with -race).
func TestFirstUseConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var v map[string]any
			if err := yaml.Unmarshal([]byte("a: true\nb: 1.5\nc: !!str 3\n"), &v); err != nil {
				t.Error(err)
				return
			}
			if want := map[string]any{"a": true, "b": 1.5, "c": "3"}; !reflect.DeepEqual(v, want) {
				t.Errorf("got %#v, want %#v", v, want)
			}
		})
	}
	wg.Wait()
}

func nodeString(n *yaml.Node) string {
	s := fmt.Sprintf("(%d %q %q %d", n.Kind, n.Tag, n.Value, n.Style)
	for _, c := range n.Content {
		s += " " + nodeString(c)
	}
	return s + ")"
}

func upNodeString(n *upstream.Node) string {
	s := fmt.Sprintf("(%d %q %q %d", n.Kind, n.Tag, n.Value, n.Style)
	for _, c := range n.Content {
		s += " " + upNodeString(c)
	}
	return s + ")"
}
