// Package chat is the interactive chat session: the turn loop (a line is a message, a /word a chat command), the
// task header shown once per task, the ids that carry over between turns, Ctrl-C cancelling a turn (and leaving
// when pressed twice). It has no cobra and no flags: internal/cli puts the terminal in raw mode, builds the
// coder.ChatInput and hands a Session the way to make a turn (follow.Turn and its output.Printer).
//
// It imports client, coder, follow, output and a2a-go; nothing but cli imports it.
package chat
