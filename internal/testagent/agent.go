package testagent

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// Behavior selects what the agent's executor does with every message.
type Behavior int

const (
	// Echo completes with an artifact "echo: <request text>".
	Echo Behavior = iota
	// InputRequired asks Question (state input-required) on the first message;
	// a follow-up on the same task completes with an artifact "hello, <text>".
	InputRequired
	// Chunks streams Options.Chunks artifact chunks "chunk <i>\n" (append after
	// the first, lastChunk on the last), then completes.
	Chunks
	// Fail ends the task failed with the status message FailText.
	Fail
	// Slow waits Options.Delay before completing like Echo; CancelTask cancels it.
	Slow
	// Big completes with one Options.BigSize text artifact; streamed, it comes
	// in 8 chunks (the last one holds the remainder).
	Big
	// Escapes completes with an artifact whose text is EscapesText.
	Escapes
	// MessageOnly answers with a bare agent Message "echo: <text>" (no task).
	MessageOnly
	// DieMidStream, when streaming, sends working and two chunks (the second is
	// DieMarker), then cuts the connection abruptly; the task then completes on
	// the server. Without streaming it behaves like Echo.
	DieMidStream
	// Files completes with an artifact holding a file part (FileName,
	// FileMediaType, FileSize raw bytes) and a data part {"ok":true}.
	Files
	// UnnamedFiles completes with three artifacts whose file parts have no file name: two named
	// ChartArtifact holding PNG bytes (image/png), one without a name holding text (text/plain).
	UnnamedFiles
	// AuthRequired is in-task authorization (A2A §7.6) the a2a-go way: a message whose call carries no accepted
	// credentials (Options.TaskAuth) stops its task at auth-required, status message AuthQuestion, and the execution
	// waits there, as a2a-go's handler expects (auth-required does not end an execution). The credential reaches the
	// agent out of band: any later call about the task (a message to it, GetTask, SubscribeToTask) whose
	// Authorization TaskAuth accepts. The task then completes with an artifact "authorized: <text>". A message
	// that comes with accepted credentials completes at once.
	AuthRequired
)

var behaviorNames = []string{"echo", "input-required", "chunks", "fail", "slow", "big",
	"escapes", "message-only", "die-mid-stream", "files", "unnamed-files", "auth-required"}

// String returns the behavior's name as used in the card name.
func (b Behavior) String() string {
	if b < 0 || int(b) >= len(behaviorNames) {
		return "unknown"
	}
	return behaviorNames[b]
}

// Options configure an agent started by Start. The zero value is a v1.0
// JSON-RPC echo agent.
type Options struct {
	// Transport is the one protocol binding served (default JSON-RPC).
	Transport a2a.TransportProtocol
	// V03 serves only protocol v0.3 (a2av0 handlers, a2agrpc/v0) and a v0.3 card.
	V03 bool
	// NoPreferredTransport, with V03, leaves "preferredTransport" out of the card.
	NoPreferredTransport bool
	// Behavior is what the executor does.
	Behavior Behavior
	// RequireAuth, if set, is the exact Authorization value every A2A call
	// (not the card) must carry.
	RequireAuth string
	// Authorize, if set, decides whether an A2A call (not the card) with this Authorization value may go on (else
	// 401), e.g. by asking an authorization server's introspection endpoint.
	Authorize func(authorization string) bool
	// EditCard, if set, changes the card before it is served (security schemes, say).
	EditCard func(*a2a.AgentCard)
	// ExtendedCard is served by GetExtendedAgentCard when set (and the card
	// then declares it). Its empty fields are filled in from the public card.
	ExtendedCard *a2a.AgentCard
	// Chunks is the number of chunks of Chunks (default 100).
	Chunks int
	// Delay is how long Slow works (default 5s).
	Delay time.Duration
	// BigSize is the artifact size of Big in bytes (default BigSize, 20 MiB).
	// 20 MiB costs 10-25 s per call under -race on a small machine.
	BigSize int
	// Push turns on push notifications with a2a-go's own config store and HTTP sender (its SSRF
	// guard off, so loopback webhooks work), and the card says so.
	Push bool
	// PushLost, with Push, accepts configs but never delivers (notifications lost on the way).
	PushLost bool
	// NoStreaming makes the card say the agent does not stream (the handler still serves streams).
	NoStreaming bool
	// RequiredExtensions are extension URIs the card marks required; a2a-go's handler then refuses every call that
	// does not request them all (ExtensionSupportRequiredError), as A2A §4.6 lets an agent do.
	RequiredExtensions []string
	// TaskAuth decides whether an Authorization value is the credential an AuthRequired task waits for (default:
	// any value at all).
	TaskAuth func(authorization string) bool
}

// taskAuthorized reports whether an Authorization value is the credential of in-task authorization.
func (o Options) taskAuthorized(authz string) bool {
	if o.TaskAuth == nil {
		return authz != ""
	}
	return authz != "" && o.TaskAuth(authz)
}

// lostPush is a push.Sender whose notifications never arrive.
type lostPush struct{}

func (lostPush) SendPush(context.Context, *a2a.PushConfig, a2a.Event) error { return nil }

func (o Options) chunks() int {
	if o.Chunks <= 0 {
		return 100
	}
	return o.Chunks
}

func (o Options) bigSize() int {
	if o.BigSize <= 0 {
		return BigSize
	}
	return o.BigSize
}

func (o Options) delay() time.Duration {
	if o.Delay <= 0 {
		return 5 * time.Second
	}
	return o.Delay
}

// Call is one A2A method call as the request handler saw it.
type Call struct {
	Method string      // e.g. "SendMessage", "SendStreamingMessage", "GetTask"
	Tenant string      // tenant from the request, if any
	Params http.Header // service parameters (headers or gRPC metadata)
}

// Agent is a running reference agent.
type Agent struct {
	// URL is the HTTP base URL where the card is served, e.g. http://127.0.0.1:PORT.
	URL string
	// CardURL is URL + "/.well-known/agent-card.json".
	CardURL string
	// Endpoint is the A2A interface URL in the card: equal to URL for HTTP
	// transports, "127.0.0.1:PORT" for gRPC.
	Endpoint string
	// Card is the served card in v1 form. For V03 it lists the one interface
	// with protocolVersion "0.3.0", even when the served JSON has no
	// preferredTransport.
	Card *a2a.AgentCard

	opts     Options
	mu       sync.Mutex
	requests []http.Header
	calls    []Call
	cut      chan struct{}
	// waiting holds, per AuthRequired task at auth-required, the channel its execution waits on for a credential.
	waiting map[a2a.TaskID]chan struct{}
}

// awaitCredential registers task as waiting for in-task authorization and returns the channel closed when it comes.
func (a *Agent) awaitCredential(id a2a.TaskID) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiting == nil {
		a.waiting = map[a2a.TaskID]chan struct{}{}
	}
	ch := make(chan struct{})
	a.waiting[id] = ch
	return ch
}

// credentialFor hands the credential to the execution waiting on task id, if there is one.
func (a *Agent) credentialFor(id a2a.TaskID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.waiting[id]; ok {
		close(ch)
		delete(a.waiting, id)
	}
}

// Requests returns the headers of every A2A request received so far (not card
// fetches); for gRPC, the metadata as headers (pseudo-headers left out).
func (a *Agent) Requests() []http.Header {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]http.Header, len(a.requests))
	for i, h := range a.requests {
		out[i] = h.Clone()
	}
	return out
}

// Calls returns every A2A call that passed authentication, with its method and tenant.
func (a *Agent) Calls() []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Call, len(a.calls))
	copy(out, a.calls)
	return out
}

func (a *Agent) recordRequest(h http.Header) {
	a.mu.Lock()
	a.requests = append(a.requests, h)
	a.mu.Unlock()
}

// signalCut wakes one DieMidStream execution waiting for its connection to die.
func (a *Agent) signalCut() {
	select {
	case a.cut <- struct{}{}:
	default:
	}
}

// Start starts an agent on 127.0.0.1:0 and stops it in t.Cleanup. It is
// ready when it returns.
func Start(t testing.TB, o Options) *Agent {
	t.Helper()
	if o.Transport == "" {
		o.Transport = a2a.TransportProtocolJSONRPC
	}
	a := &Agent{opts: o, cut: make(chan struct{}, 16)}
	stop := make(chan struct{})
	handler := a.newHandler(stop)
	var err error
	switch o.Transport {
	case a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON:
		err = a.serveHTTP(t, handler)
	case a2a.TransportProtocolGRPC:
		err = a.serveGRPC(t, handler)
	default:
		err = errors.New("unknown transport " + string(o.Transport))
	}
	if err != nil {
		close(stop)
		t.Fatalf("testagent: start %s agent: %v", o.Transport, err)
	}
	// Registered after the servers' cleanups, so it runs first: executions
	// blocked in Slow or DieMidStream return before the servers close.
	t.Cleanup(func() { close(stop) })
	return a
}

// quiet discards the library's logs (e.g. writes to a cut DieMidStream stream).
var quiet = slog.New(slog.DiscardHandler)

// newHandler builds the transport-agnostic request handler.
func (a *Agent) newHandler(stop <-chan struct{}) a2asrv.RequestHandler {
	store := taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{
		Authenticator: func(context.Context) (string, error) { return "testagent", nil },
	})
	opts := []a2asrv.RequestHandlerOption{
		a2asrv.WithTaskStore(store),
		a2asrv.WithLogger(quiet),
		a2asrv.WithCallInterceptors(&recorder{agent: a}),
	}
	if a.opts.Push {
		var sender push.Sender = push.NewHTTPPushSender(&push.HTTPSenderConfig{AllowPrivateNetworks: true})
		if a.opts.PushLost {
			sender = lostPush{}
		}
		opts = append(opts, a2asrv.WithPushNotifications(push.NewInMemoryStore(), sender))
	}
	if a.opts.ExtendedCard != nil {
		opts = append(opts, a2asrv.WithExtendedAgentCardProducer(a2asrv.ExtendedAgentCardProducerFn(
			func(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
				return a.extendedCard(), nil
			})))
	}
	if len(a.opts.RequiredExtensions) > 0 {
		caps := a.buildCard("").Capabilities
		opts = append(opts, a2asrv.WithCapabilityChecks(&caps))
	}
	return a2asrv.NewHandler(&executor{opts: a.opts, stop: stop, cut: a.cut, agent: a}, opts...)
}

// extendedCard returns Options.ExtendedCard with its empty fields taken from
// the public card, so that every binding can encode it: the gRPC client
// rejects a card without name, description, version, modes or interfaces, and
// the v0.3 encoders need an interface whose protocolVersion is exactly "0.3".
func (a *Agent) extendedCard() *a2a.AgentCard {
	ext := *a.opts.ExtendedCard
	base := a.Card
	fill := func(dst *string, src string) {
		if *dst == "" {
			*dst = src
		}
	}
	fill(&ext.Name, base.Name)
	fill(&ext.Description, "Extended card of "+base.Name+".")
	fill(&ext.Version, base.Version)
	if len(ext.DefaultInputModes) == 0 {
		ext.DefaultInputModes = base.DefaultInputModes
	}
	if len(ext.DefaultOutputModes) == 0 {
		ext.DefaultOutputModes = base.DefaultOutputModes
	}
	if len(ext.Skills) == 0 {
		ext.Skills = base.Skills
	}
	if len(ext.SupportedInterfaces) == 0 {
		iface := *base.SupportedInterfaces[0]
		if a.opts.V03 {
			iface.ProtocolVersion = a2av0.Version
		}
		ext.SupportedInterfaces = []*a2a.AgentInterface{&iface}
	}
	return &ext
}

// recorder is a call interceptor that records every call's method, tenant and params.
type recorder struct {
	a2asrv.PassthroughCallInterceptor
	agent *Agent
}

// Before implements a2asrv.CallInterceptor.
func (r *recorder) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	c := Call{Method: cc.Method(), Tenant: cc.Tenant(), Params: http.Header{}}
	if sp := cc.ServiceParams(); sp != nil {
		for k, vs := range sp.List() {
			c.Params[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
	r.agent.mu.Lock()
	r.agent.calls = append(r.agent.calls, c)
	r.agent.mu.Unlock()
	if r.agent.opts.Behavior == AuthRequired && r.agent.opts.taskAuthorized(c.Params.Get("Authorization")) {
		if id := taskOf(req); id != "" {
			r.agent.credentialFor(id)
		}
	}
	return ctx, nil, nil
}

// taskOf is the task a call is about: a message's task, or the task of GetTask or SubscribeToTask.
func taskOf(req *a2asrv.Request) a2a.TaskID {
	if req == nil {
		return ""
	}
	switch p := req.Payload.(type) {
	case *a2a.SendMessageRequest:
		if p.Message != nil {
			return p.Message.TaskID
		}
	case *a2a.GetTaskRequest:
		return p.ID
	case *a2a.SubscribeToTaskRequest:
		return p.ID
	}
	return ""
}

// listen opens a listener on a random loopback port.
func listen() (net.Listener, error) {
	return net.Listen("tcp", "127.0.0.1:0")
}
