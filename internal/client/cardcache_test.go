package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const cacheTestCard = `{"name":"c","description":"d","version":"1","supportedInterfaces":[{"url":"http://127.0.0.1:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
	`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`

// TestCardCacheFreshness: a fresh card is used without a request; a stale one is revalidated with its validator
// (If-Modified-Since here), a 304 renewing it; a card under no-cache is always revalidated. The loopback rule is off
// so that the server of the test counts as a remote agent.
func TestCardCacheFreshness(t *testing.T) {
	for _, tc := range []struct {
		name, cacheControl, expires string
		requests                    int32 // for three fetches
		conditional                 int32
	}{
		{"max-age", "max-age=3600", "", 1, 0},
		{"expires", "", "+1h", 1, 0},
		{"stale", "max-age=0", "", 3, 2},
		{"no-cache", "no-cache, max-age=3600", "", 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests, conditional atomic.Int32
			lastMod := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if tc.cacheControl != "" {
					w.Header().Set("Cache-Control", tc.cacheControl)
				}
				if tc.expires != "" {
					w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
					w.Header().Set("Expires", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
				}
				w.Header().Set("Last-Modified", lastMod)
				if r.Header.Get("If-Modified-Since") == lastMod {
					conditional.Add(1)
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, cacheTestCard)
			}))
			defer srv.Close()
			cache := &cardCache{dir: t.TempDir()}
			h := http.Header{"A2a-Version": {"1.0"}}
			for i := 0; i < 3; i++ {
				card, body, err := getCard(context.Background(), srv.Client(), srv.URL, h, cache)
				if err != nil || card.Name != "c" || string(body) != cacheTestCard {
					t.Fatalf("fetch %d: %v %v %q", i, err, card, body)
				}
			}
			if requests.Load() != tc.requests || conditional.Load() != tc.conditional {
				t.Fatalf("%d requests (%d conditional), want %d (%d)", requests.Load(), conditional.Load(), tc.requests, tc.conditional)
			}
			// Credentials (any header but the version's) bypass the cache.
			_, _, err := getCard(context.Background(), srv.Client(), srv.URL, http.Header{"A2a-Version": {"1.0"}, "Authorization": {"Bearer x"}}, cache)
			if err != nil || requests.Load() != tc.requests+1 || conditional.Load() != tc.conditional {
				t.Fatalf("with credentials: %v, %d requests (%d conditional)", err, requests.Load(), conditional.Load())
			}
		})
	}
}

// cacheServer answers the card with the Cache-Control *cc holds, its ETag and a 304 to a request that names it;
// conditional counts the requests that did.
type cacheServer struct {
	*httptest.Server
	cc                    atomic.Value // string
	requests, conditional atomic.Int32
}

func startCacheServer(t *testing.T, cacheControl string) *cacheServer {
	t.Helper()
	s := &cacheServer{}
	s.cc.Store(cacheControl)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		w.Header().Set("Cache-Control", s.cc.Load().(string))
		w.Header().Set("ETag", `"v1"`)
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			s.conditional.Add(1)
			if inm == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		fmt.Fprint(w, cacheTestCard)
	}))
	t.Cleanup(s.Close)
	return s
}

func fetchCached(t *testing.T, s *cacheServer, cache *cardCache) {
	t.Helper()
	card, body, err := getCard(context.Background(), s.Client(), s.URL, http.Header{"A2a-Version": {"1.0"}}, cache)
	if err != nil || card.Name != "c" || string(body) != cacheTestCard {
		t.Fatalf("getCard: %v %v %q", err, card, body)
	}
}

// TestCardCacheRenewTouches: a 304 that changes nothing the cache keeps leaves the file as it was (same file, same
// bytes) and renews it by its time alone; a 304 that changes the lifetime rewrites it. Rewriting the whole file on
// every revalidation of a loopback card cost a write, a rename and a directory listing per call.
func TestCardCacheRenewTouches(t *testing.T) {
	t.Parallel()
	s := startCacheServer(t, "max-age=0")
	cache := &cardCache{dir: t.TempDir()}
	h := http.Header{"A2a-Version": {"1.0"}}
	name := cache.file(s.URL, h)
	fetchCached(t, s, cache)
	before, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	st0, _ := os.Stat(name)
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(name, past, past); err != nil {
		t.Fatal(err)
	}

	fetchCached(t, s, cache) // stale: revalidated, 304
	after, _ := os.ReadFile(name)
	st1, err := os.Stat(name)
	if err != nil || !os.SameFile(st0, st1) || string(after) != string(before) {
		t.Fatalf("a 304 that changes nothing rewrote the file (same file %v):\n%q\n%q", err == nil && os.SameFile(st0, st1), before, after)
	}
	if time.Since(st1.ModTime()) > time.Minute {
		t.Fatalf("a 304 left the file's time at %v: not renewed", st1.ModTime())
	}
	if s.conditional.Load() != 1 {
		t.Fatalf("%d conditional requests, want 1", s.conditional.Load())
	}

	// A 304 with a new lifetime: the file says so, and the card is fresh for it.
	s.cc.Store("max-age=3600")
	fetchCached(t, s, cache)
	e := cache.load(s.URL, h)
	if e == nil || e.Lifetime != time.Hour || e.ETag != `"v1"` || string(e.Body) != cacheTestCard {
		t.Fatalf("after a 304 with max-age=3600: %+v", e)
	}
	if _, fresh := cache.useWithoutAsking(e, s.URL); !fresh {
		t.Fatal("the renewed card is not fresh")
	}
	// And a 304 under no-store drops it.
	s.cc.Store("no-store")
	cache.renew(s.URL, h, e, http.Header{"Cache-Control": {"no-store"}})
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("a 304 under no-store kept the file: %v", err)
	}
}

// TestCardCacheTrimsOnlyNewFiles: the cache is trimmed to maxCachedCards when a card adds a file, the oldest going
// first; replacing or renewing a file (which adds none) lists no directory and removes nothing.
func TestCardCacheTrimsOnlyNewFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cache := &cardCache{dir: dir}
	s := startCacheServer(t, "max-age=0")
	fetchCached(t, s, cache) // a new file
	for i := range maxCachedCards + 5 {
		name := filepath.Join(dir, fmt.Sprintf("old-%02d.card", i))
		if err := os.WriteFile(name, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Duration(100-i) * time.Hour)
		if err := os.Chtimes(name, old, old); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	fetchCached(t, s, cache) // a 304: renewed
	s.cc.Store("max-age=1")
	fetchCached(t, s, cache) // a 304 with another lifetime: replaced
	if n := count(); n != maxCachedCards+6 {
		t.Fatalf("%d files after a renewal and a replacement, want all %d kept", n, maxCachedCards+6)
	}
	// Another agent's card is a new file: the oldest go.
	other := startCacheServer(t, "max-age=0")
	fetchCached(t, other, cache)
	if n := count(); n != maxCachedCards {
		t.Fatalf("%d files after a new one, want %d", n, maxCachedCards)
	}
	for _, u := range []string{s.URL, other.URL} {
		if cache.load(u, http.Header{"A2a-Version": {"1.0"}}) == nil {
			t.Fatalf("the card of %s was trimmed, not the oldest files", u)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "old-00.card")); !os.IsNotExist(err) {
		t.Fatalf("the oldest file was kept: %v", err)
	}
}

// TestCardCacheIgnoresOtherFiles: a file the cache cannot read as its own (the JSON files of earlier versions, which
// held the card in base64, a torn write, a body past the bound) is never used: the card is fetched whole, without
// validators, and the file replaced.
func TestCardCacheIgnoresOtherFiles(t *testing.T) {
	t.Parallel()
	h := http.Header{"A2a-Version": {"1.0"}}
	for _, tc := range []struct {
		name    string
		content func(u string) []byte
	}{
		{"earlier JSON form", func(u string) []byte {
			return fmt.Appendf(nil, `{"url":%q,"version":"1.0","stored":%q,"header":{"Cache-Control":["max-age=3600"],"Etag":["\"v1\""]},"body":"e30="}`,
				u, time.Now().Format(time.RFC3339Nano))
		}},
		{"torn", func(u string) []byte { return []byte(cacheMagic + "url " + u + "\nversion 1.0\nlifetime 3600\n") }},
		{"no body", func(u string) []byte {
			return []byte(cacheMagic + "url " + u + "\nversion 1.0\nlifetime 3600\netag \"v1\"\nlast-modified \n\n")
		}},
		{"another URL", func(u string) []byte {
			return []byte(cacheMagic + "url " + u + "/x\nversion 1.0\nlifetime 3600\netag \"v1\"\nlast-modified \n\n{}")
		}},
		{"bad lifetime", func(u string) []byte {
			return []byte(cacheMagic + "url " + u + "\nversion 1.0\nlifetime 1e9\netag \"v1\"\nlast-modified \n\n{}")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startCacheServer(t, "max-age=3600")
			cache := &cardCache{dir: t.TempDir()}
			name := cache.file(s.URL, h)
			// The earlier versions' name, and this version's: neither is read.
			for _, n := range []string{strings.TrimSuffix(name, ".card") + ".json", name} {
				if err := os.WriteFile(n, tc.content(s.URL), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			fetchCached(t, s, cache)
			if s.requests.Load() != 1 || s.conditional.Load() != 0 {
				t.Fatalf("%d requests, %d conditional: want the card fetched whole once", s.requests.Load(), s.conditional.Load())
			}
			if e := cache.load(s.URL, h); e == nil || string(e.Body) != cacheTestCard {
				t.Fatalf("the file was not replaced: %+v", e)
			}
			fetchCached(t, s, cache) // fresh now: no request
			if s.requests.Load() != 1 {
				t.Fatalf("%d requests, want the replaced file used", s.requests.Load())
			}
		})
	}
}

// TestCardCacheFutureTime: a file whose time is in the future (a clock set back) is not fresh: it is revalidated,
// and the 304 sets its time right.
func TestCardCacheFutureTime(t *testing.T) {
	t.Parallel()
	s := startCacheServer(t, "max-age=3600")
	cache := &cardCache{dir: t.TempDir()}
	fetchCached(t, s, cache)
	name := cache.file(s.URL, http.Header{"A2a-Version": {"1.0"}})
	future := time.Now().Add(24 * time.Hour)
	if err := os.Chtimes(name, future, future); err != nil {
		t.Fatal(err)
	}
	fetchCached(t, s, cache)
	if s.conditional.Load() != 1 {
		t.Fatalf("%d conditional requests, want the card revalidated", s.conditional.Load())
	}
	if st, err := os.Stat(name); err != nil || st.ModTime().After(time.Now()) {
		t.Fatalf("the file's time is still in the future: %v %v", st.ModTime(), err)
	}
}
