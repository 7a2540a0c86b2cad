// Package exec runs a subprocess for a backend: it starts a shell command in its own process group, feeds its
// stdin, drains its stderr into a bounded tail, and splits its stdout into delimiter-separated chunks with
// [Chunker]. It owns the whole life of the process group: every path (normal exit, [Process.Stop], context
// cancellation) ends with the group terminated and the child reaped, so no zombie or orphan is left behind.
// On Linux a running child costs no goroutine here: its exit (pidfd) and its stderr are watched by the one
// shared goroutine of package fdwatch. After [Guard], it also answers for what a command leaves outside its
// group (setsid), and for the commands' lives when this process is killed.
//
// The package must not know that A2A exists and imports the standard library, golang.org/x/sys/unix
// and internal/fdwatch only.
package exec
