// Package inspect owns the inspector page of `serve --ui`: a hub that keeps the recent calls serve observes
// (serve.Observer) and fans them out to browsers through bounded queues, the JSON/SSE API under /_a2a/api/, and
// the page itself (plain HTML, CSS and JS embedded in the binary). It never blocks a call: a slow browser loses
// messages (counted) instead. It must not import internal/cli; serve mounts it behind its guard.
package inspect

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"io/fs"
	"net/http"
	"sync"

	"github.com/a2acli/a2a/internal/serve"
)

//go:embed page
var page embed.FS

// Options configure an Inspector.
type Options struct {
	// Token is true when serve has a token: the page is then reached through a one-time link, which sets a
	// session cookie, and the commands it shows carry $A2A_TOKEN.
	Token bool
}

// Inspector is the page and its API; it implements serve.Inspector.
type Inspector struct {
	hub   *hub
	opts  Options
	mux   *http.ServeMux
	done  chan struct{}
	close sync.Once

	mu       sync.Mutex
	code     string            // the one-time link's code; "" once used (or without a token)
	sessions map[[32]byte]bool // hashes of the session cookies handed out
	static   http.Handler
}

var _ serve.Inspector = (*Inspector)(nil)

// New returns an Inspector.
func New(opts Options) *Inspector {
	in := &Inspector{hub: newHub(), opts: opts, done: make(chan struct{}), sessions: map[[32]byte]bool{}}
	if opts.Token {
		in.code = randomString()
	}
	sub, _ := fs.Sub(page, "page") // the directory is embedded: cannot fail
	in.static = http.StripPrefix(serve.InspectorPath, http.FileServerFS(sub))
	m := http.NewServeMux()
	m.HandleFunc("GET /_a2a/{$}", in.serveStatic)
	m.HandleFunc("GET /_a2a/app.js", in.serveStatic)
	m.HandleFunc("GET /_a2a/app.css", in.serveStatic)
	m.HandleFunc("GET /_a2a/login", in.login)
	m.HandleFunc("GET /_a2a/api/calls", in.listCalls)
	m.HandleFunc("GET /_a2a/api/calls/{id}", in.getCall)
	m.HandleFunc("GET /_a2a/api/tasks/{id}", in.getTask)
	m.HandleFunc("GET /_a2a/api/stats", in.getStats)
	m.HandleFunc("GET /_a2a/api/events", in.events)
	m.HandleFunc("GET /_a2a/api/export", in.export)
	m.HandleFunc("POST /_a2a/api/import", in.importRecording)
	m.HandleFunc("GET /_a2a", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, serve.InspectorPath, http.StatusMovedPermanently)
	})
	in.mux = m
	return in
}

// Begin implements serve.Observer.
func (in *Inspector) Begin(s serve.CallStart) serve.CallWatch { return in.hub.Begin(s) }

// ServeHTTP implements http.Handler.
func (in *Inspector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Cache-Control", "no-store")
	in.mux.ServeHTTP(w, r)
}

func (in *Inspector) serveStatic(w http.ResponseWriter, r *http.Request) { in.static.ServeHTTP(w, r) }

// Link implements serve.Inspector: with a token, the one-time link that opens the page.
func (in *Inspector) Link(base string) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.code != "" {
		return base + serve.InspectorPath + "login?code=" + in.code
	}
	return base + serve.InspectorPath
}

// Close implements serve.Inspector.
func (in *Inspector) Close() { in.close.Do(func() { close(in.done) }) }

const cookieName = "a2a_inspector"

// Authorized implements serve.Inspector: the unused one-time link, or a session cookie it handed out.
func (in *Inspector) Authorized(r *http.Request) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if r.URL.Path == serve.InspectorPath+"login" {
		return in.code != "" && subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("code")), []byte(in.code)) == 1
	}
	ck, err := r.Cookie(cookieName)
	return err == nil && in.sessions[sha256.Sum256([]byte(ck.Value))]
}

// login trades the one-time code for a session cookie the page's scripts cannot read (HttpOnly), sent only to
// the inspector's paths on this origin (Path, SameSite=Strict), and sends the browser on to the page without
// the code in its address bar.
func (in *Inspector) login(w http.ResponseWriter, r *http.Request) {
	if !in.opts.Token {
		http.Redirect(w, r, serve.InspectorPath, http.StatusSeeOther)
		return
	}
	in.mu.Lock()
	ok := in.code != "" && subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("code")), []byte(in.code)) == 1
	var sid string
	if ok {
		in.code = ""
		sid = randomString()
		in.sessions[sha256.Sum256([]byte(sid))] = true
	}
	in.mu.Unlock()
	if !ok {
		http.Error(w, "a2a serve: this inspector link was used already: restart serve for a new one", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: sid, Path: serve.InspectorPath, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, serve.InspectorPath, http.StatusSeeOther)
}

func randomString() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
