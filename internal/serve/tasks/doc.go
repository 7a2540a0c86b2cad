// Package tasks keeps the tasks of `a2a serve` and runs their turns: the Store (in memory, with
// retention and a per-task artifact budget), the Runner that starts a turn on a message, fans its
// events out to subscribers and push webhooks (the Pusher) in order and cancels it, and the
// Handler, the a2asrv.RequestHandler over a Runner that echo and exec are served by.
//
// Every agent uses the same API: a backend with an Agent (echo, exec) gets its turns run by
// Handler.SendMessage and friends; one that decides a turn before it starts (replay) calls
// Runner.Start with the turn's script (StartOptions.Run). Only the Store takes its lock: the
// runner, the handler and the push methods reach records through Store methods (storeturn.go,
// push.go).
//
// It must not import package serve or its other subpackages (hotpath, proxy, replay), cobra or the
// CLI; it imports a2a-go and the standard library. A stream's response writer that wants to know
// how many events wait (hotpath's flush gate) is a FlushHint the handler is given (WithFlushHints).
package tasks
