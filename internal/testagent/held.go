package testagent

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
)

// Held puts a reverse proxy in front of the agent at upstream that holds every request until release is called:
// an agent that answers late (its card, its calls). release may be called more than once; the test's cleanup
// releases and closes it.
func Held(t testing.TB, upstream string) (heldURL string, release func()) {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(released) }) }
	proxy := httputil.NewSingleHostReverseProxy(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-released:
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(gate.Close)
	t.Cleanup(release) // cleanups run last first: requests are let go before the server closes
	return gate.URL, release
}
