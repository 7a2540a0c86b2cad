package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Renewals at the same time (`a2a mcp` connects its agents at once) go one after the other: each reads the token
// file, renews and writes it back, and two at once would lose the first one's write. The token server holds a
// renewal until a second one arrives (or a bound passes), so without the serialisation both are in flight at once
// and the store keeps only one of the two new tokens.
func TestFreshConcurrentRenewals(t *testing.T) {
	var inFlight, most, served atomic.Int32
	second := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n >= 2 {
			once.Do(func() { close(second) })
		}
		select {
		case <-second:
		case <-time.After(time.Second): // the bound of a wait for a renewal that should not come
		}
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"new-%s-%d","token_type":"Bearer","expires_in":3600}`,
			r.PostForm.Get("refresh_token"), served.Add(1))
	}))
	defer srv.Close()
	s := DefaultStore(t.TempDir())
	now := time.Now()
	origins := []string{"https://a.example", "https://b.example"}
	for _, o := range origins {
		if err := s.Put(&Entry{Origin: o, Scheme: "oauth", TokenURL: srv.URL, ClientID: "c", AccessToken: "old",
			RefreshToken: "r" + o[8:9], Expiry: now.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, o := range origins {
		wg.Go(func() {
			if _, err := Fresh(context.Background(), srv.Client(), s, o, now); err != nil {
				t.Errorf("Fresh(%s): %v", o, err)
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d renewals were in flight at once, want 1", most.Load())
	}
	for _, o := range origins {
		e, err := s.Find(o)
		if err != nil || e == nil || e.AccessToken == "old" {
			t.Errorf("%s after both renewals: %+v, %v: its renewal was lost", o, e, err)
		}
	}
}
