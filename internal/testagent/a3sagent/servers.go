package a3sagent

import (
	"context"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
	"github.com/a2acli/a2a/internal/a3s/proto/seedpb"
)

var info = &a3spb.AgentInfo{Name: "test-a3s-agent", Version: "0.9.1", Description: "A scripted A3S coding agent"}

// a3sServer speaks A3S Code's shape.
type a3sServer struct {
	a3spb.UnimplementedCodeAgentServiceServer
	a *Agent
}

func (s *a3sServer) HealthCheck(context.Context, *a3spb.HealthCheckRequest) (*a3spb.HealthCheckResponse, error) {
	s.a.log("HealthCheck")
	if s.a.opts.Unhealthy {
		return &a3spb.HealthCheckResponse{Status: a3spb.HealthCheckResponse_STATUS_UNHEALTHY, Message: "model backend down"}, nil
	}
	return &a3spb.HealthCheckResponse{Status: a3spb.HealthCheckResponse_STATUS_HEALTHY, Message: "ok"}, nil
}

func (s *a3sServer) GetCapabilities(context.Context, *a3spb.GetCapabilitiesRequest) (*a3spb.GetCapabilitiesResponse, error) {
	s.a.log("GetCapabilities")
	return &a3spb.GetCapabilitiesResponse{Info: info, Features: []string{"streaming", "tool_calling"},
		Tools: []*a3spb.ToolCapability{{Name: "bash", Description: "Execute a bash command"}, {Name: "read", Description: "Read a file"}}}, nil
}

func (s *a3sServer) Initialize(_ context.Context, r *a3spb.InitializeRequest) (*a3spb.InitializeResponse, error) {
	s.a.log("Initialize %s", r.GetWorkspace())
	return &a3spb.InitializeResponse{Success: true, Info: info}, nil
}

func (s *a3sServer) CreateSession(_ context.Context, r *a3spb.CreateSessionRequest) (*a3spb.CreateSessionResponse, error) {
	return &a3spb.CreateSessionResponse{SessionId: s.a.newSession(r.GetConfig().GetWorkspace())}, nil
}

func (s *a3sServer) DestroySession(_ context.Context, r *a3spb.DestroySessionRequest) (*a3spb.DestroySessionResponse, error) {
	return &a3spb.DestroySessionResponse{Success: s.a.destroy(r.GetSessionId())}, nil
}

func (s *a3sServer) Cancel(_ context.Context, r *a3spb.CancelRequest) (*a3spb.CancelResponse, error) {
	return &a3spb.CancelResponse{Success: s.a.cancel(r.GetSessionId())}, nil
}

func (s *a3sServer) ConfirmToolExecution(_ context.Context, r *a3spb.ConfirmToolExecutionRequest) (*a3spb.ConfirmToolExecutionResponse, error) {
	s.a.log("ConfirmToolExecution %s %s %t", r.GetSessionId(), r.GetToolId(), r.GetApproved())
	sess := s.a.session(r.GetSessionId())
	s.a.mu.Lock()
	ok := sess != nil && sess.pending != "" && sess.pending == r.GetToolId()
	if ok {
		sess.pending = ""
	}
	s.a.mu.Unlock()
	if !ok {
		return &a3spb.ConfirmToolExecutionResponse{Error: "No pending confirmation found for tool_id: " + r.GetToolId()}, nil
	}
	sess.confirm <- confirmation{approved: r.GetApproved(), reason: r.GetReason()}
	return &a3spb.ConfirmToolExecutionResponse{Success: true}, nil
}

func (s *a3sServer) SubscribeEvents(r *a3spb.SubscribeEventsRequest, stream grpc.ServerStreamingServer[a3spb.AgentEvent]) error {
	s.a.log("SubscribeEvents %s", r.GetSessionId())
	ch := make(chan *a3spb.AgentEvent, 16)
	s.a.mu.Lock()
	s.a.subs[r.GetSessionId()] = append(s.a.subs[r.GetSessionId()], ch)
	s.a.mu.Unlock()
	defer s.a.unsubscribe(r.GetSessionId(), ch)
	if err := stream.SendHeader(metadata.MD{}); err != nil { // subscribed: the client may go on
		return err
	}
	for {
		select {
		case ev := <-ch:
			if err := stream.Send(ev); err != nil {
				return err
			}
		case <-stream.Context().Done():
			return nil
		}
	}
}

func (s *a3sServer) StreamGenerate(r *a3spb.GenerateRequest, stream grpc.ServerStreamingServer[a3spb.GenerateChunk]) error {
	if err := strict(r); err != nil && !s.a.opts.Lenient {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	msgs := r.GetMessages()
	if len(msgs) == 0 || msgs[len(msgs)-1].GetRole() != "user" && !s.a.opts.Lenient {
		return status.Error(codes.InvalidArgument, "the last message must have role \"user\"")
	}
	return s.a.generate(stream.Context(), r.GetSessionId(), msgs[len(msgs)-1].GetContent(), &a3sOut{s: stream, sid: r.GetSessionId()})
}

type a3sOut struct {
	s   grpc.ServerStreamingServer[a3spb.GenerateChunk]
	sid string
}

func (o *a3sOut) send(c *a3spb.GenerateChunk) error { c.SessionId = o.sid; return o.s.Send(c) }
func (o *a3sOut) content(t string) error {
	return o.send(&a3spb.GenerateChunk{Type: "content", Content: t})
}
func (o *a3sOut) toolCall(id, name, args string) error {
	return o.send(&a3spb.GenerateChunk{Type: "tool_call", ToolCall: &a3spb.ToolCall{Id: id, Name: name, Arguments: args}})
}
func (o *a3sOut) toolResult(ok bool, output, e string) error {
	return o.send(&a3spb.GenerateChunk{Type: "tool_result", ToolResult: &a3spb.ToolResult{Success: ok, Output: output, Error: e}})
}
func (o *a3sOut) toolOutputDelta(t string) error {
	return o.send(&a3spb.GenerateChunk{Type: "tool_output_delta", Content: t})
}
func (o *a3sOut) meta(m map[string]string) error {
	return o.send(&a3spb.GenerateChunk{Type: "metadata", Metadata: m})
}
func (o *a3sOut) done(finish, content string, m map[string]string) error {
	return o.send(&a3spb.GenerateChunk{Type: "done", Content: content, FinishReason: finish, Metadata: m})
}

// seedServer speaks the seed document's shape.
type seedServer struct {
	seedpb.UnimplementedCodeAgentServiceServer
	a *Agent
}

func (s *seedServer) HealthCheck(context.Context, *seedpb.HealthCheckRequest) (*seedpb.HealthCheckResponse, error) {
	s.a.log("HealthCheck")
	if s.a.opts.Unhealthy {
		return &seedpb.HealthCheckResponse{Status: seedpb.HealthCheckResponse_UNHEALTHY, Message: "model backend down"}, nil
	}
	return &seedpb.HealthCheckResponse{Status: seedpb.HealthCheckResponse_HEALTHY, Message: "OK"}, nil
}

func (s *seedServer) GetCapabilities(context.Context, *seedpb.GetCapabilitiesRequest) (*seedpb.GetCapabilitiesResponse, error) {
	s.a.log("GetCapabilities")
	return &seedpb.GetCapabilitiesResponse{
		Info:  &seedpb.AgentInfo{Name: "my-code-agent", Version: "1.0.0", Description: "My custom coding agent"},
		Tools: []*seedpb.ToolCapability{{Name: "read_file", Description: "Read file contents", Parameters: []string{"path"}}}}, nil
}

func (s *seedServer) Initialize(_ context.Context, r *seedpb.InitializeRequest) (*seedpb.InitializeResponse, error) {
	s.a.log("Initialize %s", r.GetWorkspace())
	return &seedpb.InitializeResponse{Success: true}, nil
}

func (s *seedServer) CreateSession(_ context.Context, r *seedpb.CreateSessionRequest) (*seedpb.CreateSessionResponse, error) {
	return &seedpb.CreateSessionResponse{SessionId: s.a.newSession(r.GetConfig().GetWorkspace())}, nil
}

func (s *seedServer) DestroySession(_ context.Context, r *seedpb.DestroySessionRequest) (*seedpb.DestroySessionResponse, error) {
	return &seedpb.DestroySessionResponse{Success: s.a.destroy(r.GetSessionId())}, nil
}

func (s *seedServer) Cancel(_ context.Context, r *seedpb.CancelRequest) (*seedpb.CancelResponse, error) {
	return &seedpb.CancelResponse{Success: s.a.cancel(r.GetSessionId())}, nil
}

func (s *seedServer) StreamGenerate(r *seedpb.GenerateRequest, stream grpc.ServerStreamingServer[seedpb.GenerateChunk]) error {
	if err := strict(r); err != nil && !s.a.opts.Lenient {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	msgs := r.GetMessages()
	if len(msgs) == 0 || msgs[len(msgs)-1].GetRole() != seedpb.Message_ROLE_USER && !s.a.opts.Lenient {
		return status.Error(codes.InvalidArgument, "the last message must have role ROLE_USER")
	}
	return s.a.generate(stream.Context(), r.GetSessionId(), msgs[len(msgs)-1].GetContent(), &seedOut{s: stream, sid: r.GetSessionId()})
}

type seedOut struct {
	s   grpc.ServerStreamingServer[seedpb.GenerateChunk]
	sid string
}

func (o *seedOut) send(c *seedpb.GenerateChunk) error { c.SessionId = o.sid; return o.s.Send(c) }
func (o *seedOut) content(t string) error {
	return o.send(&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_CONTENT, Content: t})
}
func (o *seedOut) toolCall(id, name, args string) error {
	return o.send(&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_TOOL_CALL, ToolCall: &seedpb.ToolCall{Id: id, Name: name, Arguments: writeArgs}})
}
func (o *seedOut) toolResult(ok bool, output, e string) error {
	return o.send(&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_TOOL_RESULT, ToolResult: &seedpb.ToolResult{Success: ok, Output: output, Error: e}})
}
func (o *seedOut) toolOutputDelta(string) error { return nil }
func (o *seedOut) meta(m map[string]string) error {
	return o.send(&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_METADATA, Metadata: m})
}

// done: the seed's chunk has no finish_reason field; the reason travels in metadata.
func (o *seedOut) done(finish, _ string, m map[string]string) error {
	md := map[string]string{"finish_reason": finish}
	for k, v := range m {
		md[k] = v
	}
	return o.send(&seedpb.GenerateChunk{Type: seedpb.GenerateChunk_CHUNK_TYPE_DONE, Metadata: md})
}

func (a *Agent) generate(ctx context.Context, sid, prompt string, o out) error {
	a.log("StreamGenerate %s %s", sid, prompt)
	s := a.session(sid)
	if s == nil {
		return status.Error(codes.NotFound, "session not found: "+sid)
	}
	a.mu.Lock()
	s.cancel = make(chan struct{})
	a.mu.Unlock()
	return a.script(ctx, s, prompt, o)
}

func (a *Agent) destroy(sid string) bool {
	a.log("DestroySession %s", sid)
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.sessions[sid]
	delete(a.sessions, sid)
	return ok
}

func (a *Agent) cancel(sid string) bool {
	a.log("Cancel %s", sid)
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[sid]
	if s == nil || s.cancel == nil {
		return false
	}
	select {
	case <-s.cancel:
	default:
		close(s.cancel)
	}
	return true
}

// publish sends a confirmation request to the session's event subscribers, as A3S Code does.
func (a *Agent) publish(sid, toolID, name, args string) {
	ev := &a3spb.AgentEvent{Type: a3spb.AgentEvent_EVENT_TYPE_CONFIRMATION_REQUIRED, SessionId: &sid,
		Timestamp: time.Now().Unix(), Message: "Tool '" + name + "' requires confirmation",
		Data: map[string]string{"tool_id": toolID, "tool_name": name, "args": args, "timeout_ms": strconv.Itoa(30000)}}
	a.mu.Lock()
	subs := append([]chan *a3spb.AgentEvent(nil), a.subs[sid]...)
	a.mu.Unlock()
	for _, ch := range subs {
		select {
		case ch <- ev:
		default: // a subscriber that does not read loses the event, as with A3S Code's broadcast channel
		}
	}
}

func (a *Agent) unsubscribe(sid string, ch chan *a3spb.AgentEvent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.subs[sid]
	for i, c := range list {
		if c == ch {
			a.subs[sid] = append(list[:i], list[i+1:]...)
			break
		}
	}
}
