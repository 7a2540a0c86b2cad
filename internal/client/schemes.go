package client

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Credentials go per the agent's declared security schemes (the a2a-cli specification, §12.1; A2A §7.3): --bearer
// (and a token of `auth login`) only to an agent whose card declares a scheme that takes a bearer token (http
// bearer, oauth2, openIdConnect), --api-key only to one that declares an apiKey scheme, where that scheme says. A
// credential no declared scheme takes is withheld, with a warning; --auth-undeclared sends it anyway (agents that
// under-declare). --auth and --svc-param are service parameters the user writes whole: they go as given. Without a
// card (-e/--endpoint) nothing is declared and nothing is withheld.

// takesBearer reports whether a scheme accepts "Authorization: Bearer <token>".
func takesBearer(s a2a.SecurityScheme) bool {
	switch v := s.(type) {
	case a2a.HTTPAuthSecurityScheme:
		return strings.EqualFold(v.Scheme, "bearer")
	case *a2a.HTTPAuthSecurityScheme:
		return v != nil && strings.EqualFold(v.Scheme, "bearer")
	case a2a.OAuth2SecurityScheme, *a2a.OAuth2SecurityScheme, a2a.OpenIDConnectSecurityScheme, *a2a.OpenIDConnectSecurityScheme:
		return true
	}
	return false
}

// apiKeyScheme is s as an apiKey scheme, nil when it is another kind.
func apiKeyScheme(s a2a.SecurityScheme) *a2a.APIKeySecurityScheme {
	switch v := s.(type) {
	case a2a.APIKeySecurityScheme:
		return &v
	case *a2a.APIKeySecurityScheme:
		return v
	}
	return nil
}

// takesHTTPAuth reports whether a scheme accepts an Authorization header of the given auth-scheme word (Bearer,
// Basic, …): an http scheme of that name, or, for Bearer, oauth2 and openIdConnect.
func takesHTTPAuth(s a2a.SecurityScheme, word string) bool {
	if strings.EqualFold(word, "bearer") {
		return takesBearer(s)
	}
	switch v := s.(type) {
	case a2a.HTTPAuthSecurityScheme:
		return strings.EqualFold(v.Scheme, word)
	case *a2a.HTTPAuthSecurityScheme:
		return v != nil && strings.EqualFold(v.Scheme, word)
	}
	return false
}

// DeclaredSchemes describes a card's security schemes for a person, in name order: `token (http bearer), key
// (apiKey in header X-Key)`; "none" when the card declares none.
func DeclaredSchemes(card *a2a.AgentCard) string {
	if card == nil || len(card.SecuritySchemes) == 0 {
		return "none"
	}
	names := make([]string, 0, len(card.SecuritySchemes))
	for name := range card.SecuritySchemes {
		names = append(names, string(name))
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, name := range names {
		out = append(out, fmt.Sprintf("%s (%s)", name, schemeKind(card.SecuritySchemes[a2a.SecuritySchemeName(name)])))
	}
	return strings.Join(out, ", ")
}

func schemeKind(s a2a.SecurityScheme) string {
	if k := apiKeyScheme(s); k != nil {
		return fmt.Sprintf("apiKey in %s %s", k.Location, k.Name)
	}
	switch v := s.(type) {
	case a2a.HTTPAuthSecurityScheme:
		return "http " + strings.ToLower(v.Scheme)
	case *a2a.HTTPAuthSecurityScheme:
		return "http " + strings.ToLower(v.Scheme)
	case a2a.OAuth2SecurityScheme, *a2a.OAuth2SecurityScheme:
		return "oauth2"
	case a2a.OpenIDConnectSecurityScheme, *a2a.OpenIDConnectSecurityScheme:
		return "openIdConnect"
	case a2a.MutualTLSSecurityScheme, *a2a.MutualTLSSecurityScheme:
		return "mutualTLS"
	}
	return fmt.Sprintf("%T", s)
}

// declares reports whether any of the card's schemes satisfies ok.
func declares(card *a2a.AgentCard, ok func(a2a.SecurityScheme) bool) bool {
	if card == nil {
		return false
	}
	for _, s := range card.SecuritySchemes {
		if ok(s) {
			return true
		}
	}
	return false
}

// WithheldCredential is a credential the agent's card declares no scheme for, not sent.
type WithheldCredential struct {
	Flag     string // --bearer, --api-key
	Declared string // DeclaredSchemes of the card
}

func (w WithheldCredential) String() string {
	return fmt.Sprintf("%s not sent: the agent's card declares no security scheme that takes it (declared: %s)", w.Flag, w.Declared)
}

// attachCredentials applies the card's security schemes to --bearer and --api-key in params (see the top of this
// file), then puts --api-key where the card's apiKey scheme says.
func (d *Dialer) attachCredentials(card *a2a.AgentCard, params map[string][]string) {
	if card == nil {
		return
	}
	var withheld []WithheldCredential
	if d.opts.Bearer != "" && declares(card, takesBearer) {
		d.log.Printf("%s: sent as Authorization: Bearer, per the card's schemes (%s)", d.bearerFlag(), DeclaredSchemes(card))
	}
	if d.opts.Bearer != "" && !declares(card, takesBearer) {
		if d.opts.AuthUndeclared {
			d.log.Printf("--bearer: the card declares no scheme that takes a bearer token; sent anyway (--auth-undeclared)")
		} else {
			delete(params, "Authorization")
			withheld = append(withheld, WithheldCredential{Flag: d.bearerFlag(), Declared: DeclaredSchemes(card)})
		}
	}
	if d.opts.APIKey != "" && !declares(card, func(s a2a.SecurityScheme) bool { return apiKeyScheme(s) != nil }) {
		if d.opts.AuthUndeclared {
			d.log.Printf("--api-key: the card declares no apiKey scheme; sent anyway as %s (--auth-undeclared)", defaultAPIKeyHeader)
		} else {
			delete(params, defaultAPIKeyHeader)
			withheld = append(withheld, WithheldCredential{Flag: "--api-key", Declared: DeclaredSchemes(card)})
		}
	}
	d.st.mu.Lock()
	for _, w := range withheld {
		if !containsWithheld(d.st.withheld, w) {
			d.st.withheld = append(d.st.withheld, w)
			fmt.Fprintf(d.warn, "warning: %s; --auth-undeclared sends it anyway\n", w)
		}
	}
	d.st.mu.Unlock()
	d.apiKeyHeader(card, params)
}

// bearerFlag names where the bearer token came from, for a person.
func (d *Dialer) bearerFlag() string {
	if d.opts.BearerFrom != "" {
		return d.opts.BearerFrom
	}
	return "--bearer"
}

func containsWithheld(list []WithheldCredential, w WithheldCredential) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}

// Withheld lists the credentials the agent's card declared no scheme for, which were not sent.
func (d *Dialer) Withheld() []WithheldCredential {
	d.st.mu.Lock()
	defer d.st.mu.Unlock()
	return append([]WithheldCredential(nil), d.st.withheld...)
}

// ExtendedCardScheme names the security scheme of the public card the run's credentials satisfy, for the
// authenticated extended card, which is fetched only with a scheme the public card advertises (the a2a-cli
// specification, §12.4). It fails when the card does not offer an extended card, declares no scheme, or none of
// the schemes takes the credentials given; the error says which schemes it declares and what to pass.
func (d *Dialer) ExtendedCardScheme(card *a2a.AgentCard, params map[string][]string) (string, error) {
	if card == nil {
		return "", WithHint(Usagef("--extended needs the agent's public card: the extended card is asked for with a security scheme it advertises"),
			"name the agent by its card (drop -e/--endpoint)")
	}
	if !card.Capabilities.ExtendedAgentCard {
		return "", WithHint(Usagef("the agent's card does not offer an extended card (capabilities.extendedAgentCard is not set)"),
			"drop --extended to show the public card")
	}
	type offer struct {
		what string
		ok   func(a2a.SecurityScheme) bool
	}
	var offers []offer
	// --bearer may have been withheld from params already (attachCredentials): it is offered all the same.
	authz := strings.TrimSpace(http.Header(params).Get("Authorization"))
	if d.opts.Bearer != "" {
		authz = "Bearer " + d.opts.Bearer
	}
	if word, _, _ := strings.Cut(authz, " "); word != "" {
		what := "an Authorization header of scheme " + word
		if d.opts.Bearer != "" {
			what = d.bearerFlag()
		}
		offers = append(offers, offer{what, func(s a2a.SecurityScheme) bool { return takesHTTPAuth(s, word) }})
	}
	if d.opts.APIKey != "" {
		offers = append(offers, offer{"--api-key", func(s a2a.SecurityScheme) bool { return apiKeyScheme(s) != nil }})
	}
	if d.opts.Cert != "" {
		offers = append(offers, offer{"--cert", func(s a2a.SecurityScheme) bool {
			switch s.(type) {
			case a2a.MutualTLSSecurityScheme, *a2a.MutualTLSSecurityScheme:
				return true
			}
			return false
		}})
	}
	names := make([]string, 0, len(card.SecuritySchemes))
	for name := range card.SecuritySchemes {
		names = append(names, string(name))
	}
	sort.Strings(names)
	var given []string
	for _, o := range offers {
		given = append(given, o.what)
		for _, name := range names {
			if o.ok(card.SecuritySchemes[a2a.SecuritySchemeName(name)]) {
				return name, nil
			}
		}
	}
	msg := "the extended card is fetched only with a security scheme the public card advertises, and "
	switch {
	case len(card.SecuritySchemes) == 0:
		msg += "this card declares none"
	case len(offers) == 0:
		msg += "no credentials were given"
	default:
		msg += fmt.Sprintf("it declares none that takes %s", strings.Join(given, " or "))
	}
	return "", &CredentialsError{Msg: msg, Hint: "the card declares: " + DeclaredSchemes(card) + credentialAdvice(card)}
}

// credentialAdvice is what to pass for the card's schemes: "; pass --bearer <token>" and the like.
func credentialAdvice(card *a2a.AgentCard) string {
	var out []string
	if declares(card, takesBearer) {
		out = append(out, "--bearer <token>")
	}
	if declares(card, func(s a2a.SecurityScheme) bool { return apiKeyScheme(s) != nil }) {
		out = append(out, "--api-key <key>")
	}
	if declares(card, func(s a2a.SecurityScheme) bool { return takesHTTPAuth(s, "basic") }) {
		out = append(out, `--auth "Basic <credentials>"`)
	}
	if len(out) == 0 {
		return ""
	}
	return "; pass " + strings.Join(out, " or ")
}

// CredentialAdvice is the hint for an agent that refused a call: the schemes its card declares and the flag each
// takes; "" without a card.
func CredentialAdvice(card *a2a.AgentCard) string {
	if card == nil {
		return ""
	}
	return "the agent's card declares: " + DeclaredSchemes(card) + credentialAdvice(card)
}

// CredentialsError is a call a2a did not make because no credential given fits what the agent declares: the
// a2a-cli specification's A2ACLI_ERR_CREDENTIALS_MISSING (exit 4).
type CredentialsError struct {
	Msg, Hint string
}

func (e *CredentialsError) Error() string { return e.Msg }
