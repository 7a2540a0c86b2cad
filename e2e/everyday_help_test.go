package e2e

import (
	"strings"
	"testing"
)

// helpCommands walks `a2a --help` and every subcommand's help, returning the command paths.
func helpCommands(t *testing.T, path []string, seen map[string]bool) []string {
	t.Helper()
	r := run(t, "", append(path, "--help")...)
	wantCode(t, r, 0)
	out := []string{strings.Join(path, " ")}
	inList := false
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " "):
			inList = line != "Usage:" && line != "Examples:" && line != "Flags:" && line != "Global Flags:" &&
				line != "Aliases:" && line != "Additional help topics:"
			continue
		case line == "":
			inList = false
			continue
		case !inList || !strings.HasPrefix(line, "  "):
			continue
		}
		name := strings.Fields(line)[0]
		if name == "help" || name == "completion" {
			continue
		}
		sub := append(append([]string{}, path...), name)
		if key := strings.Join(sub, " "); !seen[key] {
			seen[key] = true
			out = append(out, helpCommands(t, sub, seen)...)
		}
	}
	return out
}

// helpExamples returns the a2a commands in the Examples section of each command's --help.
func helpExamples(t *testing.T) []string {
	t.Helper()
	var cmds []string
	for _, path := range helpCommands(t, nil, map[string]bool{}) {
		args := append(strings.Fields(path), "--help")
		r := run(t, "", args...)
		in, cur := false, ""
		for _, line := range strings.Split(r.stdout, "\n") {
			switch {
			case line == "Examples:":
				in = true
				continue
			case line == "" || !strings.HasPrefix(line, " "):
				in = false
				continue
			case !in:
				continue
			}
			line = strings.TrimSpace(line)
			if strings.HasSuffix(line, `\`) {
				cur += strings.TrimSuffix(line, `\`) + " "
				continue
			}
			line, cur = cur+line, ""
			if strings.Contains(line, "a2a ") && !strings.HasPrefix(line, "#") {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

// TestHelpExamples: every example that --help shows runs as shown (send --help's jq example used to print null).
func TestHelpExamples(t *testing.T) {
	cmds := helpExamples(t)
	if len(cmds) < 30 {
		t.Fatalf("found only %d --help examples: is the parser still right?", len(cmds))
	}
	// runExamples finds testdata/recordings/ files, as the README names them.
	files := strings.NewReplacer(" approve.jsonl", " testdata/recordings/gemini-approve-write.jsonl",
		" reject.jsonl", " testdata/recordings/gemini-reject-write.jsonl")
	var runnable []string
	for _, c := range cmds {
		switch {
		case strings.Contains(c, "<call-id>"): // answers a pending tool call: the permission tests drive these
		case strings.Contains(c, "<config-id>"): // a push config of a task: the push tests create and drive these
		case strings.Contains(c, `"memory add"`): // a Gemini CLI command the recorded session does not have
		case strings.HasPrefix(c, "a2a listen"):
			// A webhook runs until Ctrl-C (or a final notification): runExamples starts it on a free port with
			// these flags, as it does the README's "a2a listen ... &".
			c, _, _ = strings.Cut(c, " |")
			runnable = append(runnable, strings.TrimSpace(c)+" &")
		default:
			runnable = append(runnable, files.Replace(c))
		}
	}
	runExamples(t, runnable)
}
