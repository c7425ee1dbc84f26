//go:build !linux

package main

import (
	"os"

	"github.com/creack/pty"
)

// openPTY opens a pseudo-terminal pair: what a program writes to tty, the
// test reads from ptm. creack/pty's, which opens none on Windows: the
// terminal tests skip there.
func openPTY() (ptm, tty *os.File, err error) { return pty.Open() }
