package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Valgrind's tools (Memcheck, Helgrind, DRD) print every line of theirs
// behind the program's pid, "==27172== ", and each report as a block of
// them up to one with nothing after the pid:
//
//	==27172== Invalid write of size 4
//	==27172==    at 0x1091E2: spawn_enemy (game.c:9)
//	==27172==    by 0x109286: main (game.c:14)
//	==27172==  Address 0x0 is not stack'd, malloc'd or (recently) free'd
//	==27172==
//
// A block with frames is one record: its first line the text, the rest
// (past the pid) its stack; "Process terminating with default action of
// signal 11 (SIGSEGV)" is fatal (a warning when the signal asked the
// program to stop: SIGINT, SIGTERM, SIGHUP), a leak that is not sure ("possibly lost",
// "still reachable") a warning, the thread announcements Helgrind makes
// info, any other error. A block without frames (the banner, the heap and
// error summaries) is a candidate until its end, its lines read as they
// came. Helgrind's race goes on, after a blank, with the access it
// conflicts with.

// valgrindTermination begins Valgrind's report of the signal the program
// dies of.
const valgrindTermination = "Process terminating with default action of signal "

// valgrindLine splits a line of Valgrind's: its pid and what follows the
// pid's one space (indentation kept); ok is false for any other line.
func valgrindLine(t string) (pid, rest string, ok bool) {
	if len(t) < 5 || t[0] != '=' || t[1] != '=' {
		return "", "", false
	}
	i := 2
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if i == 2 || !strings.HasPrefix(t[i:], "==") {
		return "", "", false
	}
	pid, rest = t[2:i], t[i+2:]
	if rest != "" {
		if rest[0] != ' ' {
			return "", "", false // AddressSanitizer's "==1234==ERROR: …"
		}
		rest = rest[1:]
	}
	return pid, rest, true
}

// valgrindBlank reports a line of Valgrind's with nothing after its pid.
func valgrindBlank(line string) bool {
	_, rest, ok := valgrindLine(trimRight(line))
	return ok && rest == ""
}

// valgrindStart reports the first line of a block of Valgrind's: a line of
// its with text at the pid's column.
func valgrindStart(t string) bool {
	_, rest, ok := valgrindLine(t)
	return ok && rest != "" && rest[0] != ' ' && rest[0] != '\t'
}

// valgrindFrameLine reports a frame of Valgrind's, past the pid: "at
// 0x1091E2: spawn_enemy (game.c:9)", "by 0x109286: main (game.c:14)".
func valgrindFrameLine(t string) bool {
	t = trimLeft(t)
	return (strings.HasPrefix(t, "at 0x") || strings.HasPrefix(t, "by 0x")) && strings.Contains(t, ": ")
}

// valgrindLevel is the level of the report a block's first line heads.
func valgrindLevel(head string) oplog.Level {
	switch {
	case strings.HasPrefix(head, valgrindTermination):
		if sig, _, _ := strings.Cut(head[len(valgrindTermination):], " "); sig == "1" || sig == "2" || sig == "15" {
			return oplog.LevelWarn // SIGHUP, SIGINT, SIGTERM: it was asked to stop (Ctrl-C)
		}
		return oplog.LevelFatal
	case strings.Contains(head, " are possibly lost in loss record "), strings.Contains(head, " are still reachable in loss record "):
		return oplog.LevelWarn
	case strings.HasPrefix(head, "Thread #") && (strings.HasSuffix(head, " was created") || strings.HasSuffix(head, " is the program's root thread")),
		strings.HasPrefix(head, "Lock at ") && strings.HasSuffix(head, " was first observed"):
		return oplog.LevelInfo // Helgrind's announcements of what its reports name
	}
	return oplog.LevelError
}

// beginValgrind starts a block of Valgrind's, held as it came until a
// frame shows it is a report.
func (r *report) beginValgrind(line, t string, end int64) {
	pid, head, _ := valgrindLine(t)
	r.head = pid
	r.confirmed = false
	r.raw, r.rawEnds = append(r.raw, line), append(r.rawEnds, end)
	r.e.rec.Level = valgrindLevel(head)
	r.setText(head)
}

// valgrind adds a line of the same pid to its block. The line with nothing
// after the pid ends it, except after Helgrind's race, whose conflicting
// access follows.
func (r *report) valgrind(t string, end int64) bool {
	pid, rest, ok := valgrindLine(t)
	if !ok || pid != r.head {
		return false
	}
	switch {
	case r.state == stVgBlank:
		if !strings.HasPrefix(rest, "This conflicts with ") {
			return false
		}
		r.state = stFrames
	case rest == "" && r.confirmed && strings.HasPrefix(r.e.rec.Text, "Possible data race "):
		r.state = stVgBlank
		r.e.end = end
		return true
	case rest == "":
		r.e.end, r.done = end, true
		return true
	case valgrindFrameLine(rest):
		r.confirmed = true
	}
	return r.add(rest, end)
}

// valgrindAbort reads Valgrind's report of the abort a native crash's
// line without frames explained (C++'s terminate, the stack protector),
// "Process terminating with default action of signal 6 (SIGABRT)" and its
// frames, as that line's stack: one record, the line's message and the
// frames where it was thrown. ok is false for a line that is not
// Valgrind's, or not of that report; taken is whether the report took it.
func (r *report) valgrindAbort(t string, end int64) (taken, ok bool) {
	pid, rest, ok := valgrindLine(trimRight(t))
	switch {
	case !ok:
		return false, r.vgPid != ""
	case r.vgPid != "":
		if pid != r.vgPid {
			return false, true
		}
		if rest == "" {
			r.e.end, r.done = end, true
			return true, true
		}
		return r.add(rest, end), true
	case rest == "":
		r.e.blank(end) // its blank line before the report
		return true, true
	case strings.HasPrefix(rest, valgrindTermination):
		r.vgPid = pid
		return r.add(rest, end), true
	}
	return false, true
}
