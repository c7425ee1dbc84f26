package follow

import "strings"

// Wine's crash report: a Windows game run under Wine (or Proton) that
// faults gets ntdll's line "wine: Unhandled page fault on write access to
// 0000000000000004 at address 00000001400015F5 (thread 0024), starting
// debugger...", then, when winedbg runs, its report: "Unhandled exception:
// page fault on write access to 0x0000000000000004 in 64-bit code
// (0x000001400015f5).", the registers, a stack dump, the backtrace ("=>0
// 0x000001400015f5 damage_enemy+0x34(…) [Z:\src\main.c:13] in game
// (0x…)"), the faulting instruction and source line, the modules, the
// threads and the system. Wine's own debug lines ("0104:err:winediag:…")
// from other processes come between. It is one fatal record: its text the
// report's headline (ntdll's line when no report follows, as under Proton,
// which has no winedbg), its stack every line after (crash.Parse reads
// the backtrace in it).

// wineStart reports ntdll's line that a Windows program faulted, or that
// its stack overflowed ("0024:err:virtual:virtual_setup_exception stack
// overflow 1808 bytes addr 0x1700312a2 …", Wine's only word of it).
func wineStart(t string) bool {
	return strings.HasPrefix(t, "wine: Unhandled ") && strings.Contains(t, " at address ") || wineStackOverflow(t)
}

// wineStackOverflow reports Wine's line that a thread's stack overflowed.
func wineStackOverflow(t string) bool {
	return strings.Contains(t, "err:virtual:virtual_setup_exception stack overflow ") && wineDebugLine(t)
}

// wineHeadline reports winedbg's headline: "Unhandled exception: page
// fault on read access to 0x00000000 in 32-bit code (0x007480db).".
func wineHeadline(t string) bool {
	return strings.HasPrefix(t, "Unhandled exception: ") && strings.Contains(t, "-bit code (")
}

// wine adds a line to Wine's report when it is one of the report's, or a
// Wine debug line between them; its system information's last line ends
// it.
func (r *report) wine(s, t string, end int64) bool {
	switch {
	case wineHeadline(t) && r.state == stWineWait:
		r.setText(t)
		r.state = stWineReport
	case wineDebugLine(t) && !wineStackOverflow(t):
	case r.state == stWineWait:
		return false // no report came: ntdll's line is the crash
	case strings.HasPrefix(t, "Host version:"):
		r.done = true
	case !wineReportLine(s, t):
		return false
	}
	return r.add(s, end)
}

// wineDebugLine reports a line of Wine's debug channels:
// "0104:err:winediag:nodrv_CreateWindow …", "fixme:dbghelp:…".
func wineDebugLine(t string) bool {
	if i := strings.IndexByte(t, ':'); i == 4 && isHex(t[:4]) {
		t = t[5:]
	}
	for _, c := range []string{"err:", "fixme:", "warn:", "trace:"} {
		if strings.HasPrefix(t, c) {
			return true
		}
	}
	return false
}

// wineReportLine reports a line of winedbg's report after its headline.
func wineReportLine(s, t string) bool {
	switch {
	case indentation(s) > 0, // registers, frames after the first, threads, the system
		t == "Register dump:", t == "Stack dump:", t == "Backtrace:", t == "Modules:", t == "Threads:", t == "System information:",
		strings.HasPrefix(t, "process  tid"),
		strings.HasPrefix(t, "=>"), // the frame of the fault
		strings.HasPrefix(t, "0x"), // the stack dump, the faulting instruction
		strings.HasPrefix(t, "Module\t") || strings.HasPrefix(t, "PE") || strings.HasPrefix(t, "ELF"),
		strings.HasPrefix(t, "Unable to access memory"), strings.HasPrefix(t, "<"):
		return true
	}
	// The source line of the fault ("13\t    e->x = -1;"), a process of
	// the thread list ("00000020 (D) Z:\game.exe", "00000038 services.exe").
	if i := strings.IndexAny(t, "\t "); i > 0 && isDigits(t[:i]) && t[i] == '\t' {
		return true
	}
	return len(t) > 9 && t[8] == ' ' && isHex(t[:8])
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
