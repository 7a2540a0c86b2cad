// Package replay is the replay backend of `a2a serve`: recordings (JSON Lines of StreamResponse
// objects, parsed by ParseRecording), the replay agent that serves them turn by turn on the task
// runner (package serve/tasks: each turn's recorded events are the script handed to Runner.Start),
// the Gemini server's connection rule (replayconn.go, through serve.ConnHooks), the recordings'
// slash commands (served in front of the bindings through serve.Parts.Front), and Record, which
// wraps any backend to write the traffic it serves as a recording.
//
// Dialect knowledge (which metadata marks development-tool traffic, how an aborted tool call reads)
// comes from package devtool. It must not import the CLI, cobra or the proxy's internals; it reaches
// the server only through serve's exported Backend API.
package replay
