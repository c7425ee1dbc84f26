package follow

import "strings"

// Mono's native crash report, which it prints when a signal hits native
// code (a plugin's, the runtime's), before it aborts: sections between
// rulers of '=', each under a tab-indented heading:
//
//	=================================================================
//		Native Crash Reporting
//	=================================================================
//	Got a SIGSEGV while executing native code. This usually indicates
//	a fatal error in the mono runtime or one of the native libraries
//	used by your application.
//	=================================================================
//
//	=================================================================
//		Native stacktrace:
//	=================================================================
//		0x560216e2a03c - mono : (null)
//	…
//		Managed Stacktrace:
//	=================================================================
//		  at <unknown> <0xffffffff>
//		  at Game:SpawnEnemy <0x00047>
//	=================================================================
//
// One fatal record: its text the signal's sentence, its stack the native
// and the managed frames under their headings; the other sections (the
// telemetry dumper's, gdb's dump of every thread, the bytes around the
// fault) are left out. Unity's editor prints it too, before its own
// report. The ruler is held until the heading shows (runtimeLayer.begin).

const monoNativeCrash = "Native Crash Reporting"

// monoSection is what the report reads now.
const (
	monoContent int8 = iota // a section's lines
	monoBetween             // after the ruler that closes a section: a blank line, a ruler or a heading
	monoHeading             // after a heading: its ruler
)

// beginMono starts the report at its heading.
func (r *report) beginMono() {
	r.setText(monoNativeCrash)
	r.state, r.keep = monoHeading, false
}

// mono adds a line of the report.
func (r *report) mono(s, t string, end int64) bool {
	switch {
	case isRuler(t):
		if r.state == monoHeading {
			r.state = monoContent
		} else {
			r.state = monoBetween
		}
		return true
	case r.state == monoBetween && strings.HasPrefix(s, "\t"):
		r.state = monoHeading // a section's heading
		r.keep = t == "Native stacktrace:" || t == "Managed Stacktrace:"
		r.managed = r.managed || t == "Managed Stacktrace:"
		r.dump = t == "External Debugger Dump:"
		if r.keep {
			return r.add(t, end)
		}
		return true
	case r.state == monoBetween && !r.managed && r.dropped < maxEntryLines && startOfAny(t) == rtNone:
		// gdb writes its dump on standard error while Mono goes on on
		// standard output: its lines come between Mono's sections too,
		// until the managed frames, Mono's last.
		r.dropped++
		return true
	case r.state == monoBetween:
		return false // what follows the report
	case r.e.rec.Text == monoNativeCrash:
		if sentence, _, ok := strings.Cut(t, ". "); ok && strings.HasPrefix(t, "Got a ") {
			r.setText(sentence) // "Got a SIGSEGV while executing native code"
		}
		return true
	case r.keep:
		return r.add(s, end)
	case !r.dump && startOfAny(t) != rtNone:
		return false // another report: this one had no managed frames (Android's)
	}
	return true
}

// startOfAny is the report t begins, known by its first words or not.
func startOfAny(t string) rtKind {
	k, _ := startOf(t)
	return k
}
