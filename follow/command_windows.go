package follow

import (
	"errors"
	"io"
	"os"
	"os/exec"
)

// errNoPTY says the system has no pseudo-terminals: on Windows output is
// read through a pipe.
var errNoPTY = errors.New("no pseudo-terminals here")

func startPTY(*exec.Cmd) (io.ReadCloser, io.Closer, error) { return nil, nil, errNoPTY }

// waitExit waits for cmd and reads its exit status.
func waitExit(cmd *exec.Cmd) Exit {
	err := cmd.Wait()
	return exitOf(cmd.ProcessState, err)
}

// exitOf reads a process's exit status from its state (nil: unknown).
func exitOf(ps *os.ProcessState, _ error) Exit {
	if ps == nil {
		return Exit{Code: -1, Signal: "unknown"}
	}
	return Exit{Code: ps.ExitCode()}
}

// forward passes an interrupt on as the only stop Windows has.
func forward(p *os.Process, sig os.Signal) { _ = p.Kill() }

// terminate stops the program.
func terminate(p *os.Process) { _ = p.Kill() }

// signalName names sig as the exit marker does.
func signalName(sig os.Signal) string { return sig.String() }
