package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

// devtoolOptions are the flags of the development-tool extension (coding agents) on send and chat.
type devtoolOptions struct {
	workspace     string          // --workspace: made absolute by check
	autoExecute   bool            // --auto-execute
	approve       bool            // --approve: approve every pending tool call once
	reject        bool            // --reject: reject every pending tool call
	confirm       []string        // --confirm CALLID=OPTION, parsed into answers by check
	answers       []coder.Confirm // from --confirm, in order
	answerTimeout time.Duration   // --answer-timeout: silence allowed after an answer before giving up
}

const defaultAnswerTimeout = 30 * time.Second

// addDevtoolFlags registers the flags; permission adds --approve, --reject and --confirm (send only).
func addDevtoolFlags(cmd *cobra.Command, o *devtoolOptions, permission bool) {
	fl := cmd.Flags()
	fl.StringVar(&o.workspace, "workspace", "", "coding agents: the workspace `dir` the agent works in (sent as AgentSettings on a task's first message)")
	fl.BoolVar(&o.autoExecute, "auto-execute", false, "coding agents: let the agent run tools without asking (AgentSettings)")
	fl.DurationVar(&o.answerTimeout, "answer-timeout", defaultAnswerTimeout, "coding agents: give up when the agent sends nothing this long after a permission answer")
	_ = cmd.MarkFlagDirname("workspace") // cannot fail: the flag exists
	if !permission {
		return
	}
	fl.BoolVar(&o.approve, "approve", false, "coding agents: approve every tool call that asks for permission (once)")
	fl.BoolVar(&o.reject, "reject", false, "coding agents: reject every tool call that asks for permission")
	fl.StringArrayVar(&o.confirm, "confirm", nil, "coding agents: answer a pending tool call, `CALLID=OPTION` (approve, always, reject, or an agent option id); repeatable, with --task")
	cmd.MarkFlagsMutuallyExclusive("approve", "reject", "confirm")
}

// check validates the flags: the workspace must exist (it is sent absolute), --confirm needs --task and CALLID=OPTION.
func (o *devtoolOptions) check(taskID string) error {
	if o.answerTimeout <= 0 {
		return client.Usagef("invalid --answer-timeout: must be positive")
	}
	if o.workspace != "" {
		abs, err := filepath.Abs(o.workspace)
		if err != nil {
			return client.Usagef("invalid --workspace %q: %v", o.workspace, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return client.Usagef("invalid --workspace: %v", err)
		}
		if !st.IsDir() {
			return client.Usagef("invalid --workspace %q: not a directory", o.workspace)
		}
		o.workspace = abs
	}
	if len(o.confirm) > 0 && taskID == "" {
		return client.WithHint(client.Usagef("--confirm answers a tool call of an existing task: give its id with --task"),
			"a2a send URL --task ID --confirm CALLID=approve")
	}
	o.answers = nil
	for _, kv := range o.confirm {
		id, opt, ok := strings.Cut(kv, "=")
		id, opt = strings.TrimSpace(id), strings.TrimSpace(opt)
		if !ok || id == "" || opt == "" {
			return client.Usagef("invalid --confirm %q: want CALLID=OPTION (approve, always, reject or an agent option id)", kv)
		}
		o.answers = append(o.answers, coder.Confirm{CallID: id, Option: opt})
	}
	return nil
}

// settings reports whether AgentSettings are to be sent.
func (o *devtoolOptions) settings() bool { return o.workspace != "" || o.autoExecute }

// any reports whether a development-tool flag asks for dev-tool handling of the turn.
func (o *devtoolOptions) any() bool {
	return o.settings() || o.approve || o.reject || len(o.confirm) > 0
}

// applySettings puts AgentSettings, in both shapes, into the metadata of a task's first message. Follow-ups (a
// message with a task id) keep what the task was started with: the agent reads settings only once.
func (o *devtoolOptions) applySettings(msg *a2a.Message) {
	if !o.settings() || msg.TaskID != "" {
		return
	}
	ws := o.workspace
	if ws == "" {
		// --auto-execute alone: the agent still needs a workspace, and the current directory is what a user means.
		if wd, err := os.Getwd(); err == nil {
			ws = wd
		}
	}
	if msg.Metadata == nil {
		msg.Metadata = map[string]any{}
	}
	for k, v := range devtool.SettingsMetadata(ws, o.autoExecute) {
		msg.Metadata[k] = v
	}
	if !slices.Contains(msg.Extensions, devtool.URI) {
		msg.Extensions = append(msg.Extensions, devtool.URI)
	}
}

// turnAnswers are the flags a turn acts on.
func (o *devtoolOptions) turnAnswers() follow.Answers {
	return follow.Answers{Devtool: o.any(), Approve: o.approve, Reject: o.reject, AutoExecute: o.autoExecute,
		Confirm: o.answers, Timeout: o.answerTimeout}
}
