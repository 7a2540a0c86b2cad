// Package servecmd is the `a2a serve` verb: its flags and their checks, the translation of the flags into a
// serve.Config (listener, card, guard, operators' options, store) and the choice of the Backend (echo, exec,
// proxy with --record, replay, the A3S bridge, the inspector page of --ui). It prints nothing itself: serve.Run
// writes the traffic log to Deps.Err, and errors go back to the CLI, which maps them to exit codes.
//
// It takes the run's client options and dialer from internal/cli through Deps; it must not import internal/cli,
// and nothing but internal/cli imports it.
package servecmd
