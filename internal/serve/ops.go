package serve

import (
	"net/http"

	"github.com/a2acli/a2a/internal/serve/traffic"
)

// Endpoints for whoever runs serve, on the same port as the agent, in front of every backend (a proxy forwards
// everything else upstream):
//   - GET /healthz answers 200 {"status":"ok"} while the server takes calls. It needs no token (a liveness
//     probe has none), but the Host and Origin checks stay: a probe sends no Origin, and on a loopback
//     listener it comes from this machine or names a host given with --allow-host or --public-url.
//   - GET /favicon.ico, which a browser asks for beside every page (the inspector's, a card opened in a tab), answers
//     204 No Content, cacheable for a day, without the token and without a log line: it is no call of the agent's,
//     and a proxy would otherwise forward it upstream and show a failed call.
//   - GET /metrics is the Prometheus text format (package traffic), behind the token when serve has one;
//     Config.NoMetrics turns it off (404 like any unknown path).

const (
	healthzPath = "/healthz"
	metricsPath = "/metrics"
	faviconPath = "/favicon.ico"
)

// favicon reports a browser's request for /favicon.ico.
func favicon(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == faviconPath
}

// healthPath reports a request for /healthz, which the token does not guard.
func healthPath(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == healthzPath
}

// opsHandler serves /healthz and /metrics, and passes the rest to next.
func opsHandler(next http.Handler, tl *traffic.Log) http.Handler {
	prom := tl.Metrics()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case healthPath(r):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write([]byte(`{"status":"ok"}` + "\n")) // a prober gone away is no matter
			}
		case favicon(r):
			w.Header().Set("Cache-Control", "public, max-age=86400")
			w.WriteHeader(http.StatusNoContent)
		case prom != nil && r.URL.Path == metricsPath && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			prom.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}
