package main

import (
	"os"
	"os/exec"
	"path/filepath"
)

// programPath finds the program name beside this executable, else on PATH.
func programPath(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return exec.LookPath(name)
}
