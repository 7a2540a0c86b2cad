package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// AuthorizationCode is the authorization-code flow with PKCE (RFC 7636) and a loopback redirect (RFC 8252).
const AuthorizationCode Flow = "authorization-code"

// authCode runs the flow: a one-shot HTTP server on 127.0.0.1 with a free port receives the redirect; open shows
// the user the authorization URL (a browser, or a line to copy).
func authCode(ctx context.Context, p *Plan, c Credentials, open func(string)) (*oauth2.Token, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback redirect: %w", err)
	}
	cfg := &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Scopes: p.Scopes,
		Endpoint:    oauth2.Endpoint{AuthURL: p.AuthURL, TokenURL: p.TokenURL},
		RedirectURL: fmt.Sprintf("http://%s/callback", ln.Addr())}
	state, verifier := oauth2.GenerateVerifier(), oauth2.GenerateVerifier()
	type result struct {
		code string
		err  error
	}
	done := make(chan result, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var res result
		switch {
		case q.Get("state") != state:
			http.Error(w, "unexpected state: this is not the login a2a started", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			res.err = fmt.Errorf("the authorization server refused: %.64q", q.Get("error"))
		case q.Get("code") == "":
			res.err = errors.New("the redirect carried no code")
		default:
			res.code = q.Get("code")
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if res.err != nil {
			fmt.Fprintln(w, "a2a: login failed; see the terminal.")
		} else {
			fmt.Fprintln(w, "a2a: logged in. You can close this tab.")
		}
		select {
		case done <- res:
		default:
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Close below
	defer srv.Close()
	open(cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)))
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the browser: %w", context.Cause(ctx))
	}
	if res.err != nil {
		return nil, res.err
	}
	return cfg.Exchange(ctx, res.code, oauth2.VerifierOption(verifier))
}
