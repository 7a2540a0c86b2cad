// Package follow follows a task to its end for the CLI: it streams a turn (Turn.Run), resubscribes when the stream
// ends or breaks before a terminal or interrupted state, polls GetTask when resubscribing fails (Env.PollTask) and
// asks GetTask when a stream stays silent longer than --timeout; it answers a coding agent's permission prompts on
// the way (through coder.Prompts) and keeps what a client needs at the end (View). It owns the wait's bounds
// (--poll-interval, --wait: Wait), the errors of a task given up on while it may still run (LiveTaskError, with the
// commands that follow it up), --save for streams and answers (Saver, SaveFiles), and telling the agent's answer to
// a follow-up on an existing task from the task as it stood before it (FollowUp).
//
// It reaches agents only through internal/client, learns the dialects from internal/devtool and renders through
// the Printer it is given. It must not import cobra or internal/cli: flags, exit codes and the outcome of a task
// (warnings, --fail) stay with the CLI.
package follow
