// Package cli owns the a2a command line: the cobra verbs and their flags, each verb's options struct, the Streams
// they write to, the state of one run (factory: streams, options, the -v log and one client.Dialer, so one HTTP
// client and keep-alive pool per run) and what a finished task means to the user (outcome.go: warnings, --fail).
// Main is the only place errors are printed, as internal/exitcode classifies them (the only place that decides
// exit codes); internal/spinner draws the progress line.
//
// It reaches agents only through internal/client, leaves following a task to its end (stream, resubscribe, poll)
// to internal/follow, the chat session's turn loop to internal/chat, a coding agent's prompts and chat input to internal/coder and the development-tool dialects
// to internal/devtool, renders through internal/output. The serve verb is internal/cli/servecmd (flags → serve.Config
// and a Backend), where each option's value comes from is internal/config, send's message is built by
// internal/message. Nothing imports it but cmd/a2a.
package cli
