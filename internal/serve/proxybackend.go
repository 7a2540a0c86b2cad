package serve

import (
	"net/http"

	"github.com/a2acli/a2a/internal/serve/proxy"
)

// ProxyConfig configures the Proxy backend.
type ProxyConfig = proxy.Config

// Proxy returns a backend that forwards every operation to an upstream agent (package proxy): a
// call on an HTTP front whose binding and protocol version the upstream also serves is forwarded
// byte for byte, any other call is decoded and re-sent with the upstream client; both forward the
// caller's headers by the same policy.
func Proxy(c ProxyConfig) Backend { return proxyBackend{cfg: c} }

type proxyBackend struct {
	cfg ProxyConfig
}

func (b proxyBackend) Setup(e *Env) (*Parts, error) {
	fallback := BaseCard(e.Config)
	if e.Config.Card == nil && e.Config.Name == "" && b.cfg.Upstream != "" {
		fallback.Name = "proxy for " + b.cfg.Upstream
	}
	p, err := proxy.New(b.cfg, proxy.Env{
		Log: proxyLog{e.log}, Routes: proxyRoutes{frontsOf(e.Config)}, Fallback: fallback, Bytes: !e.Recording,
	})
	if err != nil {
		return nil, err
	}
	return &Parts{Handler: p.Handler(), Shutdown: p.Shutdown, Card: p.Card, Front: p.Front, Push: PushUpstream}, nil
}

// proxyLog is the traffic log as package proxy writes to it.
type proxyLog struct{ l *trafficLog }

func (p proxyLog) Records() bool {
	l := p.l
	return !l.quiet || l.metrics != nil || l.obs != nil
}
func (p proxyLog) Verbose() bool                     { return p.l.verbose && !p.l.quiet }
func (p proxyLog) Printf(format string, args ...any) { p.l.printf(format, args...) }

func (p proxyLog) Begin(in *http.Request, route proxy.Route, method, taskID string, body []byte) *proxy.Call {
	rec := p.l.record(in.Context(), method, taskID)
	if p.l.obs != nil {
		rec.watch = p.l.obs.Begin(CallStart{
			Time: rec.start, Method: method, Binding: route.Binding.Protocol, Version: route.Binding.Version,
			TaskID: taskID, HTTPMethod: in.Method, Path: in.URL.RequestURI(), Header: in.Header, Body: body,
		})
	}
	return &proxy.Call{Method: method, Start: rec.start, ID: taskID, State: "-", Watched: rec.watch != nil, Rec: rec}
}

func (p proxyLog) Event(c *proxy.Call, data []byte) {
	if rec := c.Rec.(*callRecord); rec.watch != nil {
		rec.watch.Event(data)
	}
}

func (p proxyLog) HandOff(c *proxy.Call) {
	rec := c.Rec.(*callRecord)
	p.l.metrics.dropped(rec) // the A2A handler's own record counts the call
	rec.endWatch(nil, true)  // and reports it to the observer
}

func (p proxyLog) End(c *proxy.Call, err error) {
	rec := c.Rec.(*callRecord)
	rec.id, rec.state, rec.bytes, rec.events = c.ID, c.State, c.Bytes, c.Events
	rec.end(err)
}

// proxyRoutes is the route table as package proxy reads it.
type proxyRoutes struct{ fronts httpFronts }

var proxyKinds = [...]proxy.Kind{frontOurs: proxy.Ours, frontA2A: proxy.A2A, frontOther: proxy.Other}

func (r proxyRoutes) Classify(req *http.Request) proxy.Route {
	fr := r.fronts.classify(req)
	return proxy.Route{
		Kind:    proxyKinds[fr.kind],
		Binding: proxy.Binding{Protocol: fr.key.binding, Version: fr.key.version},
		Method:  fr.method,
		TaskID:  fr.taskID,
	}
}

func (proxyRoutes) RPCMethod(method string) string { return rpcMethodName(method) }
