package client

import (
	"crypto/tls"
	"net/http"
)

// Upstream is how a server reaches the agent it fronts (serve --proxy, serve --a3s): every connection built from the
// run's client options by the same code as the client's own, so the rules cannot drift apart: the TLS roots
// (--cacert), the client certificate (--cert/--key), --insecure, and credentials only to the origin the user named
// (credGuard, loopback aliases included). The proxy's decoding path connects with Dialer.Connect, its byte path
// with Transport, the A3S bridge dials gRPC with TLS.
type Upstream struct{ d *Dialer }

// Upstream is the run's upstream connections.
func (d *Dialer) Upstream() Upstream { return Upstream{d: d} }

// TLS is the TLS configuration of a connection to the upstream: the client's (a copy).
func (u Upstream) TLS() *tls.Config { return u.d.tlsConfig() }

// Transport is an HTTP transport to the upstream: Go's transport with the client's TLS, which tune adjusts (pool
// sizes) and may wrap (the proxy's own HTTP/1.1 client), behind the client's credential rule: a request to another
// origin than the one the user named (an interface the upstream's card puts elsewhere) leaves without its
// credential headers, with the client's warning.
func (u Upstream) Transport(tune func(*http.Transport) http.RoundTripper) http.RoundTripper {
	u.d.httpClient() // the guard is the run's: the decoding path's connection names the origin
	return &guarded{base: tune(u.d.newTransport()), guard: u.d.st.guard}
}

// newTransport is the one HTTP transport every connection to an agent starts from: Go's defaults with the client's
// TLS.
func (d *Dialer) newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = d.tlsConfig()
	return t
}

// guarded applies the credential rule to every request before base sends it.
type guarded struct {
	base  http.RoundTripper
	guard *credGuard
}

func (g *guarded) RoundTrip(req *http.Request) (*http.Response, error) {
	return g.base.RoundTrip(g.guard.strip(req))
}
