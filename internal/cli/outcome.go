package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

func shortState(s a2a.TaskState) string { return output.ShortState(s) }

// outcome reports how a task ended: a warning on stderr for a bad end, the command that continues a paused task,
// and under --fail the matching error (exit 6 or 7).
func (f *factory) outcome(agentURL string, t *a2a.Task) error {
	if t == nil {
		return nil
	}
	switch t.Status.State {
	case a2a.TaskStateFailed, a2a.TaskStateRejected, a2a.TaskStateCanceled:
		msg := ""
		if t.Status.Message != nil {
			msg = ": " + oneLine(messageText(t.Status.Message))
		}
		fmt.Fprintf(f.io.Err, "warning: task %s %s%s\n", output.Sanitize(string(t.ID)), shortState(t.Status.State), output.Sanitize(msg))
		if f.opts.fail {
			return &taskOutcomeError{id: t.ID, state: t.Status.State, code: exitTaskFailed, msg: msg}
		}
	case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		what := "input"
		if t.Status.State == a2a.TaskStateAuthRequired {
			what = "authentication"
		}
		fmt.Fprintf(f.io.Err, "hint: the task needs %s; continue it with:\n  a2a send %s --task %s \"…\"\n",
			what, shellQuote(agentURL), shellQuote(string(t.ID)))
		if f.opts.fail {
			return &taskOutcomeError{id: t.ID, state: t.Status.State, code: exitTaskPaused}
		}
	}
	return nil
}

// failReplacesResult reports whether the result t is not printed because, under --fail with -o json, its outcome is
// a failure: the error document is printed instead (CONTRACT.md: one document, the error instead of a result, as
// curl --fail prints no body).
// A stream (--stream, subscribe) is not replaced: its last line already carries the state, --fail sets the exit code.
func (f *factory) failReplacesResult(t *a2a.Task) bool {
	if t == nil || !f.opts.fail || f.opts.output != string(output.JSON) {
		return false
	}
	switch t.Status.State {
	case a2a.TaskStateFailed, a2a.TaskStateRejected, a2a.TaskStateCanceled, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		f.failDoc = true
		return true
	}
	return false
}

func messageText(m *a2a.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if t := p.Text(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it. A string with control characters (an agent's task id can
// hold anything) gets $'…' quoting with escapes, so no byte of it reaches the terminal raw.
func shellQuote(s string) string {
	if hasControl(s) {
		return dollarQuote(s)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// saveFiles writes the file parts of the task's artifacts into dir and says where on stderr.
func (f *factory) saveFiles(dir string, artifacts []*a2a.Artifact) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	n := 0
	for _, a := range artifacts {
		for i, p := range a.Parts {
			raw := p.Raw()
			if raw == nil {
				continue
			}
			name := safeName(p.Filename)
			if name == "" {
				name = fmt.Sprintf("%s-%d.bin", safeName(string(a.ID)), i)
			}
			path := uniquePath(filepath.Join(dir, name))
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				return fmt.Errorf("--save: %w", err)
			}
			n++
			fmt.Fprintf(f.io.Err, "saved %s (%d bytes)\n", output.Sanitize(path), len(raw))
		}
	}
	if n == 0 {
		fmt.Fprintln(f.io.Err, "--save: no file parts to save")
	}
	return nil
}

// safeName keeps a file name from an agent inside the target directory.
func safeName(s string) string {
	s = filepath.Base(filepath.Clean("/" + s))
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, s)
	if s == "/" || s == "." || s == ".." {
		return ""
	}
	return s
}

func uniquePath(p string) string {
	if _, err := os.Stat(p); os.IsNotExist(err) {
		return p
	}
	ext := filepath.Ext(p)
	base := strings.TrimSuffix(p, ext)
	for i := 1; ; i++ {
		q := fmt.Sprintf("%s-%d%s", base, i, ext)
		if _, err := os.Stat(q); os.IsNotExist(err) {
			return q
		}
	}
}
