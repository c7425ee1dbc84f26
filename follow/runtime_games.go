package follow

import (
	"strings"
)

// Crash handlers of C and C++ games, which print their own report of the
// signal (or Windows' exception) that is killing the game, then its
// frames as backtrace_symbols, dbghelp or gdb give them:
//
//	The program has crashed.                    Cataclysm: DDA, on its standard error and in config/crash.log
//	See the log file for a stack trace.         (the file begins at "CRASH LOG FILE: ")
//	CRASH LOG FILE: ./config/crash.log
//	VERSION: 0.E-4155-g9f82fd3
//	TYPE: Signal
//	MESSAGE: SIGSEGV: Segmentation fault
//	STACK TRACE:
//	    ./cataclysm-tiles(_ZN4game7do_turnEv+0x251) [0xbfd98d]
//
//	Yamagi Quake II crashed! This should not happen...   its banner, then "Product:", "Signal:       11",
//	Backtrace:                                           and the frames indented by two
//
//	Crash report for Widelands 1.3.1 RelWithDebInfo logic thread at 2026-04-04T22.12.20, signal 11 (Segmentation fault)
//	**** BEGIN BACKTRACE ****                            (its crash file; the frames between the rulers)
//
//	*** Fatal Error ***                                  OpenMW's crash catcher: the signal's line next,
//	Address not mapped to object (signal 11)             "Address:", the system, then gdb's report
//
// One fatal record: its text the signal as the report says it
// ("SIGSEGV: Segmentation fault", "Yamagi Quake II crashed! Signal: 11",
// "signal 11 (Segmentation fault)", "Address not mapped to object (signal
// 11)"), its stack the report's lines.

// Games' crash reports.
const (
	cddaCrashed   = "The program has crashed."
	cddaLogFile   = "CRASH LOG FILE: "
	yq2Crashed    = "Yamagi Quake II crashed!"
	yq2Product    = "Product:      Yamagi Quake II"
	widelandsHead = "Crash report for Widelands "
	widelandsEnd  = "**** END BACKTRACE ****"
	openmwFatal   = "*** Fatal Error ***"
	yq2Banner     = 40 // lines of Yamagi Quake II's banner and fields, at most, before its "Backtrace:"
)

// gameCrashStart reports the first line of a game's crash report.
func gameCrashStart(t string) bool {
	if t == "" {
		return false
	}
	switch t[0] {
	case 'T':
		return t == cddaCrashed
	case 'C':
		return strings.HasPrefix(t, cddaLogFile) || strings.HasPrefix(t, widelandsHead) && strings.Contains(t, ", signal ")
	case 'Y':
		return strings.HasPrefix(t, yq2Crashed)
	case 'P':
		return t == yq2Product
	case '*':
		return t == openmwFatal
	}
	return false
}

// beginGameCrash starts the report with its first line t.
func (r *report) beginGameCrash(t string, end int64) {
	r.add(t, end)
	r.head = t // which game's: its next lines are read by it
	r.state = stHead
	switch {
	case strings.HasPrefix(t, widelandsHead):
		r.setText(t[strings.LastIndex(t, ", signal ")+2:])
	}
}

// gameCrash reads the report's further lines: Cataclysm's fields and its
// indented frames; Yamagi Quake II's banner, fields and frames; Widelands'
// frames up to its closing ruler; OpenMW's every line (the rest of its
// crash log is gdb's).
func (r *report) gameCrash(s, t string, end int64) bool {
	first := r.head
	switch {
	case first == cddaCrashed || strings.HasPrefix(first, cddaLogFile):
		if msg, ok := strings.CutPrefix(t, "MESSAGE: "); ok {
			r.setText(msg)
		} else if !cddaField(t) && t != "See the log file for a stack trace." && indentation(s) == 0 {
			return false
		}
	case strings.HasPrefix(first, yq2Crashed) || first == yq2Product:
		if sig, ok := strings.CutPrefix(t, "Signal:"); ok {
			r.setText(yq2Crashed + " Signal: " + strings.TrimSpace(sig))
		}
		backtrace := r.state == stFrames
		if backtrace && indentation(s) == 0 || !backtrace && r.e.lines > yq2Banner {
			return false // the frames ended (the shell's "Segmentation fault" is its own), or never came
		}
		if t == "Backtrace:" {
			r.state = stFrames
		}
	case strings.HasPrefix(first, widelandsHead):
		r.done = t == widelandsEnd
	case first == openmwFatal:
		if r.state == stHead { // the signal's line
			r.state = stFrames
			r.setText(t)
			if strings.HasPrefix(t, "(signal ") {
				r.setText(strings.Trim(t, "()")) // older builds name no cause: " (signal 6)"
			}
		}
	}
	return r.add(s, end)
}

// cddaField reports a field of Cataclysm's report: "VERSION: …", "TYPE:
// Signal", "STACK TRACE:".
func cddaField(t string) bool {
	key, _, ok := strings.Cut(t, ":")
	return ok && key != "" && strings.ToUpper(key) == key && len(key) <= len("CRASH LOG FILE")
}
