package reference

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/tasks"
)

// scenario is one behaviour, chosen by a message id that starts with id.
type scenario struct {
	id, about string
	run       func(ctx context.Context, c Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message)
}

// scenarios: the TCK v1.0's (scenarios/*.feature), the TCK v0.3's (SUT_REQUIREMENTS.md and the tasks it cancels),
// and what the specification needs beyond them (auth-required, failed, a long task, a slow stream). A slice of
// built when asked: nothing runs at init.
func scenarios() []scenario {
	return []scenario{
		{"tck-complete-task", "completes with the status message \"Hello from TCK\"", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			working(t)
			return a2a.TaskStateCompleted, text(t, "Hello from TCK")
		}},
		{"tck-artifact-text", "completes with a text artifact", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			artifact(t, "text", a2a.NewTextPart("Generated text content"))
			return a2a.TaskStateCompleted, nil
		}},
		{"tck-artifact-file", "completes with a file artifact (raw bytes, output.txt, text/plain)", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			p := a2a.NewRawPart([]byte("Generated file content\n"))
			p.Filename, p.MediaType = "output.txt", "text/plain"
			artifact(t, "file", p)
			return a2a.TaskStateCompleted, nil
		}},
		{"tck-artifact-file-url", "completes with a file-URL artifact", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			p := a2a.NewFileURLPart("https://example.com/output.txt", "text/plain")
			p.Filename = "output.txt"
			artifact(t, "file-url", p)
			return a2a.TaskStateCompleted, nil
		}},
		{"tck-artifact-data", "completes with a data artifact {\"key\":\"value\",\"count\":42}", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			artifact(t, "data", a2a.NewDataPart(map[string]any{"key": "value", "count": 42}))
			return a2a.TaskStateCompleted, nil
		}},
		{"tck-message-response", "answers with a Message, no task", nil}, // agent.Reply
		{"tck-input-required", "stops at input-required; a follow-up completes it", inputRequired},
		// The v0.3 TCK cancels the task message/send returned: it must still be live, and a blocking send returns
		// at an interrupted state.
		{"cancel-test", "stops at input-required (the v0.3 TCK cancels it)", inputRequired},
		{"mapping-test", "stops at input-required (the v0.3 TCK cancels it)", inputRequired},
		{"tck-auth-required", "stops at auth-required", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			working(t)
			return a2a.TaskStateAuthRequired, text(t, "Authorize the agent, then send any message to this task")
		}},
		{"tck-reject-task", "rejects the task", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			return a2a.TaskStateRejected, text(t, "rejected")
		}},
		{"tck-fail-task", "fails the task", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			working(t)
			return a2a.TaskStateFailed, text(t, "failed on purpose")
		}},
		{"tck-long-running", "works until canceled or the long duration passes", long},
		{"test-resubscribe-message-id", "works for the long duration, then completes (the v0.3 TCK resubscribes)", long},
		{"tck-stream-001", "streams working, a text artifact, completed", streamText("Stream hello from TCK")},
		{"tck-stream-002", "streams completed", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			return a2a.TaskStateCompleted, nil
		}},
		{"tck-stream-003", "streams working, a text artifact, completed", streamText("Stream task lifecycle")},
		{"tck-stream-ordering-001", "streams working, a text artifact, completed", streamText("Ordered output")},
		{"tck-stream-artifact-text", "streams a text artifact", streamText("Streamed text content")},
		{"tck-stream-artifact-file", "streams a file artifact", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			working(t)
			p := a2a.NewRawPart([]byte("Streamed file content\n"))
			p.Filename, p.MediaType = "output.txt", "text/plain"
			artifact(t, "file", p)
			return a2a.TaskStateCompleted, nil
		}},
		{"tck-stream-artifact-chunked", "streams one artifact in two chunks", func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			working(t)
			first := a2a.NewArtifactEvent(t.Info, a2a.NewTextPart("chunk-1 "))
			first.Artifact.Name = "chunked"
			t.Emit(first)
			last := a2a.NewArtifactUpdateEvent(t.Info, first.Artifact.ID, a2a.NewTextPart("chunk-2"))
			last.Append, last.LastChunk = true, true
			t.Emit(last)
			return a2a.TaskStateCompleted, nil
		}},
		{"tck-slow-stream", "streams many chunks, slowly", func(ctx context.Context, c Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
			working(t)
			var id a2a.ArtifactID
			for i := 1; i <= c.Chunks; i++ {
				if i > 1 && !wait(ctx, c.ChunkEvery) {
					return a2a.TaskStateCanceled, nil
				}
				var ev *a2a.TaskArtifactUpdateEvent
				if i == 1 {
					ev = a2a.NewArtifactEvent(t.Info, a2a.NewTextPart(fmt.Sprintf("chunk %d\n", i)))
					ev.Artifact.Name = "slow"
					id = ev.Artifact.ID
				} else {
					ev = a2a.NewArtifactUpdateEvent(t.Info, id, a2a.NewTextPart(fmt.Sprintf("chunk %d\n", i)))
					ev.Append = true
				}
				ev.LastChunk = i == c.Chunks
				t.Emit(ev)
			}
			return a2a.TaskStateCompleted, nil
		}},
	}
}

func inputRequired(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	working(t)
	return a2a.TaskStateInputRequired, text(t, "What should I do next? Reply to this task.")
}

func long(ctx context.Context, c Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	working(t)
	if !wait(ctx, c.Long) {
		return a2a.TaskStateCanceled, nil // the runner records why (canceled by the client, or shutdown)
	}
	artifact(t, "long", a2a.NewTextPart("done after "+c.Long.String()))
	return a2a.TaskStateCompleted, nil
}

func streamText(s string) func(context.Context, Config, *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	return func(_ context.Context, _ Config, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
		working(t)
		artifact(t, "stream", a2a.NewTextPart(s))
		return a2a.TaskStateCompleted, nil
	}
}

// skills lists the scenarios on the card, so a client author sees which message id plays what.
func skills() []a2a.AgentSkill {
	out := []a2a.AgentSkill{{ID: "echo", Name: "echo", Description: "any other message: a completed task echoing its parts", Tags: []string{"echo"}}}
	for _, s := range scenarios() {
		out = append(out, a2a.AgentSkill{ID: s.id, Name: s.id,
			Description: "messageId " + s.id + "-…: " + s.about, Tags: []string{"tck-scenario"}})
	}
	return out
}
