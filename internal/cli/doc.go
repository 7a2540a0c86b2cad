// Package cli owns the a2a command line: the cobra verbs and their flags, each verb's options struct, the Streams
// they write to, the state of one run (factory: streams, options, the -v log and one client.Dialer, so one HTTP
// client and keep-alive pool per run), following a streamed task to its end (turn.go, follow.go, wait.go), and the
// mapping of errors to exit codes (exit.go, the only place that decides them). Main is the only place errors are
// printed.
//
// It reaches agents only through internal/client, leaves a coding agent's prompts and chat input to internal/coder
// and the development-tool dialects to internal/devtool, renders through internal/output and hands servers to
// internal/serve. Nothing imports it but cmd/a2a.
package cli
