package servecmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/replay"
)

// replayFlags are serve's flags for replaying recorded sessions (package replay); --record, which writes them,
// goes with --proxy (serve_proxy.go).
type replayFlags struct {
	noClose
	files       []string
	speed       float64
	unmatched   string
	connRule    string
	idleTimeout time.Duration
}

func (*replayFlags) about() backendAbout {
	return backendAbout{
		flag: "replay", use: "--replay <file>", needs: "FILE", does: "replays a recorded session",
		value: "a recording to replay: --replay session.jsonl",
		help: `  --replay FILE   serve a recorded session turn by turn (repeatable: branches sharing a prefix);
                  --speed 1 replays in real time; --proxy URL --record FILE writes such a recording
`,
	}
}

func (r *replayFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&r.files, "replay", nil, "replay mode: serve this recorded session (repeatable: branches of one session)")
	fl.Float64Var(&r.speed, "speed", 0, "with --replay: 0 replays at once, 1 in real time, N N times faster")
	fl.StringVar(&r.unmatched, "unmatched", "ignore", "with --replay: a message no branch expects gets ignore (no event, like the Gemini server) or error")
	fl.StringVar(&r.connRule, "connection-rule", "auto", "with --replay: emulate the Gemini server's connection rule: auto (for its recordings), on or off")
	fl.DurationVar(&r.idleTimeout, "idle-timeout", 5*time.Second, "with --replay and the connection rule: close idle connections after this long")
	_ = fl.MarkHidden("idle-timeout")                                                           // cannot fail: the flag exists
	_ = cmd.RegisterFlagCompletionFunc("unmatched", fixedCompletion("ignore", "error"))         // cannot fail: the flag exists
	_ = cmd.RegisterFlagCompletionFunc("connection-rule", fixedCompletion("auto", "on", "off")) // cannot fail: the flag exists
	_ = cmd.MarkFlagFilename("replay", "jsonl")                                                 // cannot fail: the flag exists
}

func (r *replayFlags) chosen() bool { return len(r.files) > 0 }

func (r *replayFlags) check(v *verb) error {
	if !r.chosen() && (v.changed("speed") || v.changed("unmatched") || v.changed("connection-rule") || v.changed("idle-timeout")) {
		return errors.New("--speed, --unmatched and --connection-rule go with --replay")
	}
	if r.speed < 0 {
		return fmt.Errorf("invalid --speed %v: want 0 or more", r.speed)
	}
	if r.unmatched != "ignore" && r.unmatched != "error" {
		return fmt.Errorf("invalid --unmatched %q: want ignore or error", r.unmatched)
	}
	switch r.connRule {
	case "auto", "on", "off":
	default:
		return fmt.Errorf("invalid --connection-rule %q: want auto, on or off", r.connRule)
	}
	if r.idleTimeout <= 0 {
		return fmt.Errorf("invalid --idle-timeout %s: want a positive duration", r.idleTimeout)
	}
	return nil
}

// build loads the recordings.
func (r *replayFlags) build(*verb) (serve.Backend, error) {
	cfg := replay.Config{Speed: r.speed, UnmatchedError: r.unmatched == "error", ConnectionRule: r.connRule, IdleTimeout: r.idleTimeout}
	for _, name := range r.files {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--replay: %w", err)
		}
		rec, err := replay.ParseRecording(name, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--replay: %w", err)
		}
		cfg.Recordings = append(cfg.Recordings, rec)
	}
	return replay.New(cfg), nil
}
