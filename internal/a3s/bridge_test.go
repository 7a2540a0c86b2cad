package a3s

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/protobuf/proto"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
	"github.com/a2acli/a2a/internal/a3s/proto/seedpb"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/testagent/a3sagent"
)

func TestChunkDialect(t *testing.T) {
	t.Parallel()
	mustMarshal := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		raw  []byte
		want Dialect
		err  error
	}{
		{"seed content", mustMarshal(&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_CONTENT, Content: "hi"}), Seed, nil},
		{"seed done, type after other fields", append(mustMarshal(&seedpb.GenerateChunk{SessionId: "s"}), mustMarshal(&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_DONE})...), Seed, nil},
		{"a3s content", mustMarshal(&a3spb.GenerateChunk{Type: "content", Content: "hi"}), A3S, nil},
		{"a3s done", mustMarshal(&a3spb.GenerateChunk{Type: "done", FinishReason: "stop"}), A3S, nil},
		{"no type", mustMarshal(&a3spb.GenerateChunk{SessionId: "s", Content: "x"}), Auto, errNoType},
	}
	for _, tt := range tests {
		got, err := chunkDialect(tt.raw)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("%s: chunkDialect = %v, %v; want %v, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
	if _, err := chunkDialect([]byte{0x0d, 1, 2, 3, 4}); err == nil || !strings.Contains(err.Error(), "wire type 5") {
		t.Errorf("chunkDialect(fixed32 type) = %v, want a wire type error", err)
	}
	if _, err := chunkDialect([]byte{0x12, 0x10, 'x'}); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("chunkDialect(truncated) = %v, want malformed", err)
	}
}

// A seed chunk read as A3S Code's would be garbage (and the other way round): the bridge never
// does, because the wire type decides, and a forced dialect refuses the other shape.
func TestForcedDialectRefusesOtherShape(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ forced, seen Dialect }{{Seed, A3S}, {A3S, Seed}} {
		c := &client{forced: tt.forced, dialect: tt.forced}
		err := c.learn(tt.seen)
		if err == nil || !strings.Contains(err.Error(), "--a3s-dialect is "+tt.forced.String()) {
			t.Errorf("forced %v, chunk %v: learn = %v, want a refusal naming the flag", tt.forced, tt.seen, err)
		}
		if c.known() != tt.forced {
			t.Errorf("forced %v: dialect became %v", tt.forced, c.known())
		}
	}
	c := &client{}
	if err := c.learn(Seed); err != nil || c.known() != Seed {
		t.Errorf("auto: learn(seed) = %v, dialect %v", err, c.known())
	}
}

func TestParseAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, target string
		secure     bool
		bad        bool
	}{
		{"127.0.0.1:4088", "127.0.0.1:4088", false, false},
		{"http://localhost:4088", "localhost:4088", false, false},
		{"https://agent.example", "agent.example:443", true, false},
		{"https://agent.example:8443", "agent.example:8443", true, false},
		{"localhost", "", false, true},
		{"ftp://x:1", "", false, true},
		{"http://x:1/path", "", false, true},
	}
	for _, tt := range tests {
		target, secure, err := parseAddr(tt.in)
		if (err != nil) != tt.bad || target != tt.target || secure != tt.secure {
			t.Errorf("parseAddr(%q) = %q, %t, %v", tt.in, target, secure, err)
		}
	}
}

// recorder collects a turn's events.
type recorder struct {
	mu  sync.Mutex
	evs []a2a.Event
}

func (r *recorder) emit(ev a2a.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

// text is the artifact text streamed so far.
func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, ev := range r.evs {
		if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			for _, p := range a.Artifact.Parts {
				b.WriteString(p.Text())
			}
		}
	}
	return b.String()
}

// tools is the dev-tool view of the events: each update as "kind detail".
func (r *recorder) devtool() (*devtool.Session, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := devtool.NewSession()
	var out []string
	for _, ev := range r.evs {
		for _, u := range s.Apply(ev) {
			switch u.Kind {
			case devtool.KindTool:
				out = append(out, "tool "+u.Tool.ID+" "+u.Tool.Name+" "+string(u.Tool.Status)+" "+u.Tool.Output+u.Tool.Error)
			case devtool.KindThought:
				out = append(out, "thought "+u.Thought.Description)
			case devtool.KindLiveOutput:
				out = append(out, "live "+u.Screen)
			}
		}
	}
	return s, out
}

func newBridge(t *testing.T, addr string, d Dialect) *Bridge {
	t.Helper()
	b, err := New(Config{Addr: addr, Dialect: d, Workspace: "/work/ws"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

func turn(t *testing.T, b *Bridge, info a2a.TaskInfo, msg *a2a.Message) (*recorder, a2a.TaskState, string) {
	t.Helper()
	r := &recorder{}
	state, m := b.Run(context.Background(), info, msg, r.emit)
	text := ""
	if m != nil {
		text = m.Parts[0].Text()
	}
	return r, state, text
}

func textMsg(s string) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(s)) }

func newInfo() a2a.TaskInfo {
	return a2a.TaskInfo{TaskID: a2a.NewTaskID(), ContextID: a2a.NewContextID()}
}

func TestBridgeScripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prompt    string
		state     a2a.TaskState
		text      string
		status    string
		devtool   []string
		seedTools []string // the seed agent runs the tool without asking
	}{
		{prompt: "hello there", state: a2a.TaskStateCompleted, text: "echo: hello there"},
		{prompt: "think first", state: a2a.TaskStateCompleted, text: "Hello!", devtool: []string{"thought The user wants a greeting; keep it short."}},
		{prompt: "fail now", state: a2a.TaskStateFailed, text: "Let me try. ", status: "model error: the scripted model is overloaded"},
		{prompt: "length", state: a2a.TaskStateCompleted, text: "This answer is cut sho", status: "stopped early: the model reached its output length limit (finish_reason length)"},
		{prompt: "filter", state: a2a.TaskStateCompleted, status: "stopped early: the model's content filter ended the answer (finish_reason content_filter)"},
		{prompt: "grpcerr", state: a2a.TaskStateFailed, text: "x", status: "scripted quota exceeded (ResourceExhausted)"},
		{prompt: "nodone", state: a2a.TaskStateFailed, text: "x", status: "ended the stream without a done chunk"},
		{prompt: "write it", state: a2a.TaskStateCompleted, text: "I'll write hello.txt.\nI wrote hello.txt.", seedTools: []string{"tool call-1 bash pending ", "tool call-1 bash succeeded wrote hello.txt"}},
	}
	for _, shape := range []a3sagent.Shape{a3sagent.A3S, a3sagent.Seed} {
		agent := a3sagent.Start(t, a3sagent.Options{Shape: shape})
		b := newBridge(t, agent.Addr, Auto)
		for _, tt := range tests {
			if shape == a3sagent.A3S && tt.seedTools != nil {
				continue // TestBridgeConfirm
			}
			r, state, status := turn(t, b, newInfo(), textMsg(tt.prompt))
			if state != tt.state || !strings.Contains(status, tt.status) || (tt.status == "") != (status == "") {
				t.Errorf("%v %q: state %v, status %q; want %v, %q", shape, tt.prompt, state, status, tt.state, tt.status)
			}
			if got := r.text(); got != tt.text {
				t.Errorf("%v %q: text %q, want %q", shape, tt.prompt, got, tt.text)
			}
			want := tt.devtool
			if shape == a3sagent.Seed && tt.seedTools != nil {
				want = tt.seedTools
			}
			if _, got := r.devtool(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%v %q: dev-tool updates\n%s\nwant\n%s", shape, tt.prompt, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		if want := map[a3sagent.Shape]Dialect{a3sagent.A3S: A3S, a3sagent.Seed: Seed}[shape]; b.c.known() != want {
			t.Errorf("%v agent: detected %v (want %v)", shape, b.c.known(), want)
		}
	}
}

func TestBridgeConfirm(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		option, tool, text string
		approved           bool
	}{
		{"proceed_once", "tool call-1 bash succeeded wrote hello.txt", "I wrote hello.txt.", true},
		{"cancel", "tool call-1 bash cancelled rejected: rejected by the user (A2A option cancel)", "I did not write hello.txt.", false},
	} {
		agent := a3sagent.Start(t, a3sagent.Options{Shape: a3sagent.A3S})
		b := newBridge(t, agent.Addr, Auto)
		info := newInfo()
		r, state, _ := turn(t, b, info, textMsg("please write hello.txt"))
		if state != a2a.TaskStateInputRequired {
			t.Fatalf("%s: first turn ended %v, want input-required", tt.option, state)
		}
		sess, _ := r.devtool()
		pending := sess.Pending()
		if len(pending) != 1 || pending[0].ID != "call-1" || pending[0].Confirmation.Command != "echo hi > hello.txt" {
			t.Fatalf("%s: pending calls %+v, want call-1 running the command", tt.option, pending)
		}
		// Text instead of the answer: still waiting, saying for what.
		_, state, status := turn(t, b, info, textMsg("what?"))
		if state != a2a.TaskStateInputRequired || !strings.Contains(status, `"tool_call_id":"call-1"`) {
			t.Errorf("%s: a text message while waiting: %v %q", tt.option, state, status)
		}
		part, err := devtool.Answer(pending[0], devtool.ApproveOnce, tt.option)
		if err != nil {
			t.Fatal(err)
		}
		answer := a2a.NewMessage(a2a.MessageRoleUser, part)
		r2, state, status := turn(t, b, info, answer)
		if state != a2a.TaskStateCompleted || status != "" {
			t.Errorf("%s: answer turn ended %v %q", tt.option, state, status)
		}
		_, ups := r2.devtool()
		if ups[len(ups)-1] != tt.tool {
			t.Errorf("%s: last tool update %q, want %q (all: %q)", tt.option, ups[len(ups)-1], tt.tool, ups)
		}
		if !strings.HasSuffix(r2.text(), tt.text) {
			t.Errorf("%s: text %q, want it to end with %q", tt.option, r2.text(), tt.text)
		}
		want := "ConfirmToolExecution sess-1 call-1 " + map[bool]string{true: "true", false: "false"}[tt.approved]
		if !agent.Called(want) {
			t.Errorf("%s: agent calls %q, want %q", tt.option, agent.Calls(), want)
		}
	}
}

func TestBridgeCancelMidStream(t *testing.T) {
	t.Parallel()
	for _, shape := range []a3sagent.Shape{a3sagent.A3S, a3sagent.Seed} {
		agent := a3sagent.Start(t, a3sagent.Options{Shape: shape})
		b := newBridge(t, agent.Addr, Auto)
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		var once sync.Once
		emit := func(ev a2a.Event) {
			if _, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				once.Do(func() { close(started) })
			}
		}
		go func() {
			<-started
			cancel()
		}()
		state, _ := b.Run(ctx, newInfo(), textMsg("slow please"), emit)
		if state != a2a.TaskStateCanceled {
			t.Errorf("%v: canceled run ended %v", shape, state)
		}
		if !agent.Called("Cancel sess-1") {
			t.Errorf("%v: agent calls %q, want Cancel sess-1", shape, agent.Calls())
		}
	}
}

func TestBridgeUnreachableAndUnhealthy(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	b := newBridge(t, dead, Auto)
	err = b.Check(context.Background(), textMsg("hi"))
	if err == nil || !strings.Contains(err.Error(), "A3S agent "+dead+" unreachable: HealthCheck") {
		t.Errorf("Check against a dead agent = %v, want unreachable naming %s", err, dead)
	}
	if c := b.Card(context.Background()); !strings.Contains(c.Description, dead) {
		t.Errorf("card of a dead agent: %q, want it to name %s", c.Description, dead)
	}
	agent := a3sagent.Start(t, a3sagent.Options{Unhealthy: true})
	b = newBridge(t, agent.Addr, Auto)
	_, state, status := turn(t, b, newInfo(), textMsg("hi"))
	if state != a2a.TaskStateFailed || status != "A3S agent "+agent.Addr+" is unhealthy: model backend down" {
		t.Errorf("unhealthy agent: %v %q", state, status)
	}
}

func TestBridgeCardAndSessions(t *testing.T) {
	t.Parallel()
	agent := a3sagent.Start(t, a3sagent.Options{})
	alive := map[a2a.TaskID]bool{}
	var mu sync.Mutex
	b, err := New(Config{Addr: agent.Addr, Workspace: "/default/ws", Lookup: func(id a2a.TaskID) (a2a.TaskState, bool) {
		mu.Lock()
		defer mu.Unlock()
		return a2a.TaskStateCompleted, alive[id]
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := b.Card(context.Background())
	if c.Name != "test-a3s-agent" || c.Version != "0.9.1" || len(c.Skills) != 2 || c.Skills[0].ID != "bash" ||
		len(c.Capabilities.Extensions) != 1 || c.Capabilities.Extensions[0].URI != devtool.URI {
		t.Errorf("card = %+v", c)
	}
	first := newInfo()
	msg := textMsg("hello")
	msg.Metadata = devtool.SettingsMetadata("/from/settings", false)
	mu.Lock()
	alive[first.TaskID] = true
	mu.Unlock()
	turn(t, b, first, msg)
	second := first
	second.TaskID = a2a.NewTaskID()
	turn(t, b, second, textMsg("again")) // same context: same session
	mu.Lock()
	delete(alive, first.TaskID)
	delete(alive, second.TaskID)
	mu.Unlock()
	turn(t, b, newInfo(), textMsg("other context")) // sweeps the first context
	calls := strings.Join(agent.Calls(), "\n")
	for _, want := range []string{"Initialize /from/settings", "CreateSession sess-1 /from/settings", "StreamGenerate sess-1 again",
		"CreateSession sess-2 /default/ws", "DestroySession sess-1"} {
		if !strings.Contains(calls, want) {
			t.Errorf("calls lack %q:\n%s", want, calls)
		}
	}
	if strings.Count(calls, "Initialize") != 1 {
		t.Errorf("Initialize more than once:\n%s", calls)
	}
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !agent.Called("DestroySession sess-2") {
		t.Errorf("Close left sess-2: %q", agent.Calls())
	}
}

// A task waiting for approval holds its context's session: another task there fails saying why, until the waiting
// one ends (canceled while it waited), when the agent's generation is canceled and the context is free again.
func TestBridgeContextWaitingForApproval(t *testing.T) {
	t.Parallel()
	agent := a3sagent.Start(t, a3sagent.Options{})
	var mu sync.Mutex
	states := map[a2a.TaskID]a2a.TaskState{}
	b, err := New(Config{Addr: agent.Addr, Lookup: func(id a2a.TaskID) (a2a.TaskState, bool) {
		mu.Lock()
		defer mu.Unlock()
		st, ok := states[id]
		return st, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	first := newInfo()
	mu.Lock()
	states[first.TaskID] = a2a.TaskStateInputRequired
	mu.Unlock()
	if _, state, _ := turn(t, b, first, textMsg("write hello.txt")); state != a2a.TaskStateInputRequired {
		t.Fatalf("first task ended %v", state)
	}
	second := a2a.TaskInfo{TaskID: a2a.NewTaskID(), ContextID: first.ContextID}
	_, state, status := turn(t, b, second, textMsg("hello"))
	if state != a2a.TaskStateFailed || !strings.Contains(status, "waits for approval of tool call call-1") {
		t.Errorf("second task in the busy context: %v %q", state, status)
	}
	mu.Lock()
	states[first.TaskID] = a2a.TaskStateCanceled
	mu.Unlock()
	r, state, _ := turn(t, b, a2a.TaskInfo{TaskID: a2a.NewTaskID(), ContextID: first.ContextID}, textMsg("hello"))
	if state != a2a.TaskStateCompleted || r.text() != "echo: hello" {
		t.Errorf("after the waiting task was canceled: %v %q", state, r.text())
	}
	if !agent.Called("Cancel sess-1") {
		t.Errorf("agent calls %q, want the abandoned generation canceled", agent.Calls())
	}
}

// A client whose agent settings say auto_execute gets each confirmation announced and approved at once.
func TestBridgeAutoExecute(t *testing.T) {
	t.Parallel()
	agent := a3sagent.Start(t, a3sagent.Options{})
	b := newBridge(t, agent.Addr, Auto)
	msg := textMsg("please write hello.txt")
	msg.Metadata = devtool.SettingsMetadata("/ws", true)
	r, state, status := turn(t, b, newInfo(), msg)
	if state != a2a.TaskStateCompleted || status != "" || !strings.HasSuffix(r.text(), "I wrote hello.txt.") {
		t.Errorf("auto-execute: %v %q %q", state, status, r.text())
	}
	_, ups := r.devtool()
	if want := "tool call-1 bash succeeded wrote hello.txt"; len(ups) == 0 || ups[len(ups)-1] != want {
		t.Errorf("tool updates %q, want the last %q", ups, want)
	}
	if !agent.Called("ConfirmToolExecution sess-1 call-1 true") {
		t.Errorf("agent calls %q", agent.Calls())
	}
}
