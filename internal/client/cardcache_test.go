package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
