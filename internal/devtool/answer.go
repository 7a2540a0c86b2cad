package devtool

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Choice is the user's decision on a tool call waiting for permission.
type Choice string

// The choices a client offers.
const (
	ApproveOnce   Choice = "approve-once"
	ApproveAlways Choice = "approve-always"
	Reject        Choice = "reject"
)

// Errors of Answer.
var (
	ErrNoCall         = errors.New("no tool call to answer")
	ErrUnknownChoice  = errors.New("unknown choice")
	ErrUnknownOption  = errors.New("unknown option")
	ErrNoOption       = errors.New("no option of the agent matches the choice")
	ErrEditorRejected = errors.New("modify_with_editor is not offered: it opens an editor on the agent's machine")
)

// editorOutcome is the Gemini outcome that would open an editor on the server's machine.
const editorOutcome = "modify_with_editor"

// rfcDefaultOptions stand in when an RFC confirmation lists no options of its own.
var rfcDefaultOptions = []Option{
	{ID: "proceed_once", Name: "Allow once"},
	{ID: "proceed_always", Name: "Allow always"},
	{ID: "cancel", Name: "Reject"},
}

// Answer builds the message part answering call: Gemini {"callId":…, "outcome":"proceed_once|
// proceed_always|cancel"}; RFC ToolCallConfirmation {"tool_call_id":…, "selected_option_id":…}
// with the option chosen from the agent's own options by matching the choice (an id or name
// containing "once", "always", or "reject", "cancel", "deny"). optionID, when set, is used
// verbatim (an RFC option id or a Gemini outcome) and validated against the call's options.
func Answer(call *ToolCall, choice Choice, optionID string) (*a2a.Part, error) {
	if call == nil || call.ID == "" {
		return nil, ErrNoCall
	}
	if optionID == editorOutcome {
		return nil, ErrEditorRejected
	}
	opts := answerOptions(call)
	id := optionID
	if id != "" {
		if !hasOption(opts, id) && (call.Shape == Gemini || len(opts) > 0) {
			return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownOption, id, optionIDs(opts))
		}
	} else {
		var err error
		if id, err = matchOption(opts, choice); err != nil {
			return nil, err
		}
	}
	if call.Shape == Gemini {
		return a2a.NewDataPart(map[string]any{"callId": call.ID, "outcome": id}), nil
	}
	return a2a.NewDataPart(map[string]any{"tool_call_id": call.ID, "selected_option_id": id}), nil
}

// answerOptions are the options a choice is matched against.
func answerOptions(call *ToolCall) []Option {
	var opts []Option
	if call.Confirmation != nil {
		opts = call.Confirmation.Options
	}
	if len(opts) > 0 {
		return opts
	}
	if call.Shape == Gemini {
		return geminiOptions("")
	}
	return rfcDefaultOptions
}

func hasOption(opts []Option, id string) bool {
	for _, o := range opts {
		if o.ID == id {
			return true
		}
	}
	return false
}

func optionIDs(opts []Option) string {
	ids := make([]string, len(opts))
	for i, o := range opts {
		ids[i] = o.ID
	}
	return strings.Join(ids, ", ")
}

// choiceWords are, per choice, words that mark a matching option, strongest first.
var choiceWords = map[Choice][][]string{
	ApproveOnce:   {{"once"}, {"allow", "approve", "proceed", "accept", "yes", "run"}},
	ApproveAlways: {{"always"}},
	Reject:        {{"reject", "cancel", "deny", "decline", "refuse"}, {"no", "skip", "stop"}},
}

// matchOption picks the agent's option for a choice. An option about an editor, and for
// ApproveOnce one that says "always", is never picked.
func matchOption(opts []Option, choice Choice) (string, error) {
	tiers, ok := choiceWords[choice]
	if !ok {
		return "", fmt.Errorf("%w %q", ErrUnknownChoice, choice)
	}
	for _, words := range tiers {
		for _, o := range opts {
			text := strings.ToLower(o.ID + " " + o.Name)
			if strings.Contains(text, "editor") || strings.Contains(text, "modify") {
				continue
			}
			if choice != ApproveAlways && strings.Contains(text, "always") {
				continue
			}
			if containsWord(text, words) {
				return o.ID, nil
			}
		}
	}
	return "", fmt.Errorf("%w %q (have %s)", ErrNoOption, choice, optionIDs(opts))
}

// containsWord reports whether text has one of words as a whole word (split at anything
// that is not a letter).
func containsWord(text string, words []string) bool {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r < 'a' || r > 'z' })
	for _, f := range fields {
		for _, w := range words {
			if f == w {
				return true
			}
		}
	}
	return false
}

// SettingsMetadata is the message metadata carrying AgentSettings in both shapes:
// "coderAgent": {"kind":"agent-settings","workspacePath":abs,"autoExecute":b} and
// URI: {"workspace_path":abs,"auto_execute":b}.
func SettingsMetadata(workspaceAbs string, autoExecute bool) map[string]any {
	return map[string]any{
		geminiKey: map[string]any{"kind": "agent-settings", "workspacePath": workspaceAbs, "autoExecute": autoExecute},
		URI:       map[string]any{"workspace_path": workspaceAbs, "auto_execute": autoExecute},
	}
}
