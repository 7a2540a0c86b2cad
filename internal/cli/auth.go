package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/auth"
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/config"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

type authOptions struct {
	f            *factory
	url          string
	flow         string
	clientID     string
	clientSecret string
	scopes       []string
	tokenStore   string
}

func newAuthCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{Use: "auth", Short: "Log in to agents with OAuth 2 / OpenID Connect; tokens for later calls", RunE: nounArgs}
	cmd.AddCommand(newAuthLoginCmd(f), newAuthStatusCmd(f), newAuthLogoutCmd(f), newAuthTokenCmd(f))
	return cmd
}

func newAuthLoginCmd(f *factory) *cobra.Command {
	o := &authOptions{f: f}
	cmd := &cobra.Command{
		Use:   "login <url>",
		Short: "Obtain a token with the flow the agent's card declares",
		Long: `Read the agent's card and run the OAuth 2 flow its oauth2 or openIdConnect scheme declares (or --flow):
client-credentials (--client-id, --client-secret), device-code (RFC 8628: open the printed URL, enter the code) or
authorization-code with PKCE (a browser opens where it can, else open the printed URL; the redirect comes back to
127.0.0.1 on a free port).
The token is stored for the agent's origin in the OS keyring where one is reachable (the Secret Service over D-Bus,
the macOS Keychain, the Windows Credential Manager), else, with a notice, in a 0600 file under your config directory
(--token-store chooses); it is refreshed before it expires, and sent with every later call to that origin, and to
no other.`,
		Example: `  a2a auth login https://agent.example --client-id my-app --client-secret @secret.txt
  a2a auth login https://agent.example --flow device-code --client-id my-cli
  A2ACLI_CLIENT_SECRET=… a2a auth login https://agent.example --client-id my-app --scope tasks.read`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			switch o.tokenStore {
			case "auto", "keyring", "file":
			default:
				return client.Usagef("invalid --token-store %q: want auto, keyring or file", o.tokenStore)
			}
			switch auth.Flow(o.flow) {
			case "", auth.ClientCredentials, auth.DeviceCode, auth.AuthorizationCode:
			default:
				return client.Usagef("invalid --flow %q: want client-credentials, device-code or authorization-code", o.flow)
			}
			return runAuthLogin(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.flow, "flow", "", "the flow to run: client-credentials, device-code or authorization-code (default: the card's)")
	fl.StringVar(&o.clientID, "client-id", "", "the OAuth client id (@FILE, - for stdin, or $A2ACLI_CLIENT_ID)")
	fl.StringVar(&o.clientSecret, "client-secret", "", "the OAuth client secret (@FILE, - for stdin, or $A2ACLI_CLIENT_SECRET)")
	fl.StringSliceVar(&o.scopes, "scope", nil, "scopes to ask for (default: the card's requirements, else every scope of the flow)")
	fl.StringVar(&o.tokenStore, "token-store", "auto", "where the token goes: keyring, file (0600) or auto (the keyring where one is reachable)")
	_ = cmd.RegisterFlagCompletionFunc("token-store", fixedCompletion("auto", "keyring", "file")) // cannot fail: the flag exists
	return cmd
}

// origin is the agent's origin as tokens are stored under it: scheme://host[:port] of the URL the user named.
func origin(raw string) (string, error) {
	ref, err := client.ParseRef(raw)
	if err != nil {
		return "", err
	}
	if ref.Base == nil {
		return "", client.Usagef("%s is a card file: name the agent by its URL", raw)
	}
	scheme := ref.Base.Scheme
	switch scheme {
	case "grpc":
		scheme = "http"
	case "grpcs":
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(ref.Base.Host), nil
}

// tokenStore is the token file under the user's config directory ($XDG_CONFIG_HOME, else ~/.config), with the OS
// keyring where one is reachable.
func (f *factory) tokenStore() *auth.Store {
	dir := f.io.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = filepath.Join(f.io.Getenv("HOME"), ".config")
	}
	s := auth.DefaultStore(dir)
	if f.noKeyring() == "" {
		s.Vault = auth.OSKeyring()
	}
	return s
}

// noKeyring says why no OS keyring can be reached ("" when one can). On Linux and the BSDs the Secret Service is on
// the D-Bus session bus, which $DBUS_SESSION_BUS_ADDRESS names: without it a2a does not go looking (the D-Bus
// library would start dbus-launch).
func (f *factory) noKeyring() string {
	switch runtime.GOOS {
	case "darwin", "windows":
		return ""
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		if f.io.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
			return "no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is not set)"
		}
		return ""
	}
	return "no OS keyring on " + runtime.GOOS
}

// storeToken puts a new login's entry where --token-store says: the OS keyring, the 0600 file, or (auto) the
// keyring where it takes the token and the file otherwise, with a notice saying why.
func (f *factory) storeToken(o *authOptions, e *auth.Entry) error {
	s := f.tokenStore()
	if o.tokenStore == "file" {
		return s.Put(e)
	}
	why := f.noKeyring()
	if why == "" {
		e.Keyring = true
		err := s.Put(e)
		if err == nil || o.tokenStore == "keyring" {
			return err
		}
		why = err.Error()
		e.Keyring = false
	} else if o.tokenStore == "keyring" {
		return fmt.Errorf("--token-store keyring: %s", why)
	}
	fmt.Fprintf(f.io.Err, "note: %s: the token is stored in %s (mode 0600); --token-store file says so without this note\n",
		termsafe.Line(why), termsafe.Line(s.Path))
	return s.Put(e)
}

func runAuthLogin(ctx context.Context, o *authOptions) error {
	f := o.f
	org, err := origin(o.url)
	if err != nil {
		return err
	}
	r, err := f.dialer().Resolve(ctx, o.url)
	if err != nil {
		return err
	}
	if r.Card == nil {
		return client.Usagef("no agent card at %s: auth login reads the flow from the card", o.url)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hc := f.oauthClient()
	plan, err := auth.PlanFromCard(ctx, hc, r.Card, auth.Flow(o.flow), o.clientSecret != "", o.scopes)
	if err != nil {
		return fmt.Errorf("auth login: %w", err)
	}
	f.log.Printf("auth: scheme %s, flow %s, token endpoint %s", plan.Scheme, plan.Flow, plan.TokenURL)
	device := func(uri, code, complete string) {
		fmt.Fprintf(f.io.Err, "To log in, open %s and enter the code %s\n", termsafe.Line(uri), termsafe.Line(code))
		if complete != "" {
			fmt.Fprintf(f.io.Err, "(or open %s)\n", termsafe.Line(complete))
		}
		fmt.Fprintln(f.io.Err, "Waiting for the authorization…")
	}
	prompt := auth.Prompts{Device: device, Open: f.openBrowser}
	e, err := auth.Login(ctx, hc, org, plan, auth.Credentials{ClientID: o.clientID, ClientSecret: o.clientSecret}, prompt)
	if err != nil {
		return fmt.Errorf("auth login: %w", err)
	}
	if err := f.storeToken(o, e); err != nil {
		return err
	}
	fmt.Fprintf(f.io.Err, "Logged in to %s (scheme %s, %s)%s\n", org, termsafe.Line(e.Scheme), e.Flow, expiresIn(e, time.Now()))
	return nil
}

func expiresIn(e *auth.Entry, now time.Time) string {
	if e.Expiry.IsZero() {
		return ""
	}
	return fmt.Sprintf("; the token expires in %s", e.Expiry.Sub(now).Round(time.Second))
}

func newAuthStatusCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:     "status [url]",
		Short:   "List the agents you are logged in to: flow, scopes, expiry (never the token)",
		Example: "  a2a auth status\n  a2a auth status https://agent.example",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			org := ""
			if len(args) == 1 {
				var err error
				if org, err = origin(args[0]); err != nil {
					return err
				}
			}
			list, err := f.tokenStore().List(org)
			if err != nil {
				return err
			}
			if len(list) == 0 {
				if org != "" {
					return &client.LoginError{URL: args[0], Msg: fmt.Sprintf("not logged in to %s", org)}
				}
				fmt.Fprintln(f.io.Err, "not logged in to any agent")
				return nil
			}
			now := time.Now()
			for _, e := range list {
				state := "valid"
				if !e.Expiry.IsZero() && !e.Expiry.After(now) {
					state = "expired"
					if e.Renewable || e.RefreshToken != "" || e.ClientSecret != "" {
						state = "expired (renewed on next use)"
					}
				}
				where := "file"
				if e.Keyring {
					where = "OS keyring"
				}
				fmt.Fprintf(f.io.Out, "%s\n  Scheme: %s\n  Flow: %s\n  Client: %s\n  Scopes: %s\n  Token: %s%s\n  Stored: %s\n",
					e.Origin, termsafe.Line(e.Scheme), e.Flow, termsafe.Line(e.ClientID), termsafe.Line(strings.Join(e.Scopes, " ")), state, expiresIn(e, now), where)
			}
			return nil
		},
	}
}

func newAuthLogoutCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:     "logout <url>",
		Short:   "Forget the tokens of an agent",
		Example: "  a2a auth logout https://agent.example",
		Args:    exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			org, err := origin(args[0])
			if err != nil {
				return err
			}
			n, err := f.tokenStore().Delete(org)
			if err != nil {
				return err
			}
			if n == 0 {
				fmt.Fprintf(f.io.Err, "not logged in to %s\n", org)
				return nil
			}
			fmt.Fprintf(f.io.Err, "Logged out of %s\n", org)
			return nil
		},
	}
}

func newAuthTokenCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:     "token <url>",
		Short:   "Print a fresh access token for an agent (for scripts)",
		Example: `  curl -H "Authorization: Bearer $(a2a auth token https://agent.example)" …`,
		Args:    exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.freshToken(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if e == nil {
				org, _ := origin(args[0])
				return &client.LoginError{URL: args[0], Msg: fmt.Sprintf("not logged in to %s", org)}
			}
			_, err = fmt.Fprintln(f.io.Out, e.AccessToken)
			return err
		},
	}
}

// oauthClient reaches authorization servers: the run's TLS settings, but not the agent's client, whose origin rule
// would (rightly) keep the OAuth client's own credentials from the token endpoint, another origin.
func (f *factory) oauthClient() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: f.opts.TLS,
		ResponseHeaderTimeout: 30 * time.Second}}
}

// useStoredToken sends the token `auth login` stored for the agent's origin, when the user gave no credentials of
// their own. The dialer's origin rule keeps it from every other origin.
func (f *factory) useStoredToken(ctx context.Context, rawURL string) error {
	if f.opts.hasCredentials() {
		return nil
	}
	if _, err := origin(rawURL); err != nil {
		return nil //nolint:nilerr // a card file or a bad URL: no stored token; Connect reports a bad URL itself
	}
	e, err := f.freshToken(ctx, rawURL)
	if err != nil || e == nil {
		return err
	}
	f.log.Printf("auth: the stored token of %s (scheme %s)", e.Origin, e.Scheme)
	f.opts.Bearer, f.opts.BearerFrom = e.AccessToken, "the token of `a2a auth login`"
	f.storedToken = true
	return nil
}

// storedToken is the origin's stored token, renewed when it is about to expire; nil when there is none.
func (f *factory) freshToken(ctx context.Context, raw string) (*auth.Entry, error) {
	org, err := origin(raw)
	if err != nil {
		return nil, err
	}
	store := f.tokenStore()
	if store.Missing() {
		return nil, nil // nobody logged in anywhere: no timer, no OAuth client, no keyring
	}
	ctx, cancel := client.TimeoutContext(ctx, f.opts.Timeout)
	defer cancel()
	e, err := auth.Fresh(ctx, f.oauthClient(), store, org, time.Now())
	var ve *auth.VaultError
	if errors.As(err, &ve) {
		return nil, client.WithHint(err, fmt.Sprintf("reach the keyring (its D-Bus session), or log in again with: a2a auth login %s --token-store file", termsafe.ShellQuote(raw)))
	}
	var ee *auth.ExpiredError
	if errors.As(err, &ee) {
		return nil, &client.LoginError{URL: raw, Msg: ee.Error()}
	}
	return e, err
}

// openBrowser shows the authorization URL: always as a line on stderr, and in a browser when stderr is a terminal
// and one can be started ($BROWSER, else open on macOS, xdg-open under a graphical session).
func (f *factory) openBrowser(u string) {
	fmt.Fprintf(f.io.Err, "To log in, open %s\n", termsafe.Line(u))
	fmt.Fprintln(f.io.Err, "Waiting for the browser…")
	if !f.io.ErrTTY {
		return
	}
	var cmd *exec.Cmd
	switch {
	case f.io.Getenv("BROWSER") != "":
		cmd = exec.Command(f.io.Getenv("BROWSER"), u)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case f.io.Getenv("DISPLAY") != "" || f.io.Getenv("WAYLAND_DISPLAY") != "":
		cmd = exec.Command("xdg-open", u)
	default:
		return
	}
	var env []string
	if f.io.Environ != nil {
		env = f.io.Environ()
	}
	cmd.Env = config.WithoutSecrets(env) // the browser lives on: no credentials of a2a's in its environment
	if err := cmd.Start(); err != nil {
		f.log.Printf("auth: no browser: %v", err)
		return
	}
	go cmd.Wait() //nolint:errcheck // the opener exits on its own; its status says nothing about the login
}

// declaresOAuth reports whether a card names an oauth2 or openIdConnect scheme: a refusal's hint then names
// `a2a auth login`.
func declaresOAuth(card *a2a.AgentCard) bool {
	if card == nil {
		return false
	}
	for _, s := range card.SecuritySchemes {
		switch s.(type) {
		case a2a.OAuth2SecurityScheme, a2a.OpenIDConnectSecurityScheme:
			return true
		}
	}
	return false
}
