package proxy

import (
	"iter"
	"net/http"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// The one header policy of both paths: what of the caller's headers goes upstream. The byte path
// applies it to the request it forwards (bytePath.rewrite), the decoding path to the service
// parameters a2asrv read from the request (proxy.outgoing); TestHeaderPolicyBothPaths sends the
// same requests through both and compares what the upstream got.
//
//   - Never: hop-by-hop headers (RFC 9110 section 7.6.1: Connection and the headers it names,
//     Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade, Proxy-*), Host and Content-Length, and
//     the transport metadata of the gRPC binding (":authority", "grpc-*") a2asrv hands on as
//     service parameters too, and values no HTTP field can carry (a gRPC caller's binary metadata).
//   - Credentials: the caller's Authorization unless the proxy injects its own (--auth); the
//     configured headers (--svc-param, --auth) replace the caller's values of the same names,
//     except A2A-Extensions, whose values are added (on the decoding path the upstream client
//     injects them). They go only with A2A calls: the development tool's paths at the upstream's
//     origin (GET /listCommands, POST /executeCommand) get none of them, nor the caller's
//     Authorization when the proxy injects its own.
//   - Representation: Content-Type, Content-Encoding, Accept, Accept-Encoding and A2A-Version
//     describe the body and the protocol version it is written in. The byte path forwards the
//     caller's body, so it forwards the caller's; the decoding path sends a body its client
//     encodes, with the client's own.
//   - Everything else is forwarded by both.
type headerPolicy struct {
	authInjected bool
	set          http.Header // the configured headers, canonical names
}

var extensionsHeader = http.CanonicalHeaderKey(a2a.SvcParamExtensions)

func newHeaderPolicy(c Config) headerPolicy {
	h := headerPolicy{authInjected: c.AuthInjected, set: http.Header{}}
	for k, v := range c.Headers {
		k = http.CanonicalHeaderKey(k)
		h.set[k] = append(h.set[k], v...)
	}
	return h
}

// hopByHop are the headers that end at the proxy (RFC 9110 section 7.6.1; Proxy-* by prefix).
var hopByHop = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Te": true, "Trailer": true, "Transfer-Encoding": true,
	"Upgrade": true, "Proxy-Connection": true,
}

// representation are the headers that describe the forwarded body.
var representation = map[string]bool{
	"Content-Type": true, "Content-Encoding": true, "Accept": true, "Accept-Encoding": true,
	http.CanonicalHeaderKey(a2a.SvcParamVersion): true,
}

// never says whether a header (canonical name) never goes upstream; named are the names the
// caller's Connection header lists.
func (h headerPolicy) never(name string, named map[string]bool) bool {
	switch {
	case hopByHop[name], named[name], strings.HasPrefix(name, "Proxy-"),
		name == "Host", name == "Content-Length",
		strings.HasPrefix(name, ":"), strings.HasPrefix(name, "Grpc-"):
		return true
	case name == "Authorization":
		return h.authInjected
	}
	return false
}

// connectionNamed are the headers a Connection header lists (RFC 9110 section 7.6.1).
func connectionNamed(values []string) map[string]bool {
	if len(values) == 0 {
		return nil
	}
	named := map[string]bool{}
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				named[http.CanonicalHeaderKey(n)] = true
			}
		}
	}
	return named
}

// forward applies the policy to out, the byte path's outgoing request headers, which start as a
// copy of in, the caller's (net/http's ReverseProxy has already removed the hop-by-hop headers it
// knows and the Forwarded ones, which the policy forwards). a2aCall says whether the request is an
// A2A call: only those carry the configured headers.
func (h headerPolicy) forward(out, in http.Header, a2aCall bool) {
	named := connectionNamed(in["Connection"])
	for k := range out {
		if h.never(k, named) {
			delete(out, k)
		}
	}
	for _, k := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := in[k]; ok && !named[k] {
			out[k] = slices.Clone(v)
		}
	}
	if !a2aCall {
		for k := range h.set {
			delete(out, k) // the caller's value of a configured name is no more the upstream's than ours
		}
		return
	}
	for k, v := range h.set {
		if k == extensionsHeader {
			out[k] = mergeTokens(out[k], v)
			continue
		}
		out[k] = slices.Clone(v)
	}
}

// decoded applies the policy to the service parameters a2asrv read from the caller's request
// (lower-case names): what the decoding path's upstream client sends on. The configured headers
// are the client's to inject.
func (h headerPolicy) decoded(params iter.Seq2[string, []string]) a2aclient.ServiceParams {
	in := http.Header{}
	for k, v := range params {
		k = http.CanonicalHeaderKey(k)
		in[k] = append(in[k], v...)
	}
	named := connectionNamed(in["Connection"])
	out := a2aclient.ServiceParams{}
	for k, v := range in {
		if h.never(k, named) || representation[k] {
			continue
		}
		if _, ok := h.set[k]; ok && k != extensionsHeader {
			continue
		}
		for _, s := range v {
			if fieldValue(s) {
				out.Append(k, s)
			}
		}
	}
	return out
}

// fieldValue says whether s can be sent as an HTTP field value: a gRPC caller's binary metadata
// ("*-bin") cannot, and would fail the whole upstream call.
func fieldValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// mergeTokens adds the comma-separated values of add missing from have.
func mergeTokens(have, add []string) []string {
	seen := map[string]bool{}
	for _, h := range have {
		for _, t := range strings.Split(h, ",") {
			seen[strings.TrimSpace(t)] = true
		}
	}
	out := slices.Clone(have)
	for _, a := range add {
		for _, t := range strings.Split(a, ",") {
			if t = strings.TrimSpace(t); t != "" && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}
