//go:build !unix

package everything

import (
	"os"
	"os/exec"
)

// ownGroup does nothing: without Unix process groups, killGroup kills
// the process alone (server-everything starts no other).
func ownGroup(*exec.Cmd) {}

// killGroup kills p.
func killGroup(p *os.Process) { _ = p.Kill() }
