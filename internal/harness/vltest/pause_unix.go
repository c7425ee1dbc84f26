//go:build unix

package vltest

import (
	"os"
	"syscall"
)

// suspend stops p (SIGSTOP).
func suspend(p *os.Process) { _ = p.Signal(syscall.SIGSTOP) }

// resume continues p (SIGCONT).
func resume(p *os.Process) { _ = p.Signal(syscall.SIGCONT) }
