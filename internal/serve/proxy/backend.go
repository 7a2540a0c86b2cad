package proxy

import (
	"net/http"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/traffic"
)

// New returns the proxy backend of `a2a serve --proxy`: it forwards every operation to an upstream agent. A
// call on an HTTP front whose binding and protocol version the upstream also serves is forwarded byte for
// byte, any other call is decoded and re-sent with the upstream client; both forward the caller's headers by
// the same policy.
func New(c Config) serve.Backend { return backend{cfg: c} }

type backend struct {
	cfg Config
}

// Setup implements serve.Backend: the server's traffic log and route table are handed to the proxy as its Log
// and Routes.
func (b backend) Setup(e *serve.Env) (*serve.Parts, error) {
	fallback := serve.BaseCard(e.Config)
	if e.Config.Card == nil && e.Config.Name == "" && b.cfg.Upstream != "" {
		fallback.Name = "proxy for " + b.cfg.Upstream
	}
	p, err := newProxy(b.cfg, Env{
		Log: trafficLog{e.Log}, Routes: routeTable{e.Routes}, Fallback: fallback, Bytes: !e.Recording,
	})
	if err != nil {
		return nil, err
	}
	return &serve.Parts{Handler: p.Handler(), Shutdown: p.Shutdown, Card: p.Card, Front: p.Front, Push: serve.PushUpstream}, nil
}

// trafficLog is the server's traffic log as the byte path writes to it.
type trafficLog struct{ l *traffic.Log }

func (p trafficLog) Records() bool                     { return p.l.Records() }
func (p trafficLog) Verbose() bool                     { return p.l.Verbose() }
func (p trafficLog) Printf(format string, args ...any) { p.l.Printf(format, args...) }

func (p trafficLog) Begin(in *http.Request, route Route, method, taskID string, body []byte) *Call {
	rec := p.l.Record(in.Context(), method, taskID)
	watched := false
	if route.Kind != Other {
		// The inspector lists A2A calls: a path none of our bindings owns (a browser's /robots.txt, a coding
		// agent's GET /listCommands) is forwarded and logged, but is no call of the protocol.
		watched = rec.Watch(traffic.CallStart{
			Time: rec.Start(), Method: method, Binding: route.Binding.Protocol, Version: route.Binding.Version,
			TaskID: taskID, HTTPMethod: in.Method, Path: in.URL.RequestURI(), Header: in.Header, Body: body,
		})
	}
	return &Call{Method: method, Start: rec.Start(), ID: taskID, State: "-", Watched: watched, Rec: rec}
}

func (p trafficLog) Event(c *Call, data []byte) { c.Rec.(*traffic.Call).Event(data) }

// HandOff: the A2A handler's own record counts the call and reports it to the observer.
func (p trafficLog) HandOff(c *Call) { c.Rec.(*traffic.Call).HandOff() }

func (p trafficLog) End(c *Call, err error) {
	c.Rec.(*traffic.Call).Finish(c.ID, c.State, c.Bytes, c.Events, err)
}

// routeTable is the server's route table as the proxy reads it.
type routeTable struct{ serve.Routes }

var routeKinds = [...]Kind{serve.RouteOurs: Ours, serve.RouteA2A: A2A, serve.RouteOther: Other}

func (r routeTable) Classify(req *http.Request) Route {
	rt := r.Routes.Classify(req)
	kind := routeKinds[rt.Kind]
	if !rt.Exact {
		kind = Unrouted
	}
	return Route{Kind: kind, Binding: Binding{Protocol: rt.Binding, Version: rt.Version}, Method: rt.Method, TaskID: rt.TaskID}
}
