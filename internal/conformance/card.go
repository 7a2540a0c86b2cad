package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

const wellKnown = "/.well-known/agent-card.json"

// fetch GETs u with the run's headers, reading at most 1 MiB.
func (r *runner) fetch(ctx context.Context, u string) (*http.Response, []byte, error) {
	ctx, cancel := r.callCtx(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	for k, vs := range r.t.Params {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := r.t.HC.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, body, err
}

// cardChecks checks the card as served: path, content type, cache headers, schema, interfaces, security.
func (r *runner) cardChecks(ctx context.Context) {
	card := r.t.Card
	const b = "card"
	served := r.t.CardBody // the card's bytes as it arrived; else the well-known path's
	if r.t.CardURL != "" && strings.HasPrefix(r.t.CardURL, "http") && r.want("CARD-DISC-001", "CARD-CTYPE-001", "CARD-CACHE-001", "CARD-CACHE-002", "CARD-STRUCT-001", "CARD-SIGN-001", "CARD-SIGN-003") {
		u, err := url.Parse(r.t.CardURL)
		if err == nil {
			u.Path, u.RawQuery = wellKnown, ""
		}
		if err != nil || !r.spend(1) {
			r.record("CARD-DISC-001", b, skip(budgetSpent))
		} else if resp, body, err := r.fetch(ctx, u.String()); err != nil {
			r.record("CARD-DISC-001", b, fail("GET "+u.String(), errText(err), "the well-known card path does not answer"))
		} else if resp.StatusCode != http.StatusOK {
			r.record("CARD-DISC-001", b, fail("GET "+u.String(), resp.Status, "the well-known card path must serve the card"))
		} else {
			r.record("CARD-DISC-001", b, pass("GET "+u.Path+": "+resp.Status))
			r.cardResponse(u.String(), resp, body)
			if served == nil {
				served = body
			}
		}
	} else if r.t.CardURL != "" && !strings.HasPrefix(r.t.CardURL, "http") {
		r.record("CARD-DISC-001", b, skip("the card was read from a file"))
	}

	if len(card.SupportedInterfaces) == 0 {
		r.record("CARD-PROTO-001", b, fail("", "supportedInterfaces: []", "the card lists no interface"))
	} else {
		r.record("CARD-PROTO-001", b, pass(fmt.Sprintf("%d interface(s)", len(card.SupportedInterfaces))))
	}
	var bad []string
	for _, iface := range card.SupportedInterfaces {
		if iface.URL == "" || iface.ProtocolBinding == "" || iface.ProtocolVersion == "" {
			bad = append(bad, fmt.Sprintf("%s %s %q", iface.ProtocolBinding, iface.ProtocolVersion, iface.URL))
		}
	}
	if len(bad) > 0 {
		r.record("CARD-PROTO-002", b, fail("", strings.Join(bad, "; "), "an interface lacks its binding, version or URL"))
	} else if len(card.SupportedInterfaces) > 0 {
		r.record("CARD-PROTO-002", b, pass("every interface names binding, version and URL"))
	}
	var missing []string
	for _, req := range card.SecurityRequirements {
		for name := range req {
			if _, ok := card.SecuritySchemes[name]; !ok {
				missing = append(missing, string(name))
			}
		}
	}
	if len(missing) > 0 {
		r.record("CARD-SEC-001", b, fail("", "securityRequirements name "+strings.Join(missing, ", "), "a requirement names a scheme securitySchemes does not declare"))
	} else {
		r.record("CARD-SEC-001", b, pass(fmt.Sprintf("%d requirement(s), %d scheme(s)", len(card.SecurityRequirements), len(card.SecuritySchemes))))
	}
	r.signatureChecks(ctx, served)
}

// signatureChecks: the card's signatures (§8.4), when it carries any. CARD-SIGN-003 reads each protected header;
// CARD-SIGN-001 verifies the signatures over the card's RFC 8785 canonical form with the keys Target.Signature
// finds (--trust-keys, or a jku over https on the card's origin), skipped when it has none to check them with.
func (r *runner) signatureChecks(ctx context.Context, served []byte) {
	const b = "card"
	sigs := r.t.Card.Signatures
	if len(sigs) == 0 {
		r.record("CARD-SIGN-001", b, skip("the card carries no signature"))
		r.record("CARD-SIGN-003", b, skip("the card carries no signature"))
		return
	}
	if bad := protectedHeaderProblems(sigs); bad != "" {
		r.record("CARD-SIGN-003", b, fail("", bad, "a JWS protected header must carry alg and kid"))
	} else {
		r.record("CARD-SIGN-003", b, pass(fmt.Sprintf("%d signature(s), each protected header with alg and kid", len(sigs))))
	}
	if !r.want("CARD-SIGN-001") {
		return
	}
	switch {
	case r.t.Signature == nil:
		r.record("CARD-SIGN-001", b, skip("no signature verifier in this run"))
	case served == nil:
		r.record("CARD-SIGN-001", b, skip("the card's bytes as served are not at hand"))
	default:
		status, detail := r.t.Signature(ctx, served, r.t.CardURL)
		sent := "the card's signatures, verified over its RFC 8785 canonical form"
		switch status {
		case SignatureVerified:
			r.record("CARD-SIGN-001", b, pass("verified: "+detail))
		case SignatureInvalid:
			r.record("CARD-SIGN-001", b, fail(sent, detail, "no signature verifies the card as served"))
		default:
			r.record("CARD-SIGN-001", b, skip("no key to verify the signature with ("+detail+"): pass --trust-keys, or serve the key set "+
				"its jku names over https on the card's origin"))
		}
	}
}

// protectedHeaderProblems says which signatures' protected headers lack alg or kid (§8.4.2), "" when none does.
func protectedHeaderProblems(sigs []a2a.AgentCardSignature) string {
	var bad []string
	for i, s := range sigs {
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s.Protected, "="))
		var h struct {
			Alg, Kid any
		}
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("signature %d: protected is not base64url", i))
		case json.Unmarshal(raw, &h) != nil:
			bad = append(bad, fmt.Sprintf("signature %d: protected is not a JSON object", i))
		default:
			if v, ok := h.Alg.(string); !ok || v == "" {
				bad = append(bad, fmt.Sprintf("signature %d: no alg", i))
			}
			if v, ok := h.Kid.(string); !ok || v == "" {
				bad = append(bad, fmt.Sprintf("signature %d: no kid", i))
			}
		}
	}
	return strings.Join(bad, "; ")
}

// cardResponse checks the card response's content type, cache headers and schema.
func (r *runner) cardResponse(u string, resp *http.Response, body []byte) {
	const b = "card"
	sent := "GET " + u
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || !jsonType(mt) {
		r.record("CARD-CTYPE-001", b, fail(sent, "Content-Type: "+ct, "the card must be served as application/json"))
	} else {
		r.record("CARD-CTYPE-001", b, pass("Content-Type: "+ct))
	}
	if cc := resp.Header.Get("Cache-Control"); cc == "" {
		r.record("CARD-CACHE-001", b, fail(sent, "no Cache-Control header", "caches cannot tell how long the card is fresh"))
	} else {
		r.record("CARD-CACHE-001", b, pass("Cache-Control: "+cc))
	}
	if et := resp.Header.Get("ETag"); et == "" {
		r.record("CARD-CACHE-002", b, fail(sent, "no ETag header", "clients cannot revalidate the card"))
	} else {
		r.record("CARD-CACHE-002", b, pass("ETag: "+et))
	}
	which, err := validateCard(body)
	if err != nil {
		r.record("CARD-STRUCT-001", b, fail(sent, oneLine(err), "the card does not match the "+which+" schema"))
	} else {
		r.record("CARD-STRUCT-001", b, pass("matches the "+which+" schema"))
	}
}

// binding is one interface under test, with its client.
type binding struct {
	name  string
	iface *a2a.AgentInterface
	c     *a2aclient.Client
	v03   bool
	// streaming is the card's capability; made are the tasks the run created on the binding.
	streaming bool
	made      []*a2a.Task
	// ownCard: the client asks the agent even for what the card does not declare (else the CAP checks skip).
	ownCard bool
}

// bindingName is how a report names an interface: "jsonrpc 1.0".
func bindingName(iface *a2a.AgentInterface) string {
	n := strings.ToLower(string(iface.ProtocolBinding))
	switch iface.ProtocolBinding {
	case a2a.TransportProtocolHTTPJSON:
		n = "rest"
	}
	return n + " " + string(iface.ProtocolVersion)
}

// unusable records that a binding cannot be checked at all (BIND-FIELD-001 failed), even when --only leaves
// BIND-FIELD-001 out: none of the binding's checks can run, and the run must not read as conforming. Only --skip
// (or --level) leaves it unsaid.
func (r *runner) unusable(binding string, o outcome) {
	q := lookup("BIND-FIELD-001")
	all := r.o
	all.Only = nil
	if selectedBy(all, q) {
		r.add(q, binding, o)
	}
}

// open connects to iface and checks that it answers its binding: a GetTask of an id no task has must come back as
// an A2A error, whatever the binding.
func (r *runner) open(ctx context.Context, iface *a2a.AgentInterface) *binding {
	b := &binding{name: bindingName(iface), iface: iface, v03: strings.HasPrefix(string(iface.ProtocolVersion), "0."),
		streaming: r.t.Card.Capabilities.Streaming}
	c, err := r.t.Connect(ctx, iface)
	if err != nil {
		r.unusable(b.name, fail("connect "+iface.URL, errText(err), "the interface the card declares cannot be reached"))
		return b
	}
	if !r.spend(1) {
		r.record("BIND-FIELD-001", b.name, skip(budgetSpent))
		b.c = c
		return b
	}
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	id := a2a.TaskID("a2a-conformance-missing-" + r.runID)
	_, err = c.GetTask(cctx, &a2a.GetTaskRequest{ID: id})
	sent := fmt.Sprintf("GetTask id=%s to %s", id, iface.URL)
	switch {
	case err == nil:
		r.record("BIND-FIELD-001", b.name, fail(sent, "a task", "a task that was never created was returned"))
	case isA2AError(err):
		r.record("BIND-FIELD-001", b.name, pass(iface.URL+" answers in "+b.name))
	default:
		r.unusable(b.name, fail(sent, errText(err), "the interface does not answer as its binding"))
		_ = c.Destroy() //nolint:errcheck // nothing to report
		return b
	}
	if errors.Is(err, a2a.ErrTaskNotFound) {
		r.record("CORE-GET-002", b.name, pass("TaskNotFoundError"))
	} else {
		r.record("CORE-GET-002", b.name, fail(sent, errText(err), "want TaskNotFoundError"))
	}
	b.c = c
	// The client refuses locally what the card does not declare; the capability checks must ask the agent.
	all := *r.t.Card
	all.Capabilities.Streaming, all.Capabilities.PushNotifications, all.Capabilities.ExtendedAgentCard = true, true, true
	all.SupportedInterfaces = append([]*a2a.AgentInterface{iface}, r.t.Card.SupportedInterfaces...)
	b.ownCard = c.UpdateCard(&all) == nil
	return b
}
