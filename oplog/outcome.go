package oplog

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// How a run ends. The Store keeps each run's outcome up to date as it
// appends the run's records (RunInfo.Add), never from a quiet period: a run
// is running until one of its records, or the next run, says otherwise.
//
//	crashed  a fatal record (an engine's crash handler, a native crash
//	         dump, an uncaught script error that stopped the engine, a
//	         Minecraft crash report, an upstream's stored traceback), or
//	         an exit marker at level error or fatal (a failing exit status,
//	         a signal), or the next run's start right after an error with
//	         a stack that ended it (below). Final: nothing after a crash
//	         undoes it.
//	exited   an exit marker at level info: status 0, a stop mcplogd asked
//	         for, or the engine's own clean-shutdown line. A crash after
//	         it (an engine that crashes while shutting down) still makes
//	         the run crashed.
//	ended    the next run began (but after an error with a stack that
//	         ended the run), or an end marker said mcplogd stopped
//	         reading with no sign of either (an import's end, a follower
//	         that stopped, a rotated file). More records of the run after
//	         an end marker make it running again: the game went on.
//	running  none of these yet.
//
// Which record is the crash (RunInfo.CrashID): the first fatal record; for
// a signal, its exit marker; the record an exit marker names as what its
// status reports (exitCause). A failing exit status names the error with a
// stack printed just before it: the run's last record before the exit
// marker, or a traceback at most exitAfterErrorRecords records and
// exitAfterErrorTime before it (an exception's notes, an exit handler's
// line, a destructor's ignored exception come after it as Python exits).
// An uncaught exception is the last thing a program prints, and the status
// only reports it. So is a Python KeyboardInterrupt before its SIGINT. An
// error the program printed and went on after (a missing texture at every
// start) is never the crash: the exit marker is. A run that ends without
// an exit marker is crashed only when it ends just after an error with a
// stack, as above, that ended it: a Python traceback (it looks the same
// whether uncaught or printed by traceback.print_exc(); the end of the
// program right after it tells them apart), or any such error while a call
// to the game was unanswered (the game never answered it: it died). An
// engine's error with a stack (Unity's exceptions, Godot's script errors)
// never stops the game: a player who quits while one repeats every frame
// ends the run on it, and the run ended. That error is the crash. Only the
// next run's start, or the end of an imported log (ReasonImportEnded: the
// log was written to its end, and a traceback is its very last record), says
// the program ended there: another end marker says only that mcplogd
// stopped reading (a follower stopped while the game runs on), and an
// import that ends with an exception Unity logged and went on after ended
// as any other, so a run such a marker ends is ended.
const (
	OutcomeRunning = "running"
	OutcomeCrashed = "crashed"
	OutcomeExited  = "exited"
	OutcomeEnded   = "ended"
)

// Outcomes lists the outcomes, in the order of their codes in a store.
var Outcomes = []string{OutcomeRunning, OutcomeCrashed, OutcomeExited, OutcomeEnded}

// Add counts r, a record of the run with its ID set, and updates the run's
// outcome.
func (info *RunInfo) Add(r *Record) {
	if info.Records == 0 && info.FirstID == 0 {
		info.Start, info.FirstID = r.Time, r.ID
	}
	info.LastID = r.ID
	info.Records++
	if r.Kind == KindOp && !r.IsComplete() {
		info.InFlight++
	}
	if r.Time.After(info.Last) {
		info.Last = r.Time
	}
	if r.Level >= LevelError {
		info.Errors++
	}
	if r.Level >= LevelError && r.Stack != "" && r.ID > info.ErrorID {
		info.ErrorID, info.ErrorTime, info.AfterError = r.ID, time.Time{}, 0
		if traceback(r.Stack) && !GoesOnAfter(r.Text) {
			info.ErrorTime = r.Time
		}
	} else if info.ErrorID != 0 {
		info.AfterError++
	}
	info.observe(r)
}

// Completed updates the run for r, one of its operations, completed in
// place from level old. A failed operation is an error, never a crash: an
// upstream's crash is a fatal line the gateway appends.
func (info *RunInfo) Completed(r *Record, old Level) {
	if info.InFlight > 0 {
		info.InFlight--
	}
	switch was, is := old >= LevelError, r.Level >= LevelError; {
	case is && !was:
		info.Errors++
	case was && !is && info.Errors > 0:
		info.Errors--
	}
	if r.Level >= LevelError && r.Stack != "" && r.ID > info.ErrorID {
		// Completed in place: it is the run's last record only when no
		// record of the run came after it.
		info.ErrorID, info.ErrorTime, info.AfterError = r.ID, time.Time{}, 0
		if r.ID != info.LastID {
			info.AfterError = exitAfterErrorRecords + 1
		}
	}
}

// Next ends a running run: the next run of its source began with r. A run
// that ends just after a traceback, or just after an error with a stack
// while a call was in flight, crashed of that error.
func (info *RunInfo) Next(r *Record) {
	if info.Outcome == OutcomeRunning || info.Outcome == "" {
		info.Outcome, info.EndID, info.End = OutcomeEnded, r.ID, info.Last
		if info.justAfterError(info.Last, 0) && (!info.ErrorTime.IsZero() || info.InFlight > 0) {
			info.Outcome, info.CrashID = OutcomeCrashed, info.ErrorID
		}
	}
}

// Ended reports whether the run has an outcome other than running.
func (info *RunInfo) Ended() bool {
	return info.Outcome != OutcomeRunning && info.Outcome != ""
}

func (info *RunInfo) observe(r *Record) {
	exit := r.Kind == KindMarker && r.Name == MarkerExit
	switch {
	case info.Outcome == OutcomeCrashed:
	case r.Level == LevelFatal || exit && r.Level >= LevelError:
		info.crashed(r)
	case exit:
		info.Outcome, info.EndID, info.End = OutcomeExited, r.ID, r.Time
	case r.Kind == KindMarker && r.Name == MarkerEnd:
		if info.Outcome != OutcomeExited {
			info.Outcome, info.EndID, info.End = OutcomeEnded, r.ID, r.Time
		}
		if info.Outcome == OutcomeEnded && markerReason(r.Data) == ReasonImportEnded && !info.ErrorTime.IsZero() && info.AfterError == 1 {
			info.Outcome, info.CrashID = OutcomeCrashed, info.ErrorID // a whole log whose last words are a traceback
		}
	case info.Outcome == OutcomeEnded && r.Kind != KindMarker, info.Outcome == "":
		info.Outcome, info.EndID, info.End = OutcomeRunning, 0, time.Time{}
	}
}

// crashed makes r the end of the run. A failing exit status (not a
// signal, but SIGINT after Python's KeyboardInterrupt, and SIGABRT, which a
// program raises itself by abort() after saying why) just after an error
// with a stack names that error as the crash: the exception or failed
// assertion that made the program give up, which the exit only reports.
func (info *RunInfo) crashed(r *Record) {
	info.Outcome, info.EndID, info.End, info.CrashID = OutcomeCrashed, r.ID, r.Time, r.ID
	if r.Kind != KindMarker || r.Name != MarkerExit {
		return
	}
	if c := exitCause(r.Data); c >= info.FirstID && c < r.ID {
		info.CrashID = c // the record the program's exit status reports
		return
	}
	switch sig := string(r.Data); {
	case r.Level == LevelFatal && strings.Contains(sig, `"signal":"SIGABRT"`):
	case r.Level != LevelError, strings.Contains(sig, `"signal"`) && !strings.Contains(sig, `"signal":"SIGINT"`):
		return
	}
	if info.justAfterError(r.Time, 1) { // AfterError counts r
		info.CrashID = info.ErrorID
	}
}

// exitCause is the record an exit marker's data names as what its failing
// status reports ("cause"): ThreadSanitizer's first report, for the status
// it makes a program exit with at the end however long it went on after.
// 0 when it names none.
func exitCause(data []byte) uint64 {
	if !bytes.Contains(data, []byte(`"cause"`)) {
		return 0
	}
	var d struct {
		Cause uint64 `json:"cause"`
	}
	if json.Unmarshal(data, &d) != nil {
		return 0
	}
	return d.Cause
}

// justAfterError reports whether the run ends, at t, just after its newest
// error with a stack: its last record, or nearly (exitAfterErrorRecords,
// exitAfterErrorTime) when that error is a traceback. own is how many of
// the records after it are the end's own (an exit marker).
func (info *RunInfo) justAfterError(t time.Time, own uint64) bool {
	if info.ErrorID == 0 || info.AfterError < own {
		return false
	}
	between := info.AfterError - own
	return between == 0 || between <= exitAfterErrorRecords && !info.ErrorTime.IsZero() && t.Sub(info.ErrorTime) <= exitAfterErrorTime
}

// traceback reports a stack in the shape of Python's traceback, which a
// program prints alike when the exception ended it (then perhaps its
// notes, an exit handler's line, an exception ignored as it exits) and
// when it went on (traceback.print_exc()). Other runtimes print an
// uncaught error as one (a fatal record), and an engine's error with a
// stack (Godot's, Unity's) never ends the game. Ren'Py's report of an
// exception begins "Full traceback:", its traceback.txt "I'm sorry, but an
// uncaught exception occurred."
func traceback(stack string) bool {
	head := stack[:min(len(stack), 256)]
	return strings.Contains(head, "Traceback (most recent call last):") || strings.HasPrefix(head, "Full traceback:") ||
		strings.HasPrefix(head, "I'm sorry, but an uncaught exception occurred.") // Ren'Py's traceback.txt
}

// GoesOnAfter reports Python's lines before a traceback the program goes on
// after: a thread, not the program, died of it ("Exception in thread
// asset-loader:"), an exception raised in a destructor ("Exception ignored
// in: <function Sound.__del__ …>"), logging's as it formatted a record
// ("--- Logging error ---"), an asyncio task's that nothing awaited
// ("future: <Task finished … exception=…>", after "Task exception was never
// retrieved"). What the program prints after it does not make it the end's.
func GoesOnAfter(text string) bool {
	text = unwrapped(text)
	return ThreadDied(text) || strings.HasPrefix(text, "Exception ignored in: ") || strings.TrimSpace(text) == LoggingError ||
		strings.HasPrefix(text, "future: <Task ") || strings.HasPrefix(text, "future: <Future ") || AsyncioMessage(text)
}

// AsyncioMessage reports the message asyncio's exception handler logs
// before the context and traceback of an exception its loop goes on after
// ("Task exception was never retrieved", "Exception in callback
// Game.on_loaded() at game.py:204"), a logger's prefix perhaps before it
// ("ERROR:asyncio:").
func AsyncioMessage(text string) bool {
	head := text[:min(len(text), 96)]
	return strings.HasSuffix(text, "Task exception was never retrieved") || strings.HasSuffix(text, "Future exception was never retrieved") ||
		strings.Contains(head, "Exception in callback ") || strings.HasSuffix(text, "Task was destroyed but it is pending!")
}

// asyncioKeys are the keys of the context asyncio's exception handler
// prints under its message, one line a key ("future: <Task finished …>").
var asyncioKeys = [...]string{"future: <", "task: <", "handle: <", "protocol: <", "transport: <", "socket: <", "asyncgen: <",
	"source_traceback: Object created at", "handle_traceback: Handle created at"}

// AsyncioContext returns the line of asyncio's context in s, past whatever
// prefix a logger put in front of it.
func AsyncioContext(s string) (string, bool) {
	head := s[:min(len(s), 96)]
	for _, k := range asyncioKeys {
		if i := strings.Index(head, k); i == 0 || i > 0 && (s[i-1] == ' ' || s[i-1] == ':') {
			return s[i:], true
		}
	}
	return "", false
}

// CaretLine reports Python's marks under the part of a traceback's source
// line that raised ("~~~~~~~~~~~~~^^^^^^", trimmed), which a source line
// shown without its indentation (a Kivy .kv rule's) leaves at any column.
func CaretLine(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '^' && s[i] != '~' {
			return false
		}
	}
	return true
}

// LoggingError heads the report Python's logging prints of its own error
// as it formatted a record, its traceback next.
const LoggingError = "--- Logging error ---"

// ThreadDied reports Python's line before the traceback of a thread's
// uncaught exception ("Exception in thread asset-loader:"). The program
// goes on after it; a failing exit right after it reports it (a runner
// of `mcplogd run` names it in its exit marker's "cause").
func ThreadDied(text string) bool {
	return strings.HasPrefix(unwrapped(text), "Exception in thread ")
}

// unwrapped is text without a logger's wrapper of a program's output.
func unwrapped(text string) string {
	return strings.TrimPrefix(strings.TrimPrefix(text, "stderr: "), "stdout: ")
}
