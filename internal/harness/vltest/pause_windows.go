package vltest

import (
	"os"

	"golang.org/x/sys/windows"
)

// ntdll's NtSuspendProcess and NtResumeProcess suspend and resume every
// thread of a process, as SIGSTOP and SIGCONT do; Windows has no signal for it.
var (
	ntSuspendProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtSuspendProcess")
	ntResumeProcess  = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")
)

// suspend suspends p's threads.
func suspend(p *os.Process) { callOn(p, ntSuspendProcess) }

// resume resumes p's threads.
func resume(p *os.Process) { callOn(p, ntResumeProcess) }

func callOn(p *os.Process, proc *windows.LazyProc) {
	h, err := windows.OpenProcess(windows.PROCESS_SUSPEND_RESUME, false, uint32(p.Pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	_, _, _ = proc.Call(uintptr(h))
}
