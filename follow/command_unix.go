//go:build !windows

package follow

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// errNoPTY says the system has no pseudo-terminals: output is read
// through a pipe.
var errNoPTY = errors.New("no pseudo-terminals here")

// startPTY starts cmd with its standard output and error on a new
// pseudo-terminal, in a session of its own (so that a Ctrl-C meant for
// mcplogd is forwarded once, not delivered twice), and returns the
// terminal's side mcplogd reads and mcplogd's copy of the program's side.
// The caller closes that copy once the program is reaped: were the
// program's the last, its exit could end the reads (EIO) before its last
// lines were read, as it did about once in a thousand runs under load.
// Standard input stays cmd.Stdin (the null device when nil): a
// pseudo-terminal's input would be echoed into the output.
func startPTY(cmd *exec.Cmd) (io.ReadCloser, io.Closer, error) {
	ptm, tty, err := pty.Open()
	if err != nil {
		return nil, nil, errors.Join(errNoPTY, err)
	}
	// Wide, so that a console that wraps long lines at the terminal's
	// width (Wine's conhost does) leaves a crash report's lines whole.
	_ = pty.Setsize(ptm, &pty.Winsize{Rows: 50, Cols: ptyColumns})
	cmd.Stdout, cmd.Stderr = tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		tty.Close()
		ptm.Close()
		return nil, nil, err
	}
	return ptm, tty, nil
}

// waitExit waits for cmd and reads how it ended.
func waitExit(cmd *exec.Cmd) Exit {
	err := cmd.Wait()
	return exitOf(cmd.ProcessState, err)
}

// exitOf reads how a process ended from its state (nil: unknown) and the
// error its Wait returned.
func exitOf(ps *os.ProcessState, err error) Exit {
	if ps == nil {
		return Exit{Code: -1, Signal: "unknown"}
	}
	st, ok := ps.Sys().(syscall.WaitStatus)
	switch {
	case ok && st.Signaled():
		sig := st.Signal()
		return Exit{Code: -1, Signal: unix.SignalName(sig), SignalNumber: int(sig), CoreDumped: st.CoreDump()}
	case ok && st.Exited():
		return Exit{Code: st.ExitStatus()}
	case err != nil:
		return Exit{Code: -1, Signal: "unknown"}
	}
	return Exit{Code: ps.ExitCode()}
}

// forward sends sig to the program's process group (the program and what
// it started).
func forward(p *os.Process, sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	if err := syscall.Kill(-p.Pid, s); err != nil {
		_ = p.Signal(sig)
	}
}

// terminate asks the program to stop.
func terminate(p *os.Process) { forward(p, syscall.SIGTERM) }

// signalName names sig as the exit marker does: "SIGINT".
func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok && unix.SignalName(s) != "" {
		return unix.SignalName(s)
	}
	return sig.String()
}
