package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
)

// areas is the order of the text report's sections.
var areas = []string{"card", "messages", "streaming", "errors", "wire", "push", "scenarios", "bindings", "other"}

// WriteText writes the report for a person: a verdict per binding, then per area each check's line, failures
// with what was sent and what came back. Network text is made printable by clip.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Agent:    %s\nCard:     %s\n", clip(r.Agent), r.CardURL)
	for _, name := range append([]string{"card"}, r.Bindings...) {
		p, f, s := r.count(name)
		verdict := "PASS"
		if r.mustFailed(name) {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "%-9s %s  (%d passed, %d failed, %d skipped)\n", name+":", verdict, p, f, s)
	}
	for _, area := range areas {
		var rows []Result
		for _, x := range r.Results {
			if x.Area == area {
				rows = append(rows, x)
			}
		}
		if len(rows) == 0 {
			continue
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
		fmt.Fprintf(&b, "\n== %s\n", area)
		for _, x := range rows {
			fmt.Fprintf(&b, "%-4s %-6s %-24s %-12s %s %s", strings.ToUpper(string(x.Verdict)), x.Level, x.ID, x.Binding, x.Spec, x.Title)
			if x.Verdict != Pass && x.Evidence != "" {
				fmt.Fprintf(&b, ": %s", x.Evidence)
			}
			b.WriteByte('\n')
			if x.Verdict == Fail {
				if x.Sent != "" {
					fmt.Fprintf(&b, "       sent: %s\n", x.Sent)
				}
				if x.Got != "" {
					fmt.Fprintf(&b, "       got:  %s\n", x.Got)
				}
			}
		}
	}
	p, f, s := r.count("")
	verdict := "conforms: every MUST passed"
	if !r.OK() {
		verdict = "does not conform: a MUST failed"
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed, %d skipped, %d requests in %s: %s\n", p, f, s, r.Requests, r.Elapsed, verdict)
	_, err := io.WriteString(w, b.String())
	return err
}

// count tallies the results of binding name ("" for all).
func (r *Report) count(name string) (p, f, s int) {
	for _, x := range r.Results {
		if name != "" && x.Binding != name && !strings.HasPrefix(x.Binding, name+" ←") {
			continue
		}
		switch x.Verdict {
		case Pass:
			p++
		case Fail:
			f++
		default:
			s++
		}
	}
	return p, f, s
}

func (r *Report) mustFailed(name string) bool {
	for _, x := range r.Results {
		if (x.Binding == name || strings.HasPrefix(x.Binding, name+" ←")) && x.Verdict == Fail && x.Level == MUST.String() {
			return true
		}
	}
	return false
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(r)
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML, one suite per binding, for CI. A failed SHOULD or MAY is a failure
// there too; the exit code counts MUSTs only.
func (r *Report) WriteJUnit(w io.Writer) error {
	bySuite := map[string]*junitSuite{}
	var order []string
	for _, x := range r.Results {
		s := bySuite[x.Binding]
		if s == nil {
			s = &junitSuite{Name: "a2a conformance " + x.Binding}
			bySuite[x.Binding] = s
			order = append(order, x.Binding)
		}
		c := junitCase{Name: fmt.Sprintf("%s %s %s", x.ID, x.Level, x.Title), ClassName: "a2a.conformance." + x.Area}
		switch x.Verdict {
		case Fail:
			c.Failure = &junitMessage{Message: x.Evidence, Text: fmt.Sprintf("spec %s\nsent: %s\ngot: %s", x.Spec, x.Sent, x.Got)}
			s.Failures++
		case Skip:
			c.Skipped = &junitMessage{Message: x.Evidence}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	doc := junitSuites{}
	for _, n := range order {
		doc.Suites = append(doc.Suites, *bySuite[n])
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
