package devtool

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SlashCommand is one slash command a coding agent offers (the RFC's SlashCommand, or an entry of the Gemini CLI
// server's /listCommands), normalised by ParseCommands.
type SlashCommand struct {
	Name        string
	Description string
	Arguments   []SlashArgument
	SubCommands []SlashCommand
}

// SlashArgument is one argument of a slash command.
type SlashArgument struct {
	Name, Description string
	Required          bool
}

// ParseCommands reads a command list in either shape: {"commands":[…]} or a bare array, with camelCase or
// snake_case fields (subCommands / sub_commands, isRequired / is_required).
func ParseCommands(raw json.RawMessage) ([]SlashCommand, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decode command list: %w", err)
	}
	if m, ok := doc.(map[string]any); ok {
		doc = m["commands"]
	}
	list, ok := doc.([]any)
	if !ok && doc != nil {
		return nil, fmt.Errorf("decode command list: want a list of commands, got %T", doc)
	}
	return commandList(list), nil
}

func commandList(list []any) []SlashCommand {
	var out []SlashCommand
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		c := SlashCommand{Name: strField(m, "name"), Description: strField(m, "description")}
		args, _ := firstField(m, "arguments", "args").([]any)
		for _, a := range args {
			am, ok := a.(map[string]any)
			if !ok {
				continue
			}
			req, _ := firstField(am, "isRequired", "is_required", "required").(bool)
			c.Arguments = append(c.Arguments, SlashArgument{Name: strField(am, "name"), Description: strField(am, "description"), Required: req})
		}
		subs, _ := firstField(m, "subCommands", "sub_commands", "subcommands").([]any)
		c.SubCommands = commandList(subs)
		out = append(out, c)
	}
	return out
}

func firstField(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

func strField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// SplitCommandLine splits NAME ARGS… into the command path and its arguments: the longest prefix of the words that
// names a listed command (or subcommand) is the path; without a list, the first word is.
func SplitCommandLine(words []string, cmds []SlashCommand) (path, args []string) {
	best := 1
	level := cmds
	for i, w := range words {
		found := false
		for _, c := range level {
			if strings.EqualFold(c.Name, w) {
				best, level, found = i+1, c.SubCommands, true
				break
			}
		}
		if !found {
			break
		}
	}
	return words[:best], words[best:]
}
