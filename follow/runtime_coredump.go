package follow

import (
	"strings"
)

// systemd-coredump's report of a process that dumped core, as the journal
// shows it beneath its prefix ("systemd-coredump[48231]: Process 48211
// (game) of user 1000 dumped core.", then the modules, "Stack trace of
// thread 48211:" and its frames "#0  0x000055d5d5d5d1a9 spawn_enemy (game +
// 0x11a9)", each line indented to the message's column) and as
// `coredumpctl info` prints it (its fields, "PID: 48211 (game)", "Signal:
// 11 (SEGV)", right-aligned to one column, the same message and stack under
// "Message:"). One fatal record: the message its text, the rest its stack.

// coredumpStart reports the first line of systemd-coredump's report: its
// message, or coredumpctl's first field.
func coredumpStart(t string) bool {
	return coredumpMessage(t) || coredumpPID(t)
}

// coredumpMessage reports "Process 48211 (game) of user 1000 dumped core.",
// after the marker newer journalctl puts before a message of several
// lines ("[🡕] ").
func coredumpMessage(t string) bool {
	t = strings.TrimPrefix(t, "[🡕] ")
	return strings.HasPrefix(t, "Process ") && strings.HasSuffix(t, " dumped core.") && strings.Contains(t, ") of user ")
}

// coredumpPID reports coredumpctl's first field: "PID: 48211 (game)".
func coredumpPID(t string) bool {
	rest, ok := strings.CutPrefix(t, "PID: ")
	n := 0
	for n < len(rest) && isDigit(rest[n]) {
		n++
	}
	return ok && n > 0 && strings.HasPrefix(rest[n:], " (") && strings.HasSuffix(rest, ")")
}

// beginCoredump starts the report with its first line t, named by the
// program that dumped core.
func (r *report) beginCoredump(t string, end int64) {
	if coredumpPID(t) {
		r.add(t, end) // coredumpctl's fields: its message, under "Message:", titles it
	} else {
		r.setText(strings.TrimPrefix(t, "[🡕] "))
	}
	if _, after, ok := strings.Cut(t, " ("); ok {
		if comm, _, ok := strings.Cut(after, ")"); ok && comm != "" {
			r.e.setName(comm)
		}
	}
}

// coredump reads the report's further lines: every one indented (s is
// past the journal's prefix, which they do not have), or, where each line
// has the prefix (the kernel's log, when the journal is down), what the
// report says after its message; until another report's fields begin.
func (r *report) coredump(s, t string, end int64) bool {
	if coredumpPID(t) || s == "" || (s[0] != ' ' && s[0] != '\t') && !(r.prefixed && coredumpLine(t)) {
		return false
	}
	if msg, ok := strings.CutPrefix(t, "Message: "); ok && coredumpMessage(msg) {
		r.setText(strings.TrimPrefix(msg, "[🡕] "))
	}
	return r.add(s, end)
}

// coredumpLine reports a line of systemd-coredump's report after its
// message: where the core went, the modules, a thread's heading and its
// frames, the architecture.
func coredumpLine(t string) bool {
	if len(t) > 1 && t[0] == '#' && isDigit(t[1]) {
		return true
	}
	for _, p := range []string{"Stack trace of thread ", "Module ", "Found module ", "Coredump diverted to ", "ELF object binary architecture: "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
