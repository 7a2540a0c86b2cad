package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
	"github.com/a2acli/a2a/internal/testskip"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

var (
	opOnce sync.Once
	opBin  string
	opErr  string
)

// startOP builds (once) and starts zitadel/oidc's example OpenID Provider (e2e/testdata/oidcop, built from the
// module cache or proxy) on 127.0.0.1 with a free port, and returns its issuer URL.
func startOP(t *testing.T) string {
	t.Helper()
	opOnce.Do(func() {
		dir, err := os.MkdirTemp("", "oidcop")
		if err != nil {
			opErr = err.Error()
			return
		}
		opBin = filepath.Join(dir, "oidcop")
		cmd := exec.Command("go", "build", "-o", opBin, ".")
		cmd.Dir = filepath.Join("testdata", "oidcop")
		if out, err := cmd.CombinedOutput(); err != nil {
			opErr = string(out)
		}
	})
	if opErr != "" {
		testskip.Missing(t, "zitadel-oidc", "cannot build zitadel/oidc's example OP (module cache or proxy needed): "+opErr)
	}
	return startServeCmd(t, exec.Command(opBin)).url
}

// opEndpoints reads the OP's discovery document.
func opEndpoints(t *testing.T, op string) (token, userinfo string) {
	t.Helper()
	resp, err := http.Get(op + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var d struct {
		Token    string `json:"token_endpoint"`
		Userinfo string `json:"userinfo_endpoint"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d.Token, d.Userinfo
}

// userinfoCheck is an agent's token check: the OP's userinfo endpoint must accept the bearer token (the example
// OP answers only for tokens it issued and still holds). userinfo may change (a restarted OP).
func userinfoCheck(userinfo *atomic.Value) func(string) bool {
	return func(authz string) bool {
		if !strings.HasPrefix(authz, "Bearer ") {
			return false
		}
		req, _ := http.NewRequest(http.MethodGet, userinfo.Load().(string), nil)
		req.Header.Set("Authorization", authz)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
}

// authEnv is the environment of a user whose config directory (and token file) is dir.
func authEnv(dir string) []string { return []string{"XDG_CONFIG_HOME=" + dir} }

// Client credentials against a real authorization server: auth login reads the card's oauth2 flow, the stored token
// (0600, never printed by status) goes with every call to the agent's origin and to no other, an expired token is
// renewed before a call, and a token the server no longer knows gets a hint naming auth login.
func TestAuthClientCredentials(t *testing.T) {
	t.Parallel()
	op := startOP(t)
	tokenURL, userinfoURL := opEndpoints(t, op)
	var userinfo atomic.Value
	userinfo.Store(userinfoURL)
	// elsewhere is another origin, where the agent's card puts its interface in the second agent below.
	elsewhere := testagent.Start(t, testagent.Options{Behavior: testagent.Echo})
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, Authorize: userinfoCheck(&userinfo), EditCard: func(c *a2a.AgentCard) {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oauth": a2a.OAuth2SecurityScheme{
			Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: tokenURL, Scopes: map[string]string{"openid": "who you are"}}}}
		c.SecurityRequirements = a2a.SecurityRequirementsOptions{{"oauth": {"openid"}}}
	}})
	home := t.TempDir()
	env := authEnv(home)
	secret := filepath.Join(home, "secret")
	os.WriteFile(secret, []byte("verysecret\n"), 0o600)

	r := runEnv(t, "", env, "", "send", agent.URL, "before login")
	wantCode(t, r, 4)
	wantContains(t, "send before login", r.stderr, "hint: ", "a2a auth login "+agent.URL)

	// The client id comes from stdin (-) and the secret from a file (@FILE): neither is on the command line.
	r = runEnv(t, "", env, "sid1\n", "auth", "login", agent.URL, "--client-id", "-", "--client-secret", "@"+secret)
	wantCode(t, r, 0)
	wantContains(t, "auth login", r.stderr, "Logged in to "+agent.URL+" (scheme oauth, client-credentials); the token expires in ")
	store := filepath.Join(home, "a2a", "tokens.json")
	if st, err := os.Stat(store); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, mode %v, want 0600", store, err, st.Mode())
	}

	tok := runEnv(t, "", env, "", "auth", "token", agent.URL)
	wantCode(t, tok, 0)
	token := strings.TrimSpace(tok.stdout)
	r = runEnv(t, "", env, "", "auth", "status")
	wantCode(t, r, 0)
	wantContains(t, "auth status", r.stdout, agent.URL, "Flow: client-credentials", "Client: sid1", "Scopes: openid", "Token: valid")
	if strings.Contains(r.stdout+r.stderr, token) || strings.Contains(r.stdout, "verysecret") {
		t.Fatalf("auth status printed the token or the secret:\n%s", r)
	}
	// status URL: that agent's entry alone; an agent without one is "not logged in" (exit 4).
	r = runEnv(t, "", env, "", "auth", "status", agent.URL+"/some/path")
	wantCode(t, r, 0)
	wantContains(t, "auth status URL", r.stdout, agent.URL+"\n", "Client: sid1", "Token: valid")
	r = runEnv(t, "", env, "", "auth", "status", elsewhere.URL)
	wantCode(t, r, 4)
	wantContains(t, "auth status of another agent", r.stderr, "not logged in to "+elsewhere.URL)

	r = runEnv(t, "", env, "", "send", agent.URL, "-o", "raw", "with a token")
	wantCode(t, r, 0)
	wantContains(t, "send after login", r.stdout, "with a token")
	if got := lastAuth(agent); got != "Bearer "+token {
		t.Fatalf("the agent got Authorization %q, want the stored token", got)
	}

	// a2a conformance sends the stored token as every other verb does (the client's credentials and origin rule).
	before := len(agent.Requests())
	r = runEnv(t, "", env, "", "conformance", agent.URL, "--only", "CORE-SEND-001,CORE-GET-001")
	wantCode(t, r, 0)
	wantContains(t, "conformance after login", r.stdout, "PASS MUST   CORE-SEND-001", "PASS MUST   CORE-GET-001")
	calls := agent.Requests()[before:]
	if len(calls) == 0 {
		t.Fatal("conformance made no A2A call")
	}
	for _, h := range calls {
		if got := h.Get("Authorization"); got != "Bearer "+token {
			t.Fatalf("conformance sent Authorization %q, want the stored token", got)
		}
	}

	// A card whose interface is on another origin: the token stays home.
	moved := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, EditCard: func(c *a2a.AgentCard) {
		c.SupportedInterfaces[0].URL = elsewhere.Endpoint
	}})
	copyEntry(t, store, agent.URL, moved.URL)
	r = runEnv(t, "", env, "", "send", moved.URL, "-o", "raw", "to another origin")
	wantCode(t, r, 0)
	if len(elsewhere.Requests()) == 0 {
		t.Fatal("the call did not reach the interface on the other origin")
	}
	for _, h := range elsewhere.Requests() {
		if h.Get("Authorization") != "" {
			t.Fatalf("the token went to another origin: %q", h.Get("Authorization"))
		}
	}

	// Expiry: the stored token is renewed (asked again with the client's credentials) before the call.
	expire(t, store, agent.URL)
	r = runEnv(t, "", env, "", "send", agent.URL, "-o", "raw", "after expiry")
	wantCode(t, r, 0)
	renewed := strings.TrimPrefix(lastAuth(agent), "Bearer ")
	if renewed == token || renewed == "" {
		t.Fatalf("after expiry the agent got %q, want a new token", renewed)
	}

	// Before expiry: a token that expires within 30 seconds is renewed too, and auth token prints the fresh one.
	expireIn(t, store, agent.URL, 10*time.Second)
	tok = runEnv(t, "", env, "", "auth", "token", agent.URL)
	wantCode(t, tok, 0)
	if fresh := strings.TrimSpace(tok.stdout); fresh == renewed || fresh == "" {
		t.Fatalf("auth token 10 s before expiry printed the same token again (or none), want a renewed one")
	}
	r = runEnv(t, "", env, "", "auth", "status", agent.URL)
	wantCode(t, r, 0)
	m := regexp.MustCompile(`Token: valid; the token expires in (\S+)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("auth status after renewal:\n%s", r.stdout)
	}
	if left, err := time.ParseDuration(m[1]); err != nil || left <= 30*time.Second {
		t.Fatalf("the renewed token was not stored (expires in %s):\n%s", m[1], r.stdout)
	}

	// Revoked: the OP restarts and forgets every token it issued; the agent refuses it, the hint says log in again.
	userinfo.Store(strings.Replace(userinfoURL, op, startOP(t), 1))
	r = runEnv(t, "", env, "", "send", agent.URL, "revoked")
	wantCode(t, r, 4)
	wantContains(t, "send with a revoked token", r.stderr, "hint: the agent refused the token of `a2a auth login`: log in again with: a2a auth login "+agent.URL)

	// Scopes: the login above asked for the card's requirement (openid), so the OP's userinfo names no user; --scope
	// replaces it, and the OP grants what it asked for (profile: the user's name).
	if claims := userinfoClaims(t, userinfoURL, token); claims["preferred_username"] != nil {
		t.Fatalf("a token asked for openid alone has profile claims: %v", claims)
	}
	r = runEnv(t, "", env, "", "auth", "login", agent.URL, "--client-id", "sid1", "--client-secret", "@"+secret, "--scope", "openid,profile")
	wantCode(t, r, 0)
	r = runEnv(t, "", env, "", "auth", "status", agent.URL)
	wantContains(t, "auth status after --scope", r.stdout, "Scopes: openid profile")
	tok = runEnv(t, "", env, "", "auth", "token", agent.URL)
	wantCode(t, tok, 0)
	if claims := userinfoClaims(t, userinfoURL, strings.TrimSpace(tok.stdout)); claims["preferred_username"] != "sid1" {
		t.Fatalf("--scope openid,profile: the OP's userinfo answers %v, want the profile of sid1", claims)
	}

	r = runEnv(t, "", env, "", "auth", "logout", agent.URL)
	wantCode(t, r, 0)
	r = runEnv(t, "", env, "", "auth", "token", agent.URL)
	wantCode(t, r, 4)
	wantContains(t, "auth token after logout", r.stderr, "not logged in to "+agent.URL)
}

// userinfoClaims asks the OP's userinfo endpoint what a token says about its user.
func userinfoClaims(t *testing.T, userinfo, token string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, userinfo, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	claims := map[string]any{}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("userinfo: HTTP %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

func lastAuth(a *testagent.Agent) string {
	reqs := a.Requests()
	if len(reqs) == 0 {
		return ""
	}
	return reqs[len(reqs)-1].Get("Authorization")
}

// editStore changes the token file as fn says.
func editStore(t *testing.T, store string, fn func(m map[string]map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(store, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// copyEntry stores the token of origin from under origin to as well, as if the user had logged in there too.
func copyEntry(t *testing.T, store, from, to string) {
	editStore(t, store, func(m map[string]map[string]any) {
		for _, e := range m {
			if e["origin"] == from {
				c := map[string]any{}
				for k, v := range e {
					c[k] = v
				}
				c["origin"] = to
				m[to+" copy"] = c
				return
			}
		}
	})
}

// expire moves the expiry of origin's token into the past.
func expire(t *testing.T, store, origin string) { expireIn(t, store, origin, -time.Minute) }

// expireIn sets the expiry of origin's token to d from now.
func expireIn(t *testing.T, store, origin string, d time.Duration) {
	editStore(t, store, func(m map[string]map[string]any) {
		for _, e := range m {
			if e["origin"] == origin {
				e["expiry"] = time.Now().Add(d).Format(time.RFC3339)
			}
		}
	})
}

// The device-code flow (RFC 8628) through OpenID Connect discovery: auth login prints the verification URL and
// the user code; the test approves the device on the OP's own pages (log in, allow), and login completes.
func TestAuthDeviceCode(t *testing.T) {
	t.Parallel()
	op := startOP(t)
	_, userinfoURL := opEndpoints(t, op)
	var userinfo atomic.Value
	userinfo.Store(userinfoURL)
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, Authorize: userinfoCheck(&userinfo), EditCard: func(c *a2a.AgentCard) {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oidc": a2a.OpenIDConnectSecurityScheme{OpenIDConnectURL: op + "/.well-known/openid-configuration"}}
	}})
	home := t.TempDir()
	env := authEnv(home)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, stderr := startLogin(t, ctx, env, agent.URL, "--flow", "device-code", "--client-id", "device", "--client-secret", "devsecret")
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	var verify, code string
	re := regexp.MustCompile(`^To log in, open (\S+) and enter the code (\S+)$`)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			verify, code = m[1], m[2]
			break
		}
	}
	if code == "" {
		cmd.Wait()
		t.Fatalf("auth login printed no verification URL and code:\n%s", log.String())
	}
	approveDevice(t, verify, code)
	rest, _ := io.ReadAll(stderr)
	log.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("auth login: %v\n%s", err, log.String())
	}
	wantContains(t, "device login", log.String(), "Logged in to "+agent.URL+" (scheme oidc, device-code)")

	r := runEnv(t, "", env, "", "send", agent.URL, "-o", "raw", "approved device")
	wantCode(t, r, 0)
	wantContains(t, "send after device login", r.stdout, "approved device")
}

// approveDevice does what a person does on the OP's device pages: enter the code, log in, allow.
func approveDevice(t *testing.T, verify, code string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	base, err := url.Parse(verify)
	if err != nil {
		t.Fatal(err)
	}
	login := base.ResolveReference(&url.URL{Path: "/device/login"})
	resp, err := hc.PostForm(login.String(), url.Values{"user_code": {code}, "username": {"test-user@127.0.0.1"}, "password": {"verysecure"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "allowed") {
		t.Fatalf("device login page: HTTP %d\n%s", resp.StatusCode, body)
	}
	confirm := base.ResolveReference(&url.URL{Path: "/device/confirm"})
	resp, err = hc.PostForm(confirm.String(), url.Values{"action": {"allowed"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("device confirm page: HTTP %d\n%s", resp.StatusCode, body)
	}
}

// The authorization-code flow with PKCE through OpenID Connect discovery: auth login prints the authorization URL
// and waits on a loopback redirect; headless Chromium logs in on the OP's own page; the code comes back to
// 127.0.0.1. The refresh token it brings renews the access token at expiry.
func TestAuthAuthorizationCodePKCE(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel()
	chromium := browserPath(t)
	op := startOP(t)
	_, userinfoURL := opEndpoints(t, op)
	var userinfo atomic.Value
	userinfo.Store(userinfoURL)
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, Authorize: userinfoCheck(&userinfo), EditCard: func(c *a2a.AgentCard) {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oidc": a2a.OpenIDConnectSecurityScheme{OpenIDConnectURL: op + "/.well-known/openid-configuration"}}
	}})
	home := t.TempDir()
	env := authEnv(home)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, stderr := startLogin(t, ctx, env, agent.URL, "--client-id", "native")
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	authURL := ""
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if u, ok := strings.CutPrefix(sc.Text(), "To log in, open "); ok {
			authURL = u
			break
		}
	}
	if authURL == "" {
		cmd.Wait()
		t.Fatalf("auth login printed no authorization URL:\n%s", log.String())
	}
	if !strings.Contains(authURL, "code_challenge_method=S256") || !strings.Contains(authURL, "redirect_uri=http%3A%2F%2F127.0.0.1%3A") {
		t.Errorf("authorization URL without PKCE or a loopback redirect: %s", authURL)
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.NoFirstRun,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(profileDir(t)), chromedpGroup(t),
		chromedp.WSURLReadTimeout(90 * time.Second), // a loaded machine starts Chromium slowly
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	var page string
	if err := chromedp.Run(bctx,
		chromedp.Navigate(authURL),
		chromedp.WaitVisible("#username", chromedp.ByID),
		chromedp.SendKeys("#username", "test-user@127.0.0.1", chromedp.ByID),
		chromedp.SendKeys("#password", "verysecure", chromedp.ByID),
		chromedp.Submit("#password", chromedp.ByID),
	); err != nil {
		t.Fatalf("browser login: %v\n%s", err, log.String())
	}
	// The login ends when the redirect reached a2a and it exchanged the code: wait for the command, then read the
	// page the redirect showed (the navigations are over by then).
	rest, _ := io.ReadAll(stderr)
	log.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("auth login: %v\n%s", err, log.String())
	}
	// A navigation still settling destroys the page's execution context under a running script ("Cannot find
	// context with specified id"): each read is its own short script, and a failed one is read again.
	eventually(t, 30*time.Second, "the redirect's page", func() bool {
		rctx, cancel := context.WithTimeout(bctx, 5*time.Second)
		defer cancel()
		var text string
		err := chromedp.Run(rctx, chromedp.Evaluate(`document.readyState === "complete" ? document.body.innerText : ""`, &text))
		if err == nil && strings.Contains(text, "logged in") {
			page = text
			return true
		}
		return false
	})
	wantContains(t, "browser page", page, "a2a: logged in.")
	wantContains(t, "code login", log.String(), "Logged in to "+agent.URL+" (scheme oidc, authorization-code)")

	r := runEnv(t, "", env, "", "send", agent.URL, "-o", "raw", "browser login")
	wantCode(t, r, 0)
	first := lastAuth(agent)

	// Refresh at expiry: the refresh token the server issued (offline_access) renews the access token.
	store := filepath.Join(home, "a2a", "tokens.json")
	expire(t, store, agent.URL)
	r = runEnv(t, "", env, "", "send", agent.URL, "-o", "raw", "after refresh")
	wantCode(t, r, 0)
	if got := lastAuth(agent); got == first || got == "" {
		t.Fatalf("after expiry the agent got %q again, want a refreshed token", got)
	}

	// Revoked (RFC 7009, at the OP's revocation endpoint): the refresh token and its access token are gone; the
	// agent refuses the stored token and the hint says to log in again; a renewal fails the same way.
	var refresh string
	editStore(t, store, func(m map[string]map[string]any) {
		for _, e := range m {
			refresh, _ = e["refreshToken"].(string)
		}
	})
	resp, err := http.PostForm(op+"/revoke", url.Values{"token": {refresh}, "token_type_hint": {"refresh_token"}, "client_id": {"native"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revocation: HTTP %d", resp.StatusCode)
	}
	r = runEnv(t, "", env, "", "send", agent.URL, "revoked")
	wantCode(t, r, 4)
	wantContains(t, "send with a revoked token", r.stderr, "log in again with: a2a auth login "+agent.URL)
	expire(t, store, agent.URL)
	r = runEnv(t, "", env, "", "auth", "token", agent.URL)
	wantCode(t, r, 4)
	wantContains(t, "renewal with a revoked refresh token", r.stderr, "its renewal failed", "hint: log in with: a2a auth login "+agent.URL)
}

// A task that stops at auth-required names `a2a auth login` as well as the command that continues it.
func TestAuthRequiredHint(t *testing.T) {
	t.Parallel()
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired})
	r := runEnv(t, "", authEnv(t.TempDir()), "", "send", agent.URL, "-o", "json", "start")
	wantCode(t, r, 0)
	wantContains(t, "auth-required", r.stderr, "log in with:\n  a2a auth login "+agent.URL, "--task ")
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateAuthRequired {
		t.Fatalf("task state %s, want auth-required", task.Status.State)
	}
}

// In-task authorization (A2A §7.6) end to end: a task stops at auth-required, the user logs in with `a2a auth login`
// against a real authorization server, and `a2a send --task` continues the task to its end with the stored token.
// Against the a2a-go SDK's handler (whose execution waits at auth-required and refuses messages meanwhile: the agent
// goes on once the credential reaches it, and the CLI follows the task) over JSON-RPC and HTTP+JSON, and against a
// hand-written agent that takes the follow-up message at auth-required, streaming or not.
func TestAuthRequiredContinuesAfterLogin(t *testing.T) {
	t.Parallel()
	op := startOP(t)
	tokenURL, userinfoURL := opEndpoints(t, op)
	var userinfo atomic.Value
	userinfo.Store(userinfoURL)
	check := userinfoCheck(&userinfo)
	oauth := func(c *a2a.AgentCard) {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oauth": a2a.OAuth2SecurityScheme{
			Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: tokenURL, Scopes: map[string]string{"openid": "who you are"}}}}
	}
	schemes := `{"oauth":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"` + tokenURL + `","scopes":{"openid":"who you are"}}}}}}`
	agents := []struct {
		name, url, answer string
	}{
		{"a2a-go JSON-RPC", testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired, TaskAuth: check, EditCard: oauth}).URL, "authorized: start"},
		{"a2a-go HTTP+JSON", testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired, Transport: a2a.TransportProtocolHTTPJSON, TaskAuth: check, EditCard: oauth}).URL, "authorized: start"},
		{"wire streaming", wire.StartInTaskAuth(t, wire.InTaskAuthOptions{Stream: true, Schemes: schemes, Check: check}).URL, "authorized: start, go on"},
		{"wire", wire.StartInTaskAuth(t, wire.InTaskAuthOptions{Schemes: schemes, Check: check}).URL, "authorized: start, go on"},
	}
	for _, ag := range agents {
		t.Run(strings.ReplaceAll(ag.name, " ", "_"), func(t *testing.T) {
			home := t.TempDir()
			env := authEnv(home)
			secret := filepath.Join(home, "secret")
			os.WriteFile(secret, []byte("verysecret\n"), 0o600)

			r := runEnv(t, "", env, "", "send", ag.url, "-o", "json", "start")
			wantCode(t, r, 0)
			task := sendTask(t, r)
			if task.Status.State != a2a.TaskStateAuthRequired {
				t.Fatalf("task state %s, want auth-required", task.Status.State)
			}
			wantContains(t, "auth-required hints", r.stderr, "a2a auth login "+ag.url, "--task "+string(task.ID))

			// Before a login the follow-up carries nothing new: the task still waits.
			r = runEnv(t, "", env, "", "get", "task", ag.url, string(task.ID))
			wantCode(t, r, 0)
			wantContains(t, "still waiting", r.stdout, "State: auth-required")

			r = runEnv(t, "", env, "", "auth", "login", ag.url, "--client-id", "sid1", "--client-secret", "@"+secret)
			wantCode(t, r, 0)

			r = runEnv(t, "", env, "", "send", ag.url, "--task", string(task.ID), "go on")
			wantCode(t, r, 0)
			wantContains(t, "continued after login", r.stdout, "Task ID: "+string(task.ID), "State: completed", ag.answer)
			if strings.Contains(r.stderr, "hint:") {
				t.Errorf("a completed task gets no hint:\n%s", r.stderr)
			}
		})
	}
}

// startLogin starts `a2a auth login ARGS` with env, for a test to read its stderr (the URL and code to open) while
// it waits.
func startLogin(t *testing.T, ctx context.Context, env []string, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, append([]string{"auth", "login"}, args...)...)
	return cmd, startWithStderr(t, cmd, env...)
}
