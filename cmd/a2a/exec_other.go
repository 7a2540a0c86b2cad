//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
)

// execProgram runs the program name found beside a2a (else on PATH) with args on this process's streams and exits
// with its exit code: without exec(2), a2a stays as its parent (signals reach both through the console).
func execProgram(name string, args []string) error {
	path, err := programPath(name)
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
