package crash

import "strings"

// gdb, stopping a program on a signal, says where after its headline: the
// place ("0x0000555555555774 in spawn_enemy (w=…) at game.c:112", or
// without the address at a line's first instruction, "__strcpy_evex () at
// ../sysdeps/x86_64/multiarch/strcpy-evex.S:599") and the source line
// ("112", a tab, the line). `bt` then lists the frames from #0, the same
// place first.

// gdbStops returns stack with gdb's stop read as a frame: dropped, with
// its source line, when `bt`'s frames follow (its #0 says it again), else
// numbered #0. The place is never a stack's head: one place would make the
// same head of a SIGSEGV and a SIGFPE there. Any other stack is returned
// as it is.
func gdbStops(stack string) string {
	first, _, _ := strings.Cut(stack, "\n")
	if !strings.Contains(stack, "Program received signal ") && !strings.Contains(stack, "Program terminated with signal ") &&
		!gdbStopLine(strings.TrimSpace(first)) {
		return stack
	}
	var b strings.Builder
	prev, dropping, start := "", false, true
	listed := strings.Contains(stack, "\n#0 ")
	for line := range strings.Lines(stack) {
		s := strings.TrimSpace(line)
		afterHeadline := start || strings.HasPrefix(prev, "Program received signal ") || strings.HasPrefix(prev, "Program terminated with signal ")
		start = false
		switch {
		case afterHeadline && gdbStopLine(s) && listed:
			dropping = true
		case afterHeadline && gdbStopLine(s):
			b.WriteString("#0  " + line)
		case dropping && gdbSourceLine(s):
		default:
			dropping = false
			b.WriteString(line)
		}
		prev = s
	}
	return b.String()
}

// gdbStopLine reports gdb's place of its stop: "0x… in f (…) at
// file:line", "f (…) at file:line".
func gdbStopLine(s string) bool {
	if addr, _, ok := strings.Cut(s, " in "); ok && isHexStart(addr, 0) && skipHex(addr, 0) == len(addr) {
		return true
	}
	i := strings.Index(s, ") at ")
	return i > 0 && s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] == '_') && strings.Index(s[:i], " (") > 0 && isDigit(s[len(s)-1])
}

// gdbSourceLine reports gdb's echo of the source line it stopped at: its
// number, a tab, the line.
func gdbSourceLine(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '\t'
}
