// Package testskip skips a test for a tool the machine lacks (chromium, node, PostgreSQL, jq) and records the skip,
// so that `make test` can end with one line naming each group of tests skipped and how to install what they need.
// A plain `go test` shows the skips with -v only; the record is what makes them visible.
//
// The record is a file named by $A2A_SKIP_LOG (the Makefile sets it to a temporary file it reads after go test):
// one line per skipped test, "group<TAB>install<TAB>test name". Without the variable nothing is written.
//
// It is imported only from tests and test helpers, and imports nothing of this repository.
package testskip

import (
	"fmt"
	"os"
	"strings"
)

// EnvLog names the file skips are appended to.
const EnvLog = "A2A_SKIP_LOG"

// The groups of tests that need a tool, and the line that installs it (Debian's packages, as .ci/run installs them).
const (
	Chromium   = "chromium"
	Node       = "node/npm"
	PostgreSQL = "PostgreSQL"
	JQ         = "jq"
	Keyring    = "Secret Service"
	HAProxy    = "haproxy"
)

var install = map[string]string{
	Chromium:   "apt-get install chromium",
	Node:       "apt-get install nodejs npm",
	PostgreSQL: "apt-get install postgresql",
	JQ:         "apt-get install jq",
	Keyring:    "apt-get install gnome-keyring dbus-daemon",
	HAProxy:    "apt-get install haproxy",
}

// Install is the command that installs what group needs.
func Install(group string) string { return install[group] }

// TB is the part of testing.TB a skip uses.
type TB interface {
	Helper()
	Name() string
	Skip(args ...any)
}

// Missing records that t is skipped because group's tool is missing, then skips it with why.
func Missing(t TB, group, why string) {
	t.Helper()
	Record(t.Name(), group)
	t.Skip(why)
}

// Record appends one skip of the test name in group to the skip log, if there is one. A log that cannot be written
// is ignored: the summary is a courtesy, the skip itself is what matters.
func Record(name, group string) {
	path := os.Getenv(EnvLog)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	// One write per line: appends of a few dozen bytes from parallel test binaries do not interleave.
	line := fmt.Sprintf("%s\t%s\t%s\n", group, install[group], strings.ReplaceAll(name, "\t", " "))
	f.WriteString(line) //nolint:errcheck // see above
}
