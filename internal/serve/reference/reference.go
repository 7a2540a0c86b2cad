// Package reference owns serve's reference agent (serve --reference): an agent that plays every scenario the A2A
// TCK's system-under-test contract and the specification need, each chosen by the message's id the way the TCK's
// scenario ids choose them (tck-artifact-text-…, tck-input-required-…, test-resubscribe-message-id-…). A message
// no scenario claims is echoed, like serve --echo. It runs on serve's task runner (package tasks), so get, list,
// cancel, subscribe and push notifications are serve's own.
//
// It imports serve and serve/tasks and nothing of the CLI; its flags live in cli/servecmd (serve_reference.go).
package reference

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// ScenariosURI is the card extension that says the agent plays the TCK's scenarios by message id; a2a conformance
// runs its scenario checks against an agent that declares it.
const ScenariosURI = "https://a2acli.dev/extensions/tck-scenarios/v1"

// Config tunes the scenarios' timing.
type Config struct {
	// Long is how long a long task works before it completes (test-resubscribe-message-id-…, tck-long-running-…);
	// zero: 10 s. The TCK asks for at least 2 × TCK_STREAMING_TIMEOUT (2 s by default).
	Long time.Duration
	// Chunks and ChunkEvery shape the slow stream (tck-slow-stream-…); zero: 50 chunks, 20 ms apart.
	Chunks     int
	ChunkEvery time.Duration
}

// New returns the reference agent as a serve backend.
func New(c Config) serve.Backend {
	if c.Long <= 0 {
		c.Long = 10 * time.Second
	}
	if c.Chunks <= 0 {
		c.Chunks = 50
	}
	if c.ChunkEvery <= 0 {
		c.ChunkEvery = 20 * time.Millisecond
	}
	return backend{c: c, waiting: &sync.Map{}}
}

type backend struct {
	c Config
	// waiting holds the ids of the tasks a scenario stopped at input-required or auth-required: the next message
	// to one of them is its follow-up.
	waiting *sync.Map
}

// Setup implements serve.Backend: the agent on serve's task runner (serve.Env.TaskParts), with its own card.
func (b backend) Setup(e *serve.Env) (*serve.Parts, error) {
	_, parts := e.TaskParts(agent(b))
	card := serve.BaseCard(e.Config)
	if e.Config.Card == nil {
		if e.Config.Name == "" {
			card.Name = "a2a reference agent"
			card.Description = "Plays the A2A TCK's scenarios, chosen by message id; echoes anything else."
		}
		card.Skills = skills()
	}
	card.Capabilities.Extensions = append(card.Capabilities.Extensions, a2a.AgentExtension{URI: ScenariosURI,
		Description: "plays the A2A TCK's scenarios: the message id's prefix chooses one (see the skills)"})
	parts.Card = func(context.Context) (*a2a.AgentCard, error) { return card, nil }
	return parts, nil
}

// agent plays the scenarios on serve's task runner.
type agent backend

// Reply answers tck-message-response with a Message and no task.
func (agent) Reply(m *a2a.Message) *a2a.Message {
	if m.TaskID == "" && choose(m) == "tck-message-response" {
		return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Direct message response"))
	}
	return nil
}

// Run performs one turn: the scenario the message's id names, a follow-up's completion, or an echo.
func (a agent) Run(ctx context.Context, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	// A follow-up to a task that stopped for input plays the scenario its own id names, as the TCK's do
	// (tck-input-required-… asks again, tck-complete-task-… completes); any other input completes the task.
	_, followed := a.waiting.LoadAndDelete(t.Info.TaskID)
	s := lookup(choose(t.Message))
	switch {
	case s.run == nil && followed:
		return followUp(t)
	case s.run == nil:
		return echo(t)
	}
	state, msg := s.run(ctx, a.c, t)
	if state == a2a.TaskStateInputRequired || state == a2a.TaskStateAuthRequired {
		a.waiting.Store(t.Info.TaskID, struct{}{})
	}
	return state, msg
}

// choose is the scenario id m's id starts with ("" for none): the longest, so tck-artifact-file-url is not
// tck-artifact-file.
func choose(m *a2a.Message) string {
	best := ""
	for _, s := range scenarios() {
		if strings.HasPrefix(m.ID, s.id) && len(s.id) > len(best) {
			best = s.id
		}
	}
	return best
}

func lookup(id string) scenario {
	for _, s := range scenarios() {
		if s.id == id {
			return s
		}
	}
	return scenario{}
}

func text(t *tasks.Turn, s string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, t.Info, a2a.NewTextPart(s))
}

func working(t *tasks.Turn) { t.Emit(a2a.NewStatusUpdateEvent(t.Info, a2a.TaskStateWorking, nil)) }

// artifact emits one whole artifact.
func artifact(t *tasks.Turn, name string, parts ...*a2a.Part) {
	ev := a2a.NewArtifactEvent(t.Info, parts...)
	ev.Artifact.Name = name
	ev.LastChunk = true
	t.Emit(ev)
}

func echo(t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	working(t)
	artifact(t, "echo", t.Message.Parts...)
	return a2a.TaskStateCompleted, nil
}

func followUp(t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	working(t)
	artifact(t, "answer", a2a.NewTextPart("thanks: "+firstText(t.Message)))
	return a2a.TaskStateCompleted, text(t, "Task completed with the input provided")
}

func firstText(m *a2a.Message) string {
	for _, p := range m.Parts {
		if s := p.Text(); s != "" {
			return s
		}
	}
	return ""
}

// wait waits d or until ctx is done; false when ctx ended it (the task was canceled or the server stops).
func wait(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}
