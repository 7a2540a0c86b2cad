package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cardServer serves a card with the caching headers given, counting full answers, 304s and requests that carried
// validators or credentials. auth: the card is behind a bearer token.
type cardServer struct {
	url                                    string
	mu                                     sync.Mutex
	full, notModified, conditional, authed int
}

func startCardServer(t *testing.T, cacheControl string, auth bool) *cardServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &cardServer{url: "http://" + ln.Addr().String()}
	card := fmt.Sprintf(`{"name":"cached","description":"a card with caching headers","version":"1",`+
		`"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],`+
		`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, s.url)
	const etag = `"v1"`
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/agent-card.json" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.Header.Get("Authorization") != "" {
			s.authed++
		}
		if auth && r.Header.Get("Authorization") != "Bearer sesame" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Cache-Control", cacheControl)
		w.Header().Set("ETag", etag)
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			s.conditional++
			if inm == etag {
				s.notModified++
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		s.full++
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, card)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *cardServer) counts() (full, notModified, conditional, authed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.full, s.notModified, s.conditional, s.authed
}

// TestCardCache: the card is cached per its HTTP caching headers (the a2a-cli specification §10.1): a loopback
// agent's card is revalidated (If-None-Match, 304: the file is renewed, not rewritten) instead of fetched whole,
// --no-card-cache fetches it anew, a card behind authentication or under no-store is never cached, and the cache is
// the user's alone (0700, 0600).
func TestCardCache(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	dir := filepath.Join(cache, "a2a", "cards")
	files := func() []string {
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}

	s := startCardServer(t, "public, max-age=3600", false)
	var stored []os.FileInfo
	var content []string
	for i := 0; i < 2; i++ {
		r := runEnv(t, "", env, "", "discover", s.url)
		wantCode(t, r, 0)
		wantContains(t, "discover", r.stdout, "cached")
		if len(files()) == 1 {
			name := filepath.Join(dir, files()[0])
			st, err := os.Stat(name)
			b, _ := os.ReadFile(name)
			if err == nil {
				stored, content = append(stored, st), append(content, string(b))
			}
		}
	}
	if full, nm, cond, _ := s.counts(); full != 1 || nm != 1 || cond != 1 {
		t.Fatalf("two discovers: %d full answers, %d not modified (%d conditional), want 1 and 1", full, nm, cond)
	}
	// The 304 renewed the file without rewriting it.
	if len(stored) != 2 || !os.SameFile(stored[0], stored[1]) || content[0] != content[1] {
		t.Fatalf("cache files %v: the 304 did not leave the one file as it was", files())
	}
	r := runEnv(t, "", env, "", "discover", s.url, "--no-card-cache")
	wantCode(t, r, 0)
	r = runEnv(t, "", append(env, "A2ACLI_NO_CARD_CACHE=1"), "", "discover", s.url)
	wantCode(t, r, 0)
	if full, _, cond, _ := s.counts(); full != 3 || cond != 1 {
		t.Fatalf("--no-card-cache and A2ACLI_NO_CARD_CACHE: %d full answers (%d conditional), want 3 (1)", full, cond)
	}
	if len(files()) != 1 {
		t.Fatalf("cache files %v, want one", files())
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir: %v %v, want 0700", st.Mode(), err)
	}
	st, err = os.Stat(filepath.Join(dir, files()[0]))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v %v, want 0600", st.Mode(), err)
	}

	// Behind authentication: fetched with the credentials every time, never stored.
	secret := startCardServer(t, "public, max-age=3600", true)
	for i := 0; i < 2; i++ {
		r := runEnv(t, "", env, "", "discover", secret.url, "--bearer", "sesame")
		wantCode(t, r, 0)
	}
	if full, _, cond, authed := secret.counts(); full != 2 || cond != 0 || authed != 2 {
		t.Fatalf("card behind auth: %d full answers, %d conditional, %d with credentials; want 2, 0, 2", full, cond, authed)
	}
	// no-store: never stored, never revalidated.
	nostore := startCardServer(t, "no-store", false)
	for i := 0; i < 2; i++ {
		wantCode(t, runEnv(t, "", env, "", "discover", nostore.url), 0)
	}
	if full, _, cond, _ := nostore.counts(); full != 2 || cond != 0 {
		t.Fatalf("no-store: %d full answers, %d conditional; want 2, 0", full, cond)
	}
	if len(files()) != 1 {
		t.Fatalf("cache files %v after cards behind auth and no-store, want still one", files())
	}
	// -v says where the card came from.
	r = runEnv(t, "", env, "", "discover", s.url, "-v")
	wantCode(t, r, 0)
	if !strings.Contains(r.stderr, "not modified: from the cache") {
		t.Fatalf("-v does not say the card came from the cache:\n%s", r.stderr)
	}
}
