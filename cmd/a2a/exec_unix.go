//go:build unix

package main

import (
	"os"
	"syscall"
)

// execProgram replaces this process with the program name found beside a2a (else on PATH), run with args: its
// streams, environment, signals and exit code are the user's, with no a2a process in between.
func execProgram(name string, args []string) error {
	path, err := programPath(name)
	if err != nil {
		return err
	}
	return syscall.Exec(path, append([]string{name}, args...), os.Environ())
}
