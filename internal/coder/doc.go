// Package coder is the terminal side of talking to a coding agent (the development-tool extension): the
// permission prompt that asks whether a tool call may run (Asker, LineAsker, AskPermission and the answers it
// reads), the --confirm option words (ParseOption), and the chat's input line (ChatInput: line editing, history,
// Ctrl-C that cancels a turn, questions asked in the middle of output, terminal resizes).
//
// It reaches agents only through internal/client and learns the dialects only from internal/devtool. It must not
// import cobra, internal/output or internal/cli.
package coder
