package a3sagent

import (
	"context"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// out writes the chunks of one generation in the agent's shape.
type out interface {
	content(s string) error
	toolCall(id, name, args string) error
	toolResult(ok bool, output, errMsg string) error
	toolOutputDelta(s string) error // A3S Code only; the seed agent sends nothing
	meta(m map[string]string) error
	done(finish, content string, meta map[string]string) error
}

// The scripts, chosen by a word in the prompt:
//
//	write    a tool call "bash" (call-1) writing hello.txt; the A3S agent asks for confirmation
//	         (SubscribeEvents) and waits for ConfirmToolExecution, the seed agent just runs it
//	think    a metadata chunk with reasoning, then text
//	slow     "started", then nothing until Cancel (or the client goes away)
//	fail     done with finish_reason error ("model error: ...")
//	length   done with finish_reason length; filter: content_filter
//	grpcerr  a gRPC error in the middle of the stream
//	nodone   the stream ends without a done chunk
//	anything else: "echo: PROMPT" in two content chunks
func (a *Agent) script(ctx context.Context, s *session, prompt string, o out) error {
	var text strings.Builder
	say := func(t string) error {
		text.WriteString(t)
		return o.content(t)
	}
	tokens := map[string]string{"prompt_tokens": "3", "completion_tokens": "5", "total_tokens": "8"}
	switch {
	case strings.Contains(prompt, "write"):
		return a.write(ctx, s, o, say, &text)
	case strings.Contains(prompt, "think"):
		if err := o.meta(map[string]string{"reasoning": "The user wants a greeting; keep it short."}); err != nil {
			return err
		}
		if err := say("Hello!"); err != nil {
			return err
		}
	case strings.Contains(prompt, "slow"):
		if err := say("started\n"); err != nil {
			return err
		}
		select {
		case <-s.cancel:
		case <-ctx.Done():
		}
		return nil
	case strings.Contains(prompt, "fail"):
		if err := say("Let me try. "); err != nil {
			return err
		}
		return o.done("error", "", map[string]string{"error": "model error: the scripted model is overloaded"})
	case strings.Contains(prompt, "length"):
		if err := say("This answer is cut sho"); err != nil {
			return err
		}
		return o.done("length", "", tokens)
	case strings.Contains(prompt, "filter"):
		return o.done("content_filter", "", nil)
	case strings.Contains(prompt, "grpcerr"):
		if err := say("x"); err != nil {
			return err
		}
		return status.Error(codes.ResourceExhausted, "scripted quota exceeded")
	case strings.Contains(prompt, "nodone"):
		return say("x")
	default:
		if err := say("echo: "); err != nil {
			return err
		}
		if err := say(prompt); err != nil {
			return err
		}
	}
	// A3S Code repeats the whole text in done: the bridge must not print it twice.
	return o.done("stop", text.String(), tokens)
}

const writeArgs = `{"command":"echo hi > hello.txt"}`

func (a *Agent) write(ctx context.Context, s *session, o out, say func(string) error, text *strings.Builder) error {
	if err := say("I'll write hello.txt.\n"); err != nil {
		return err
	}
	if err := o.toolCall("call-1", "bash", "{}"); err != nil { // A3S Code announces a call with "{}" arguments
		return err
	}
	approved, reason := true, ""
	if a.shape == A3S {
		a.mu.Lock()
		s.pending = "call-1"
		a.mu.Unlock()
		a.publish(s.id, "call-1", "bash", writeArgs)
		select {
		case c := <-s.confirm:
			approved, reason = c.approved, c.reason
		case <-s.cancel:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if approved {
		if err := o.toolOutputDelta("hi\n"); err != nil {
			return err
		}
		if err := o.toolResult(true, "wrote hello.txt", ""); err != nil {
			return err
		}
		if err := say("I wrote hello.txt."); err != nil {
			return err
		}
	} else {
		if err := o.toolResult(false, "", "rejected: "+reason); err != nil {
			return err
		}
		if err := say("I did not write hello.txt."); err != nil {
			return err
		}
	}
	return o.done("stop", text.String(), nil)
}
