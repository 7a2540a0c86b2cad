package servecmd

import (
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
)

// backendFlags is one of serve's backends as the verb knows it. Each lives in a file of its own (serve_echo.go,
// serve_proxy.go, serve_exec.go, serve_replay.go, serve_a3s.go, serve_reference.go) that holds its flags, their
// check and the serve.Backend they build; the verb's code names none of them but in backends.
type backendFlags interface {
	// about is how help and usage errors name the backend.
	about() backendAbout
	// addFlags adds the backend's flags to serve's: the one that chooses it and those that go with it.
	addFlags(cmd *cobra.Command)
	// chosen reports whether the backend's flag was given (checkArgs made sure that one was, and only one).
	chosen() bool
	// check validates the backend's flags before the server is built, chosen or not: those that go with it are
	// refused without it. v.cfg holds the options checked so far (listener, card, store).
	check(v *verb) error
	// build checks what is left of the chosen backend's flags and returns the backend serve.Run runs.
	build(v *verb) (serve.Backend, error)
	// close releases what build opened (a recording file), once serve.Run returned.
	close()
}

// backends are serve's backends, in the order help and usage errors name them. A new backend is one package
// under internal/serve and one file here, named in this list.
func backends() []backendFlags {
	return []backendFlags{&echoFlags{}, &proxyFlags{}, &execFlags{}, &replayFlags{}, &a3sFlags{}, &referenceFlags{}}
}

// backendAbout is how help and usage errors name a backend.
type backendAbout struct {
	flag  string // the flag that chooses it: "exec"
	use   string // its choice in serve's usage line: "--exec <command>"
	help  string // its lines in serve's long help, each indented and ending in a newline
	needs string // what its flag's value is, in one word: "CMD"; "" for a boolean flag
	does  string // what it does, in a few words, for the error naming every backend
	// value says what the flag's value is at more length, for the error of one given none or a flag as its
	// value: "the upstream agent's URL: --proxy http://localhost:9999".
	value string
	// risky says the backend runs something on the caller's behalf (a command, a forwarded call, a coding agent):
	// beyond loopback it needs a --token.
	risky bool
}

// verb is what a backend's check and build get from the serve verb.
type verb struct {
	cmd *cobra.Command
	d   Deps
	cfg *serve.Config // the options checked so far
}

// changed reports whether a flag was set, on the command line or from the environment or a dotenv file.
func (v *verb) changed(flag string) bool { return v.cmd.Flags().Changed(flag) }

// given reports whether a flag was on the command line (see Deps.Given).
func (v *verb) given(flag string) bool { return v.d.Given == nil || v.d.Given(flag) }

// noClose is the close of a backend that opens nothing.
type noClose struct{}

func (noClose) close() {}
