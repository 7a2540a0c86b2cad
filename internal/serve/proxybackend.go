package serve

import (
	"net/http"

	"github.com/a2acli/a2a/internal/serve/proxy"
	"github.com/a2acli/a2a/internal/serve/traffic"
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
		Log: proxyLog{e.Log}, Routes: proxyRoutes{e.Routes}, Fallback: fallback, Bytes: !e.Recording,
	})
	if err != nil {
		return nil, err
	}
	return &Parts{Handler: p.Handler(), Shutdown: p.Shutdown, Card: p.Card, Front: p.Front, Push: PushUpstream}, nil
}

// proxyLog is the traffic log as package proxy writes to it.
type proxyLog struct{ l *traffic.Log }

func (p proxyLog) Records() bool                     { return p.l.Records() }
func (p proxyLog) Verbose() bool                     { return p.l.Verbose() }
func (p proxyLog) Printf(format string, args ...any) { p.l.Printf(format, args...) }

func (p proxyLog) Begin(in *http.Request, route proxy.Route, method, taskID string, body []byte) *proxy.Call {
	rec := p.l.Record(in.Context(), method, taskID)
	watched := false
	if route.Kind != proxy.Other {
		// The inspector lists A2A calls: a path none of our bindings owns (a browser's /robots.txt, a coding
		// agent's GET /listCommands) is forwarded and logged, but is no call of the protocol.
		watched = rec.Watch(CallStart{
			Time: rec.Start(), Method: method, Binding: route.Binding.Protocol, Version: route.Binding.Version,
			TaskID: taskID, HTTPMethod: in.Method, Path: in.URL.RequestURI(), Header: in.Header, Body: body,
		})
	}
	return &proxy.Call{Method: method, Start: rec.Start(), ID: taskID, State: "-", Watched: watched, Rec: rec}
}

func (p proxyLog) Event(c *proxy.Call, data []byte) { c.Rec.(*traffic.Call).Event(data) }

// HandOff: the A2A handler's own record counts the call and reports it to the observer.
func (p proxyLog) HandOff(c *proxy.Call) { c.Rec.(*traffic.Call).HandOff() }

func (p proxyLog) End(c *proxy.Call, err error) {
	c.Rec.(*traffic.Call).Finish(c.ID, c.State, c.Bytes, c.Events, err)
}

// proxyRoutes is the route table as package proxy reads it.
type proxyRoutes struct{ Routes }

var proxyKinds = [...]proxy.Kind{RouteOurs: proxy.Ours, RouteA2A: proxy.A2A, RouteOther: proxy.Other}

func (r proxyRoutes) Classify(req *http.Request) proxy.Route {
	rt := r.Routes.Classify(req)
	kind := proxyKinds[rt.Kind]
	if !rt.Exact {
		kind = proxy.Unrouted
	}
	return proxy.Route{Kind: kind, Binding: proxy.Binding{Protocol: rt.Binding, Version: rt.Version}, Method: rt.Method, TaskID: rt.TaskID}
}
