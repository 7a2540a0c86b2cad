// Package execbackend is the exec backend of `a2a serve --exec`: any command becomes an agent. Every message
// runs the command once on the task runner (serve.Env.TaskParts) through package exec: the message on its
// stdin (text parts, data parts as JSON, file bytes; or the whole message as JSON), its stdout the task's
// artifact (whole, or in chunks sent the moment they are read), its exit code the task's end; --max-concurrent
// queues the rest in arrival order, and serve's own variables stay out of the command's environment.
//
// It plugs into serve's exported Backend API like any other backend; it must not import the CLI, cobra or
// other backends, and nothing but internal/cli/servecmd (and tests) imports it.
package execbackend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/exec"
	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/tasks"
	"github.com/a2acli/a2a/internal/serve/traffic"
)

// Config configures the exec backend.
type Config struct {
	Command       string        // run with /bin/sh -c
	Chunk         []byte        // stdout delimiter; nil => the whole stdout is one artifact
	InputJSON     bool          // stdin is the whole message as one JSON object
	Timeout       time.Duration // per run; 0 => none
	MaxConcurrent int           // running processes; 0 => unlimited; the rest wait in arrival order
	Grace         time.Duration // SIGTERM to SIGKILL; 0 => 2s
	// Env is --exec-env: NAME passes serve's variable NAME to the command although it is serve's own
	// configuration (see ownEnv); NAME=VALUE sets it.
	Env []string
}

// ownEnv reports whether an environment variable is serve's own configuration, which the command does not
// inherit: A2ACLI_* (the token, the store's URL, every option) and PG* (libpq's, which the store's driver reads:
// PGPASSWORD and the like). --exec-env passes one through by name.
func ownEnv(name string) bool {
	name = strings.ToUpper(name) // Windows' names ignore case
	return strings.HasPrefix(name, "A2ACLI_") || strings.HasPrefix(name, "PG")
}

// execEnv splits --exec-env into the rule that drops serve's own variables from what the command inherits and the
// variables it sets.
func execEnv(entries []string) (drop func(string) bool, set []string) {
	keep := map[string]bool{}
	for _, e := range entries {
		if strings.Contains(e, "=") {
			set = append(set, e)
			continue
		}
		keep[e] = true
	}
	return func(name string) bool { return ownEnv(name) && !keep[name] }, set
}

// pieceSize bounds a chunk when the output has no delimiter for a long stretch.
const pieceSize = 64 << 10

// stderrTailSize bounds the stderr quoted in a failed status.
const stderrTailSize = 2048

// New returns a backend that runs c.Command for every message. Stdin carries the message (text
// parts joined with newlines, data parts as JSON, file bytes; or the whole message as JSON with
// InputJSON), stdout becomes the artifact, the exit code decides completed or failed.
//
// With Chunk, every chunk is sent the moment it is read: the first as a new artifact, the rest
// appended to it. Nothing is held back, so the end of the output is marked by one more append
// carrying an empty text part and lastChunk=true.
func New(c Config) serve.Backend { return backend{cfg: c} }

type backend struct{ cfg Config }

// Setup implements serve.Backend.
func (b backend) Setup(e *serve.Env) (*serve.Parts, error) {
	if strings.TrimSpace(b.cfg.Command) == "" {
		return nil, errors.New("exec: empty command")
	}
	// No process left behind: what a command leaves outside its group is ours to stop, and a watchdog stops
	// the commands if we are killed. Without it (an odd system) commands still run, less contained. Guard also
	// makes serve not dumpable, before any command starts: commands cannot read serve's environment or memory.
	if err := exec.Guard(); err != nil {
		e.Log.Printf("warning: %v\n", err)
	}
	drop, set := execEnv(b.cfg.Env)
	a := &execAgent{cfg: b.cfg, drop: drop, env: set, sem: tasks.NewFIFOSem(b.cfg.MaxConcurrent), log: e.Log, verbose: e.Config.Verbose}
	_, parts := e.TaskParts(a)
	stopTasks := parts.Shutdown
	parts.Shutdown = func(ctx context.Context) error {
		err := stopTasks(ctx)
		exec.Sweep(b.cfg.Grace) // descendants that left their group and their command's environment
		return err
	}
	return parts, nil
}

type execAgent struct {
	cfg     Config
	drop    func(name string) bool // the inherited variables the command does not get
	env     []string               // the variables --exec-env sets
	sem     *tasks.FIFOSem
	log     *traffic.Log
	verbose bool
}

func (a *execAgent) Reply(*a2a.Message) *a2a.Message { return nil }

// Queue implements tasks.Queuer: --max-concurrent admits turns in the order their messages arrived.
func (a *execAgent) Queue(t *tasks.Turn) { t.Place = a.sem.Take() }

func (a *execAgent) Run(ctx context.Context, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	place := t.Place
	if place == nil {
		place = a.sem.Take()
	}
	if err := place.Wait(ctx); err != nil {
		return a2a.TaskStateCanceled, nil
	}
	defer a.sem.Release()
	t.Emit(a2a.NewStatusUpdateEvent(t.Info, a2a.TaskStateWorking, nil))
	stdin, err := stdinFor(t.Message, a.cfg.InputJSON)
	if err != nil {
		return a2a.TaskStateFailed, agentText(t, fmt.Sprintf("encode stdin: %v", err))
	}
	runCtx := ctx
	if a.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, a.cfg.Timeout)
		defer cancel()
	}
	cmd := exec.Cmd{
		Command:    a.cfg.Command,
		Stdin:      stdin,
		Grace:      a.cfg.Grace,
		StderrTail: stderrTailSize,
		Env: append(a.env[:len(a.env):len(a.env)],
			"A2A_TASK_ID="+string(t.Info.TaskID),
			"A2A_CONTEXT_ID="+t.Info.ContextID,
			"A2A_MESSAGE_ID="+t.Message.ID,
		),
		Drop: a.drop,
	}
	if a.verbose {
		cmd.OnStderrLine = func(line []byte) {
			a.log.Printf("exec task=%s stderr: %s\n", t.Info.TaskID, strings.ToValidUTF8(string(line), "\uFFFD"))
		}
	}
	var res exec.Result
	a.log.ProcStarted()
	defer a.log.ProcEnded()
	if a.cfg.Chunk != nil {
		res, err = a.runChunked(runCtx, t, cmd)
	} else {
		res, err = a.runWhole(runCtx, t, cmd)
	}
	switch {
	case ctx.Err() != nil:
		return a2a.TaskStateCanceled, nil
	case runCtx.Err() != nil:
		return a2a.TaskStateFailed, agentText(t, fmt.Sprintf("command timed out after %s", a.cfg.Timeout))
	case err != nil:
		return a2a.TaskStateFailed, agentText(t, fmt.Sprintf("run command: %v", err))
	case res.ExitCode != 0:
		return a2a.TaskStateFailed, agentText(t, exitText(res))
	}
	return a2a.TaskStateCompleted, nil
}

func agentText(t *tasks.Turn, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, t.Info, a2a.NewTextPart(text))
}

func exitText(res exec.Result) string {
	msg := fmt.Sprintf("command exited with status %d", res.ExitCode)
	if res.Signal != "" {
		msg = "command killed by signal " + res.Signal
	}
	if tail := strings.TrimSpace(strings.ToValidUTF8(res.StderrTail, "\uFFFD")); tail != "" {
		msg += ": " + tail
	}
	return msg
}

// runWhole collects stdout and sends it as one artifact: text when it is valid UTF-8, else raw.
func (a *execAgent) runWhole(ctx context.Context, t *tasks.Turn, cmd exec.Cmd) (exec.Result, error) {
	var out []byte
	res, err := exec.Run(ctx, cmd, nil, pieceSize, func(b []byte) error {
		out = append(out, b...)
		return nil
	})
	if err != nil || ctx.Err() != nil {
		return res, err
	}
	ev := a2a.NewArtifactEvent(t.Info, outputPart(out))
	ev.LastChunk = true
	t.Emit(ev)
	return res, nil
}

// outputPart carries bytes of stdout unchanged: a text part when they are valid UTF-8, else a raw part.
func outputPart(b []byte) *a2a.Part {
	if utf8.Valid(b) {
		return a2a.NewTextPart(string(b))
	}
	part := a2a.NewRawPart(bytes.Clone(b))
	part.MediaType = "application/octet-stream"
	return part
}

// runChunked sends every chunk as soon as it is read. Chunks end with their delimiter, so the parts of the
// artifact joined in order are exactly what the command wrote.
func (a *execAgent) runChunked(ctx context.Context, t *tasks.Turn, cmd exec.Cmd) (exec.Result, error) {
	var id a2a.ArtifactID
	res, err := exec.Run(ctx, cmd, a.cfg.Chunk, pieceSize, func(b []byte) error {
		part := outputPart(b)
		if id == "" {
			ev := a2a.NewArtifactEvent(t.Info, part)
			id = ev.Artifact.ID
			t.Emit(ev)
			return nil
		}
		ev := a2a.NewArtifactUpdateEvent(t.Info, id, part)
		ev.Append = true
		t.Emit(ev)
		return nil
	})
	if id != "" {
		ev := a2a.NewArtifactUpdateEvent(t.Info, id, a2a.NewTextPart(""))
		ev.Append, ev.LastChunk = true, true
		t.Emit(ev)
	}
	return res, err
}

// stdinFor renders a message for the command's stdin.
func stdinFor(msg *a2a.Message, asJSON bool) ([]byte, error) {
	if asJSON {
		return json.Marshal(msg)
	}
	var pieces [][]byte
	for _, p := range msg.Parts {
		switch c := p.Content.(type) {
		case a2a.Text:
			pieces = append(pieces, []byte(c))
		case a2a.Raw:
			pieces = append(pieces, c)
		case a2a.URL:
			pieces = append(pieces, []byte(c))
		case a2a.Data:
			b, err := json.Marshal(c.Value)
			if err != nil {
				return nil, fmt.Errorf("encode data part: %w", err)
			}
			pieces = append(pieces, b)
		}
	}
	out := make([]byte, 0, 64)
	for i, p := range pieces {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, p...)
	}
	return out, nil
}
