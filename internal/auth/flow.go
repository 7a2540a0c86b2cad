package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Flow is an OAuth 2 grant a2a can run.
type Flow string

const (
	ClientCredentials Flow = "client-credentials"
	DeviceCode        Flow = "device-code"
)

// Plan is what a login does: which scheme of the card, which flow, at which endpoints, asking for which scopes.
type Plan struct {
	Scheme        string
	Flow          Flow
	TokenURL      string
	DeviceAuthURL string
	AuthURL       string
	Scopes        []string
	// Discovery is the OpenID Connect discovery URL the endpoints came from ("" for an oauth2 scheme).
	Discovery string
}

// PlanFromCard chooses the scheme and flow: the first oauth2 or openIdConnect scheme (by name) that offers flow
// ("" for the first it offers, client credentials before device code when hasSecret). scopes, when given, replace
// the card's: those its requirements name for the scheme, else every scope the flow lists.
func PlanFromCard(ctx context.Context, hc *http.Client, card *a2a.AgentCard, flow Flow, hasSecret bool, scopes []string) (*Plan, error) {
	names := make([]string, 0, len(card.SecuritySchemes))
	for n := range card.SecuritySchemes {
		names = append(names, string(n))
	}
	sort.Strings(names)
	var offered []string
	for _, n := range names {
		var plans []*Plan
		switch s := card.SecuritySchemes[a2a.SecuritySchemeName(n)].(type) {
		case a2a.OAuth2SecurityScheme:
			plans = oauth2Plans(s.Flows)
		case a2a.OpenIDConnectSecurityScheme:
			p, err := discover(ctx, hc, s.OpenIDConnectURL)
			if err != nil {
				return nil, fmt.Errorf("scheme %s: %w", n, err)
			}
			plans = p
		default:
			continue
		}
		if flow == "" {
			sort.SliceStable(plans, func(i, j int) bool { return rank(plans[i].Flow, hasSecret) < rank(plans[j].Flow, hasSecret) })
		}
		for _, p := range plans {
			offered = append(offered, n+": "+string(p.Flow))
			if flow != "" && p.Flow != flow {
				continue
			}
			p.Scheme = n
			if len(scopes) > 0 {
				p.Scopes = scopes
			} else if req := requiredScopes(card, n); req != nil {
				p.Scopes = req
			}
			return p, nil
		}
	}
	if len(offered) == 0 {
		return nil, errors.New("the card declares no oauth2 or openIdConnect scheme with a flow a2a runs (client credentials, device code, authorization code)")
	}
	return nil, fmt.Errorf("the card offers no %s flow (it offers %s)", flow, strings.Join(offered, ", "))
}

// rank orders the flows when the user named none: with a client secret, client credentials first; without one,
// the browser's authorization code, then the device code.
func rank(f Flow, hasSecret bool) int {
	switch {
	case f == ClientCredentials && hasSecret:
		return 0
	case f == AuthorizationCode:
		return 1
	case f == DeviceCode:
		return 2
	}
	return 3
}

func oauth2Plans(f a2a.OAuthFlows) []*Plan {
	switch v := f.(type) {
	case a2a.AuthorizationCodeOAuthFlow:
		return []*Plan{{Flow: AuthorizationCode, AuthURL: v.AuthorizationURL, TokenURL: v.TokenURL, Scopes: keys(v.Scopes)}}
	case a2a.ClientCredentialsOAuthFlow:
		return []*Plan{{Flow: ClientCredentials, TokenURL: v.TokenURL, Scopes: keys(v.Scopes)}}
	case a2a.DeviceCodeOAuthFlow:
		return []*Plan{{Flow: DeviceCode, TokenURL: v.TokenURL, DeviceAuthURL: v.DeviceAuthorizationURL, Scopes: keys(v.Scopes)}}
	}
	return nil
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func requiredScopes(card *a2a.AgentCard, scheme string) []string {
	for _, req := range card.SecurityRequirements {
		if s, ok := req[a2a.SecuritySchemeName(scheme)]; ok && len(s) > 0 {
			return []string(s)
		}
	}
	return nil
}

// maxDiscovery bounds an OpenID Connect discovery document.
const maxDiscovery = 256 << 10

// discover reads an OpenID Connect discovery document for the flows it offers.
func discover(ctx context.Context, hc *http.Client, u string) ([]*Plan, error) {
	if _, err := url.Parse(u); err != nil || u == "" {
		return nil, fmt.Errorf("openIdConnectUrl %q is not a URL", u)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("OpenID Connect discovery: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("OpenID Connect discovery %s: HTTP %d", u, resp.StatusCode)
	}
	var d struct {
		TokenEndpoint  string   `json:"token_endpoint"`
		DeviceEndpoint string   `json:"device_authorization_endpoint"`
		AuthEndpoint   string   `json:"authorization_endpoint"`
		GrantTypes     []string `json:"grant_types_supported"`
		Scopes         []string `json:"scopes_supported"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxDiscovery)).Decode(&d); err != nil {
		return nil, fmt.Errorf("OpenID Connect discovery %s: %w", u, err)
	}
	if d.TokenEndpoint == "" {
		return nil, fmt.Errorf("OpenID Connect discovery %s: no token_endpoint", u)
	}
	has := func(g string) bool {
		for _, x := range d.GrantTypes {
			if x == g {
				return true
			}
		}
		return len(d.GrantTypes) == 0 && g == "client_credentials"
	}
	var plans []*Plan
	scopes := []string{"openid"}
	if has("client_credentials") {
		plans = append(plans, &Plan{Flow: ClientCredentials, TokenURL: d.TokenEndpoint, Discovery: u})
	}
	if d.AuthEndpoint != "" && (has("authorization_code") || len(d.GrantTypes) == 0) {
		codeScopes := scopes
		for _, s := range d.Scopes {
			if s == "offline_access" {
				codeScopes = []string{"openid", "offline_access"} // a refresh token, so the login lasts
			}
		}
		plans = append(plans, &Plan{Flow: AuthorizationCode, TokenURL: d.TokenEndpoint, AuthURL: d.AuthEndpoint, Scopes: codeScopes, Discovery: u})
	}
	if d.DeviceEndpoint != "" && has("urn:ietf:params:oauth:grant-type:device_code") {
		plans = append(plans, &Plan{Flow: DeviceCode, TokenURL: d.TokenEndpoint, DeviceAuthURL: d.DeviceEndpoint, Scopes: scopes, Discovery: u})
	}
	return plans, nil
}

// Credentials are the client's: its id and, for client credentials, its secret.
type Credentials struct{ ClientID, ClientSecret string }

// Prompts are how a flow reaches the user. Device shows where to go and what to type (RFC 8628 §3.3; complete is
// the URI with the code in it, when the server gives one); Open shows the authorization URL of the
// authorization-code flow (a browser where one opens, else a line to copy).
type Prompts struct {
	Device func(verificationURI, userCode, complete string)
	Open   func(authURL string)
}

// Login runs the plan's flow and returns the entry to store for origin.
func Login(ctx context.Context, hc *http.Client, origin string, p *Plan, c Credentials, prompt Prompts) (*Entry, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	e := &Entry{Origin: origin, Scheme: p.Scheme, Flow: p.Flow, TokenURL: p.TokenURL, ClientID: c.ClientID, Scopes: p.Scopes}
	var tok *oauth2.Token
	var err error
	switch p.Flow {
	case ClientCredentials:
		if c.ClientID == "" || c.ClientSecret == "" {
			return nil, errors.New("the client-credentials flow needs --client-id and --client-secret")
		}
		e.ClientSecret = c.ClientSecret
		tok, err = ccConfig(e).Token(ctx)
	case DeviceCode:
		if c.ClientID == "" {
			return nil, errors.New("the device-code flow needs --client-id")
		}
		cfg := &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Scopes: p.Scopes,
			Endpoint: oauth2.Endpoint{TokenURL: p.TokenURL, DeviceAuthURL: p.DeviceAuthURL}}
		e.ClientSecret = c.ClientSecret
		var da *oauth2.DeviceAuthResponse
		if da, err = cfg.DeviceAuth(ctx); err != nil {
			return nil, fmt.Errorf("device authorization: %w", err)
		}
		prompt.Device(da.VerificationURI, da.UserCode, da.VerificationURIComplete)
		tok, err = cfg.DeviceAccessToken(ctx, da)
	case AuthorizationCode:
		if c.ClientID == "" {
			return nil, errors.New("the authorization-code flow needs --client-id")
		}
		e.ClientSecret = c.ClientSecret
		tok, err = authCode(ctx, p, c, prompt.Open)
	default:
		return nil, fmt.Errorf("flow %q is not one a2a runs", p.Flow)
	}
	if err != nil {
		return nil, fmt.Errorf("token request: %w", tokenErr(err))
	}
	setToken(e, tok)
	return e, nil
}

func ccConfig(e *Entry) *clientcredentials.Config {
	return &clientcredentials.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, TokenURL: e.TokenURL, Scopes: e.Scopes}
}

func setToken(e *Entry, tok *oauth2.Token) {
	e.AccessToken, e.TokenType, e.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		e.RefreshToken = tok.RefreshToken
	}
}

// tokenErr keeps what the server said (its error code) and drops the body echo oauth2's error carries.
func tokenErr(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return fmt.Errorf("the authorization server refused: %.64q", re.ErrorCode)
		}
		if re.Response != nil {
			return fmt.Errorf("the authorization server answered HTTP %d", re.Response.StatusCode)
		}
	}
	return err
}

// RefreshBefore is how long before its expiry a token is renewed.
const RefreshBefore = 30 * time.Second

// Fresh returns the entry of origin with a token valid for at least RefreshBefore, renewing (and storing) it
// first when needed: with the refresh token, or by asking again for client credentials. nil, nil when origin has
// no entry.
func Fresh(ctx context.Context, hc *http.Client, s *Store, origin string, now time.Time) (*Entry, error) {
	e, err := s.Find(origin)
	if err != nil || e == nil || e.Expiry.IsZero() || e.Expiry.Sub(now) > RefreshBefore {
		return e, err
	}
	// Renewals go one at a time in the process (`a2a mcp` connects its agents at once): one reads the store,
	// spends the refresh token and writes the store back, and two at once would lose one's write, or spend a
	// refresh token twice when two agents share an origin. The second, once its turn comes, reads the store again
	// and finds the token the first renewed.
	freshMu.Lock()
	defer freshMu.Unlock()
	e, err = s.Find(origin)
	if err != nil || e == nil {
		return nil, err
	}
	if e.Expiry.IsZero() || e.Expiry.Sub(now) > RefreshBefore {
		return e, nil
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	var tok *oauth2.Token
	switch {
	case e.RefreshToken != "":
		cfg := &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: e.TokenURL}}
		tok, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: e.RefreshToken, Expiry: now.Add(-time.Second)}).Token()
	case e.Flow == ClientCredentials && e.ClientSecret != "":
		tok, err = ccConfig(e).Token(ctx)
	default:
		return nil, &ExpiredError{Origin: origin}
	}
	if err != nil {
		return nil, &ExpiredError{Origin: origin, Err: tokenErr(err)}
	}
	setToken(e, tok)
	return e, s.Put(e)
}

// freshMu serialises the renewals of Fresh.
var freshMu sync.Mutex

// ExpiredError is a stored token that expired and could not be renewed.
type ExpiredError struct {
	Origin string
	Err    error
}

func (e *ExpiredError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("the token for %s expired and cannot be refreshed", e.Origin)
	}
	return fmt.Sprintf("the token for %s expired and its renewal failed: %v", e.Origin, e.Err)
}

func (e *ExpiredError) Unwrap() error { return e.Err }
