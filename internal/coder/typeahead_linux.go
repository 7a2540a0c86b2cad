package coder

import "golang.org/x/sys/unix"

// discardTypeahead drops the input a terminal received but nobody read yet (tcflush TCIFLUSH).
func discardTypeahead(fd int) {
	_ = unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) // best effort: a terminal that refuses keeps its input
}
