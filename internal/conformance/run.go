package conformance

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// grpcStatus is the gRPC status of err, through Target.GRPCCode when set.
func (r *runner) grpcStatus(err error) codes.Code {
	if r.t.GRPCCode != nil {
		if c, ok := r.t.GRPCCode(err); ok {
			return c
		}
	}
	return status.Code(err)
}

// Verdict is a check's outcome.
type Verdict string

const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	Skip Verdict = "skip"
)

// Result is one check on one binding.
type Result struct {
	ID       string  `json:"id"`
	Level    string  `json:"level"`
	Area     string  `json:"area"`
	Binding  string  `json:"binding"`
	Verdict  Verdict `json:"verdict"`
	Title    string  `json:"title"`
	Spec     string  `json:"spec"`
	Evidence string  `json:"evidence,omitempty"`
	Sent     string  `json:"sent,omitempty"`
	Got      string  `json:"got,omitempty"`
}

// Report is a whole run.
type Report struct {
	Agent    string   `json:"agent"`
	CardURL  string   `json:"cardUrl"`
	Bindings []string `json:"bindings"`
	Results  []Result `json:"results"`
	Requests int      `json:"requests"`
	Elapsed  string   `json:"elapsed"`
}

// OK says whether every MUST that ran passed.
func (r *Report) OK() bool {
	for _, x := range r.Results {
		if x.Verdict == Fail && x.Level == MUST.String() {
			return false
		}
	}
	return true
}

// Target is the agent under test as the caller reached it.
type Target struct {
	Card     *a2a.AgentCard
	CardURL  string
	CardBody []byte      // the card's bytes as served
	CardHead http.Header // the card response's headers
	// HC sends the plain HTTP requests (the wire checks); Params are the headers every request carries (credentials).
	HC     *http.Client
	Params map[string][]string
	// Connect opens an a2a-go client on one interface of the card.
	Connect func(ctx context.Context, iface *a2a.AgentInterface) (*a2aclient.Client, error)
	// GRPCCode reads the gRPC status a call's error came back with (a2a-go's errors keep only the message); nil:
	// the gRPC checks that need the status read it with grpc's status package alone.
	GRPCCode func(error) (codes.Code, bool)
	// WithVersion makes the calls of Connect's clients made with the context it returns send A2A-Version version
	// instead of their interface's; nil: the gRPC version check is skipped.
	WithVersion func(ctx context.Context, version string) context.Context
	// Signature classifies the signatures of the card served as raw from cardURL: SignatureVerified (detail: the
	// key), SignatureInvalid or SignatureUnverifiable (detail: why). nil: CARD-SIGN-001 is skipped.
	Signature func(ctx context.Context, raw []byte, cardURL string) (status SignatureStatus, detail string)
}

// SignatureStatus is what a card's signatures amount to, as Target.Signature finds.
type SignatureStatus int

const (
	SignatureUnverifiable SignatureStatus = iota // signed, but no key to check a signature with
	SignatureVerified                            // a signature verifies with a key the run has
	SignatureInvalid                             // a key was found and no signature matches, or one is malformed
)

// Options are the run's filters and bounds.
type Options struct {
	Transports  []a2a.TransportProtocol // empty: every interface of the card
	Level       Level                   // the weakest level checked
	Only, Skip  []string                // requirement ids or areas, * matching anything
	Timeout     time.Duration           // per call
	MaxRequests int                     // 0: no bound
	// Webhook is the loopback address the push checks' webhook listens on ("": 127.0.0.1:0).
	Webhook string
}

// ScenariosURI is the card extension an agent declares when it plays the TCK's scenarios by message id
// (tck-input-required-…, tck-artifact-text-…); serve --reference declares it. Then the scenario checks run.
const ScenariosURI = "https://a2acli.dev/extensions/tck-scenarios/v1"

// runner holds one run's state.
type runner struct {
	t     *Target
	o     Options
	runID string

	mu       sync.Mutex
	results  []Result
	requests int
}

// Run checks the agent t on every binding its card lists (or those o.Transports names).
func Run(ctx context.Context, t *Target, o Options) *Report {
	start := time.Now()
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	r := &runner{t: t, o: o, runID: a2a.NewMessageID()[:8]}
	rep := &Report{Agent: t.Card.Name, CardURL: t.CardURL}
	r.cardChecks(ctx)
	var bs []*binding
	for _, iface := range t.Card.SupportedInterfaces {
		if !r.wanted(iface) {
			continue
		}
		b := r.open(ctx, iface)
		rep.Bindings = append(rep.Bindings, b.name)
		if b.c != nil {
			bs = append(bs, b)
		}
	}
	for _, b := range bs {
		r.bindingChecks(ctx, b)
	}
	r.equivalence(ctx, bs)
	for _, b := range bs {
		_ = b.c.Destroy() //nolint:errcheck // closing has nothing to report
	}
	rep.Results, rep.Requests = r.results, r.requests
	rep.Elapsed = time.Since(start).Round(time.Millisecond).String()
	return rep
}

func (r *runner) wanted(iface *a2a.AgentInterface) bool {
	if len(r.o.Transports) == 0 {
		return true
	}
	for _, t := range r.o.Transports {
		if strings.EqualFold(string(t), string(iface.ProtocolBinding)) {
			return true
		}
	}
	return false
}

// selected says whether the filters keep requirement q.
func (r *runner) selected(q requirement) bool { return selectedBy(r.o, q) }

// selectedBy says whether the filters of o keep requirement q.
func selectedBy(o Options, q requirement) bool {
	if q.level > o.Level {
		return false
	}
	match := func(pats []string) bool {
		for _, p := range pats {
			if ok, _ := path.Match(strings.ToUpper(p), q.id); ok || strings.EqualFold(p, q.area) {
				return true
			}
		}
		return false
	}
	if len(o.Only) > 0 && !match(o.Only) {
		return false
	}
	return !match(o.Skip)
}

// outcome is what a check found.
type outcome struct {
	verdict   Verdict
	evidence  string
	sent, got string
}

func pass(evidence string) outcome { return outcome{verdict: Pass, evidence: evidence} }
func skip(why string) outcome      { return outcome{verdict: Skip, evidence: why} }
func fail(sent, got, why string) outcome {
	return outcome{verdict: Fail, evidence: why, sent: sent, got: got}
}

// record adds the outcome of requirement id on binding.
func (r *runner) record(id, binding string, o outcome) {
	q := lookup(id)
	if !r.selected(q) {
		return
	}
	r.add(q, binding, o)
}

// add adds the outcome of requirement q on binding, whatever the filters say.
func (r *runner) add(q requirement, binding string, o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, Result{ID: q.id, Level: q.level.String(), Area: q.area, Binding: binding, Verdict: o.verdict,
		Title: q.title, Spec: "§" + q.section, Evidence: o.evidence, Sent: clip(o.sent), Got: clip(o.got)})
}

// want says whether any of ids is selected: a check whose requirements are all filtered out sends nothing.
func (r *runner) want(ids ...string) bool {
	for _, id := range ids {
		if r.selected(lookup(id)) {
			return true
		}
	}
	return false
}

// spend takes n requests from the --max-requests budget; false when it is used up.
func (r *runner) spend(n int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.o.MaxRequests > 0 && r.requests+n > r.o.MaxRequests {
		return false
	}
	r.requests += n
	return true
}

const budgetSpent = "--max-requests reached"

func (r *runner) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.o.Timeout)
}

// clip bounds evidence taken from the network and makes it one printable line.
func clip(s string) string {
	const max = 300
	s = strings.Map(func(c rune) rune {
		if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			return ' '
		}
		return c
	}, s)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return fmt.Sprintf("error: %v", err)
}
