// Package servecmd is the `a2a serve` verb: its flags and their checks, the translation of the flags into a
// serve.Config (listener, card, guard, operators' options, store, the inspector page of --ui) and the choice of
// the Backend. Each backend has one file here (serve_echo.go, serve_proxy.go with --record, serve_exec.go,
// serve_replay.go, serve_a3s.go) holding its flags, their check and the backend they build, and is named once in
// backends() (backend.go), from which help and usage errors list them. It prints nothing itself: serve.Run
// writes the traffic log to Deps.Err, and errors go back to the CLI, which maps them to exit codes.
//
// It takes the run's client options and dialer from internal/cli through Deps; it must not import internal/cli,
// and nothing but internal/cli imports it.
package servecmd
