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

// replayOptions are serve's flags for replaying and recording sessions.
type replayOptions struct {
	files       []string
	speed       float64
	record      string
	unmatched   string
	connRule    string
	idleTimeout time.Duration
	recordFile  *os.File
}

func (r *replayOptions) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&r.files, "replay", nil, "replay mode: serve this recorded session (repeatable: branches of one session)")
	fl.Float64Var(&r.speed, "speed", 0, "with --replay: 0 replays at once, 1 in real time, N N times faster")
	fl.StringVar(&r.unmatched, "unmatched", "ignore", "with --replay: a message no branch expects gets ignore (no event, like the Gemini server) or error")
	fl.StringVar(&r.connRule, "connection-rule", "auto", "with --replay: emulate the Gemini server's connection rule: auto (for its recordings), on or off")
	fl.DurationVar(&r.idleTimeout, "idle-timeout", 5*time.Second, "with --replay and the connection rule: close idle connections after this long")
	fl.StringVar(&r.record, "record", "", "with --proxy: write the traffic to this file as a recording --replay serves")
	_ = fl.MarkHidden("idle-timeout")                                                           // cannot fail: the flag exists
	_ = cmd.RegisterFlagCompletionFunc("unmatched", fixedCompletion("ignore", "error"))         // cannot fail: the flag exists
	_ = cmd.RegisterFlagCompletionFunc("connection-rule", fixedCompletion("auto", "on", "off")) // cannot fail: the flag exists
	_ = cmd.MarkFlagFilename("replay", "jsonl")                                                 // cannot fail: the flag exists
}

// check validates the flags that go with --replay and --record.
func (r *replayOptions) check(cmd *cobra.Command, proxy bool) error {
	fl := cmd.Flags()
	if len(r.files) == 0 && (fl.Changed("speed") || fl.Changed("unmatched") || fl.Changed("connection-rule") || fl.Changed("idle-timeout")) {
		return errors.New("--speed, --unmatched and --connection-rule go with --replay")
	}
	if r.record != "" && !proxy {
		return errors.New("--record goes with --proxy")
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

// backend loads the recordings.
func (r *replayOptions) backend() (serve.Backend, error) {
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

// wrapRecord adds recording to the proxy when --record is set.
func (r *replayOptions) wrapRecord(b serve.Backend) (serve.Backend, error) {
	if r.record == "" {
		return b, nil
	}
	f, err := os.OpenFile(r.record, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	r.recordFile = f
	return replay.Record(b, f), nil
}

// close closes the recording file, if one was opened.
func (r *replayOptions) close() {
	if r.recordFile != nil {
		r.recordFile.Close()
		r.recordFile = nil
	}
}
