// Package coder is the user's side of a coding agent's turn (the development-tool extension): Prompts decides the
// answers to the tool calls that wait for permission (--confirm answers first, then --approve/--reject or a
// question on the terminal, each call at most once) and hands them to the caller's Send; the permission prompt
// itself (Asker, LineAsker, AskPermission and the answers it reads); the --confirm option words (ParseOption); and
// the chat's input line (ChatInput: line editing, history, Ctrl-C that cancels a turn, questions asked in the middle
// of output, terminal resizes). Streaming the turn and following its task are internal/follow's: they
// serve every stream, not only coding agents'.
//
// It never reaches an agent itself (the caller's Send does, through internal/client) and learns the dialects only
// from internal/devtool. It must not import cobra, internal/output, internal/client or internal/cli.
package coder
