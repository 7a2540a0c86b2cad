package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testskip"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// secretService is a private D-Bus session bus with GNOME Keyring's Secret Service on it, its login keyring
// unlocked: a real OS keyring, started for one test.
type secretService struct {
	addr string
	conn *dbus.Conn
}

// startSecretService starts dbus-daemon and gnome-keyring-daemon (secrets component) in a temporary home, and waits
// until the Secret Service owns its bus name.
func startSecretService(t *testing.T) *secretService {
	t.Helper()
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			testskip.Missing(t, testskip.Keyring, "the keyring tests run GNOME Keyring's Secret Service: "+tool+" is missing")
		}
	}
	dir := t.TempDir()
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:path="+filepath.Join(dir, "bus"))
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Process.Kill(); bus.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	s := &secretService{addr: strings.TrimSpace(line)}

	gk := exec.Command("gnome-keyring-daemon", "--unlock", "--foreground", "--components=secrets")
	gk.Env = []string{"HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_RUNTIME_DIR=" + dir,
		"DBUS_SESSION_BUS_ADDRESS=" + s.addr, "PATH=" + os.Getenv("PATH")}
	gk.Stdin = strings.NewReader("keyring password") // --unlock reads the login keyring's password from stdin
	if err := gk.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gk.Process.Kill(); gk.Wait() })

	if s.conn, err = dbus.Connect(s.addr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.conn.Close() })
	eventually(t, 20*time.Second, "the Secret Service on the bus", func() bool {
		var owned bool
		err := s.conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&owned)
		return err == nil && owned
	})
	return s
}

// items counts the keyring's items of a2a for an agent origin and scheme.
func (s *secretService) items(t *testing.T, origin, scheme string) int {
	t.Helper()
	var unlocked, locked []dbus.ObjectPath
	err := s.conn.Object("org.freedesktop.secrets", "/org/freedesktop/secrets").
		Call("org.freedesktop.Secret.Service.SearchItems", 0, map[string]string{"service": "a2a", "username": origin + " " + scheme}).
		Store(&unlocked, &locked)
	if err != nil {
		t.Fatalf("SearchItems: %v", err)
	}
	return len(unlocked) + len(locked)
}

// Tokens in the OS keyring, a real Secret Service (GNOME Keyring over D-Bus): auth login puts the secrets there
// and only what is not secret in the file; every call reads the token from it; a renewal keeps it there; logout
// removes it. Without a reachable keyring, auto falls back to the 0600 file with a notice, and keyring refuses.
func TestAuthKeyring(t *testing.T) {
	t.Parallel()
	ss := startSecretService(t)
	op := startOP(t)
	tokenURL, userinfoURL := opEndpoints(t, op)
	var userinfo atomic.Value
	userinfo.Store(userinfoURL)
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, Authorize: userinfoCheck(&userinfo), EditCard: func(c *a2a.AgentCard) {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oauth": a2a.OAuth2SecurityScheme{
			Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: tokenURL, Scopes: map[string]string{"openid": "who you are"}}}}
	}})
	home := t.TempDir()
	env := append(authEnv(home), "DBUS_SESSION_BUS_ADDRESS="+ss.addr)
	secret := filepath.Join(home, "secret")
	os.WriteFile(secret, []byte("verysecret\n"), 0o600)
	store := filepath.Join(home, "a2a", "tokens.json")

	r := runEnv(t, "", env, "", "auth", "login", agent.URL, "--client-id", "sid1", "--client-secret", "@"+secret)
	wantCode(t, r, 0)
	if strings.Contains(r.stderr, "note:") {
		t.Errorf("a login with a keyring at hand has no notice:\n%s", r.stderr)
	}
	if n := ss.items(t, agent.URL, "oauth"); n != 1 {
		t.Fatalf("%d keyring items for the agent, want 1", n)
	}
	tok := runEnv(t, "", env, "", "auth", "token", agent.URL)
	wantCode(t, tok, 0)
	token := strings.TrimSpace(tok.stdout)
	file, _ := os.ReadFile(store)
	if token == "" || strings.Contains(string(file), token) || strings.Contains(string(file), "verysecret") || !strings.Contains(string(file), `"keyring": true`) {
		t.Fatalf("token file with the secrets in the keyring:\n%s", file)
	}
	r = runEnv(t, "", env, "", "auth", "status")
	wantCode(t, r, 0)
	wantContains(t, "auth status", r.stdout, "Token: valid", "Stored: OS keyring")

	r = runEnv(t, "", env, "", "send", agent.URL, "-o", "raw", "-v", "from the keyring")
	wantCode(t, r, 0)
	if got := lastAuth(agent); got != "Bearer "+token {
		t.Fatalf("the agent got Authorization %q, want the token from the keyring", got)
	}
	if strings.Contains(r.stdout+r.stderr, token) {
		t.Fatalf("-v showed the token:\n%s", r.stderr)
	}

	// A renewal (client credentials asked again, with the secret from the keyring) stays in the keyring.
	expire(t, store, agent.URL)
	r = runEnv(t, "", env, "", "send", agent.URL, "-o", "raw", "renewed")
	wantCode(t, r, 0)
	renewed := strings.TrimPrefix(lastAuth(agent), "Bearer ")
	file, _ = os.ReadFile(store)
	if renewed == token || renewed == "" || strings.Contains(string(file), renewed) {
		t.Fatalf("after expiry the agent got %q (before %q); file:\n%s", renewed, token, file)
	}

	// Without the D-Bus session the keyring cannot be reached: the entry there cannot be read, and says how to go on.
	r = runEnv(t, "", authEnv(home), "", "send", agent.URL, "no keyring")
	wantCode(t, r, 1)
	wantContains(t, "keyring out of reach", r.stderr, "is in the OS keyring", "--token-store file")

	r = runEnv(t, "", env, "", "auth", "logout", agent.URL)
	wantCode(t, r, 0)
	if n := ss.items(t, agent.URL, "oauth"); n != 0 {
		t.Fatalf("%d keyring items left after logout", n)
	}

	// No keyring: auto falls back to the file with a notice; keyring refuses; file says nothing.
	r = runEnv(t, "", authEnv(home), "", "auth", "login", agent.URL, "--client-id", "sid1", "--client-secret", "@"+secret, "--token-store", "keyring")
	wantCode(t, r, 1)
	wantContains(t, "--token-store keyring without one", r.stderr, "--token-store keyring: no D-Bus session bus")
	r = runEnv(t, "", authEnv(home), "", "auth", "login", agent.URL, "--client-id", "sid1", "--client-secret", "@"+secret)
	wantCode(t, r, 0)
	wantContains(t, "fallback notice", r.stderr, "note: no D-Bus session bus", "the token is stored in "+store+" (mode 0600)")
	r = runEnv(t, "", append(authEnv(home), "A2ACLI_TOKEN_STORE=file"), "", "auth", "login", agent.URL, "--client-id", "sid1", "--client-secret", "@"+secret)
	wantCode(t, r, 0)
	if strings.Contains(r.stderr, "note:") {
		t.Errorf("--token-store file (from the environment) has no notice:\n%s", r.stderr)
	}
	r = runEnv(t, "", env, "", "auth", "status")
	wantContains(t, "auth status", r.stdout, "Stored: file")
	if n := ss.items(t, agent.URL, "oauth"); n != 0 {
		t.Fatalf("a file login put %d items in the keyring", n)
	}
}

// The browser auth login opens (on a terminal, $BROWSER) outlives the login: it gets none of the credentials the
// user gave a2a through the environment.
func TestAuthBrowserGetsNoSecrets(t *testing.T) {
	t.Parallel()
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.Echo, EditCard: func(c *a2a.AgentCard) {
		c.SecuritySchemes = a2a.NamedSecuritySchemes{"oauth": a2a.OAuth2SecurityScheme{Flows: a2a.AuthorizationCodeOAuthFlow{
			AuthorizationURL: "http://127.0.0.1:1/authorize", TokenURL: "http://127.0.0.1:1/token"}}}
	}})
	dir := t.TempDir()
	browser, out := filepath.Join(dir, "browser"), filepath.Join(dir, "browser.env")
	os.WriteFile(browser, []byte("#!/bin/sh\nenv > \"$BROWSER_ENV_OUT.tmp\" && mv \"$BROWSER_ENV_OUT.tmp\" \"$BROWSER_ENV_OUT\"\n"), 0o700)
	p := startPTYWith(t, []string{"TERM=xterm", "NO_COLOR=1", "XDG_CONFIG_HOME=" + dir, "BROWSER=" + browser, "BROWSER_ENV_OUT=" + out,
		"A2ACLI_CLIENT_SECRET=browser-must-not-see-1", "A2ACLI_BEARER=browser-must-not-see-2", "A2ACLI_API_KEY=browser-must-not-see-3"},
		"auth", "login", agent.URL, "--client-id", "native", "--flow", "authorization-code")
	p.waitFor("To log in, open ")
	var env []byte
	eventually(t, 20*time.Second, "the browser started", func() bool {
		var err error
		env, err = os.ReadFile(out)
		return err == nil
	})
	if strings.Contains(string(env), "browser-must-not-see") {
		t.Fatalf("the browser's environment carries a2a's credentials:\n%s", env)
	}
	if !strings.Contains(string(env), "BROWSER_ENV_OUT=") {
		t.Fatalf("the browser lost the rest of the environment:\n%s", env)
	}
}
