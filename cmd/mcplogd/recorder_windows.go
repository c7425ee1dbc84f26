//go:build windows

package main

import (
	"os/exec"
	"syscall"
)

// detachedProcess is DETACHED_PROCESS: no console, so closing the agent's
// console does not end the recorder.
const detachedProcess = 0x00000008

// detach starts cmd in a process group of its own, without a console, so
// that the agent's end and its Ctrl-C do not stop the recorder.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}
