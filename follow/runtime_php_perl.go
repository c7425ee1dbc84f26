package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// PHP's errors and Perl's die, as their interpreters print them.
//
// PHP's CLI logs an error to standard error,
//
//	PHP Fatal error:  Uncaught RuntimeException: no spawn point for orc in /game/world.php:5
//	Stack trace:
//	#0 /game/world.php(7): World->spawnEnemy()
//	#1 /game/main.php(11): World->spawn()
//	#2 {main}
//	  thrown in /game/world.php on line 5
//
// and with display_errors shows it again on standard output, "Fatal
// error: Uncaught …" (no "PHP ", one space). A fatal or parse error is one
// fatal record: its text the message, its stack the place and the frames,
// the first the function frame #0 called, where the message says it
// threw ("at World->spawnEnemy() (/game/world.php:5)"). The second copy
// of one error is a record at info, its line as it came: one crash, not
// two. Warnings, notices and deprecations are a line each, at warn or
// info.
//
// Perl's die, and Perl's own errors, print the message, then where: "no
// spawn point for orc at game.pl line 12." (", <$fh> line 3." after it
// while a file is read); Carp's confess adds the callers, "\tmain::
// spawn_enemy(HASH(0x…), "orc") called at game.pl line 20". It is one
// error record whose stack is the place and the callers, which the
// failing exit right after it names the crash. Perl's own warnings
// ("Use of uninitialized value …") look the same: they are warnings.

// phpStart reports PHP's error line: logged, or shown with its place.
func phpStart(t string) bool {
	if !strings.HasPrefix(t, "PHP ") && !strings.HasPrefix(t, "Fatal error: ") && !strings.HasPrefix(t, "Parse error: ") {
		return false
	}
	_, ok := parsePHP(t)
	return ok
}

// perlStart reports Perl's error line, which ends with its place: a
// digit, then '.'.
func perlStart(t string) bool {
	if n := len(t); n < 12 || t[n-1] != '.' || !isDigit(t[n-2]) {
		return false
	}
	_, _, ok := perlError(t)
	return ok
}

// phpLevels are PHP's error kinds, as its messages name them.
var phpLevels = map[string]oplog.Level{
	"Fatal error": oplog.LevelFatal, "Parse error": oplog.LevelFatal, "Recoverable fatal error": oplog.LevelFatal,
	"Core error": oplog.LevelFatal, "Compile error": oplog.LevelFatal,
	"Warning": oplog.LevelWarn, "Core warning": oplog.LevelWarn, "Compile warning": oplog.LevelWarn, "Deprecated": oplog.LevelWarn,
	"Notice": oplog.LevelInfo, "Strict Standards": oplog.LevelInfo,
}

// phpLine is PHP's error line, read.
type phpLine struct {
	level   oplog.Level
	text    string // the line past its kind: "Undefined variable $x in /game/main.php on line 3"
	msg     string // without its place: "Uncaught RuntimeException: no spawn point for orc"
	place   string // "/game/world.php:5"; "" when it names none
	display bool   // shown ("Fatal error: "), not logged ("PHP Fatal error:  ")
}

// parsePHP reads PHP's error line; ok is false for any other line. A
// line without "PHP " first is PHP's only when it names its place.
func parsePHP(t string) (h phpLine, ok bool) {
	rest, logged := strings.CutPrefix(t, "PHP ")
	kind, msg, found := strings.Cut(rest, ": ")
	if !found {
		return phpLine{}, false
	}
	if h.level, ok = phpLevels[kind]; !ok {
		return phpLine{}, false
	}
	h.text, h.display = strings.TrimLeft(msg, " "), !logged
	h.msg = h.text
	if i := strings.LastIndex(h.msg, " on line "); i > 0 && isDigits(h.msg[i+len(" on line "):]) {
		if j := strings.LastIndex(h.msg[:i], " in "); j >= 0 {
			h.place = h.msg[j+len(" in "):i] + ":" + h.msg[i+len(" on line "):]
			h.msg = h.msg[:j]
		}
	} else if j := strings.LastIndex(h.msg, " in "); j >= 0 {
		place := h.msg[j+len(" in "):]
		if k := strings.LastIndexByte(place, ':'); k > 0 && isDigits(place[k+1:]) {
			h.place = place
			if !strings.HasSuffix(h.msg[:j], " and defined") { // a TypeError's "called in X on line 10 and defined in Y:4": whole
				h.msg = h.msg[:j]
			}
		}
	}
	return h, logged || h.place != ""
}

// beginPHP starts PHP's report: its message the text; an uncaught
// exception's frames follow ("Stack trace:"), another error's place is its
// stack. The other copy of the error just before it is shown at info.
func (r *report) beginPHP(t string, end int64) {
	h, _ := parsePHP(t)
	r.e.rec.Level = h.level
	if h.level < oplog.LevelFatal {
		r.setText(h.text)
		r.done = true
		return
	}
	r.setText(strings.TrimPrefix(h.msg, "Uncaught "))
	same := h.msg + " in " + h.place
	if r.php == same && r.phpDisplay != h.display {
		r.e.rec.Level = oplog.LevelInfo // the same error again, as PHP shows it: its line as it came
		r.setText(t)
		same = "" // one copy of one error
	}
	r.php, r.phpDisplay = same, h.display
	r.head = h.place
	if !strings.HasPrefix(h.msg, "Uncaught ") {
		if h.place != "" {
			r.add("at "+h.place, end)
		}
		r.done = true
	}
}

// phpTrace reads an uncaught exception's frames, "Stack trace:" to
// "thrown in …".
func (r *report) phpTrace(t string, end int64) bool {
	switch {
	case t == "Stack trace:" && r.e.lines == 0:
		return r.add(t, end)
	case len(t) > 1 && t[0] == '#' && isDigit(t[1]):
		if t[1] == '0' && r.head != "" {
			// Frame #0 called the function the exception was thrown in.
			fn := strings.TrimSpace(t[strings.IndexByte(t, ' ')+1:])
			if _, f, ok := strings.Cut(fn, "): "); ok {
				fn = f
			}
			r.add("at "+fn+" ("+r.head+")", end)
		}
		return r.add(t, end)
	case strings.HasPrefix(t, "thrown in "):
		r.done = true
		return r.add(t, end)
	}
	return false
}

// perlWarnings begin the warnings Perl itself prints in the shape of its
// errors (perldiag's (W) and (D) messages most programs meet).
var perlWarnings = []string{"Use of uninitialized value", "Argument \"", "Useless use of ", "Odd number of elements",
	"Deep recursion on ", "Name \"", "Subroutine ", "Scalar value ", "Possible ", "Useless ", "Unquoted string ",
	"Found = in conditional", "Reversed ", "Misplaced ", "Wide character ", "Use of ", "Parentheses missing",
	"Statement unlikely to be reached", "Exiting subroutine via "}

// perlError splits Perl's error line into its message and place ("at
// game.pl line 12"); ok is false for any other line.
func perlError(t string) (msg, place string, ok bool) {
	s, found := strings.CutSuffix(t, ".")
	if !found {
		return "", "", false
	}
	if i := strings.LastIndex(s, ", <"); i > 0 { // ", <$fh> line 3", ", <STDIN> chunk 2"
		s = s[:i]
	}
	i := strings.LastIndex(s, " line ")
	if i < 0 || !isDigits(s[i+len(" line "):]) {
		return "", "", false
	}
	j := strings.LastIndex(s[:i], " at ")
	if j <= 0 {
		return "", "", false
	}
	file := s[j+len(" at ") : i]
	if file == "" || strings.ContainsAny(file, " \t") && !strings.HasPrefix(file, "(eval ") {
		return "", "", false
	}
	return s[:j], s[j+1:], true
}

// beginPerl starts Perl's report: the message its text, the place its
// stack; a warning of Perl's own is a warning.
func (r *report) beginPerl(t string, end int64) {
	msg, place, _ := perlError(t)
	r.setText(msg)
	r.add(place, end)
	r.e.rec.Level = oplog.LevelError
	for _, w := range perlWarnings {
		if strings.HasPrefix(msg, w) {
			r.e.rec.Level = oplog.LevelWarn
			r.done = true
			return
		}
	}
}

// perlCallers reads Carp's callers after Perl's error: "\tmain::tick(3)
// called at game.pl line 20".
func (r *report) perlCallers(s, t string, end int64) bool {
	return r.indented(s) && strings.Contains(t, " called at ") && r.add(t, end)
}
