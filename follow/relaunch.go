package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// A game launched again into a log it appends to (game >> game.log)
// leaves no truncation, no rewrite and, in the generic formats, no banner
// to start its run. What it does leave is its first line again, right
// after the line its last launch died on: a run of such a log starts where
// the run's first line comes again just after an entry that ended the
// program (a fatal line, an error with a stack). The numbers in it may
// differ (a seed, a version's build, a pid). A clean exit leaves nothing to
// read, so a launch after one goes on the run before it.

// relaunchState is what marking keeps to see a relaunch.
type relaunchState struct {
	format   int8   // 0 until known; 1: a format without a banner of its own (bannerless); -1: with one
	first    string // the run's first line; "" when not known (a file entered in its middle)
	firstDue bool   // the next entry is its run's first
	repeats  bool   // the run printed its first line again, the program going on
	ended    bool   // the last entry ended the program
	end      int64  // where the entry being marked ends in its file
}

// bannerless reports a format whose runs no banner of its own starts (the
// generic family's): only there does a relaunch need reading this way.
func (m *marking) bannerless() bool {
	if m.format == 0 {
		switch m.p.Name() {
		case "auto": // not known yet: asked again
			return true
		case "unity", "log4j", "godot", "unreal", "luanti", "mccrash", "logcat":
			m.format = -1
		default:
			m.format = 1
		}
	}
	return m.format > 0
}

// relaunch reports whether r, the next entry, is its run's first line
// again just after an entry that ended the program. A first line the run
// printed again before (a game that logs "tick 0", "tick 1", …) is no
// launch's: after a handled error with its stack it goes on as before.
func (s *relaunchState) relaunch(r *oplog.Record) bool {
	ended := s.ended
	s.ended = r.Level == oplog.LevelFatal || r.Level >= oplog.LevelError && r.Stack != ""
	if s.first == "" || s.firstDue || s.repeats || !sameButNumbers(headLine(r.Text), s.first) {
		return false
	}
	s.repeats = !ended
	return ended
}

// noteFirst makes r its run's first line when one is due: always after a
// run marker, at a file's start only when it was read from there.
func (s *relaunchState) noteFirst(r *oplog.Record, afterMarker bool) {
	if !s.firstDue {
		return
	}
	s.firstDue = false
	if afterMarker || s.end <= preBannerBytes {
		s.first = strings.Clone(headLine(r.Text))
	}
}

// started says that a run began: its first line is the next entry.
func (s *relaunchState) started() { s.first, s.firstDue, s.repeats = "", true, false }

// sameButNumbers reports whether a and b are the same but for their
// digits.
func sameButNumbers(a, b string) bool {
	if len(a) != len(b) || a == "" {
		return false
	}
	for i := range len(a) {
		if a[i] != b[i] && !(isDigit(a[i]) && isDigit(b[i])) {
			return false
		}
	}
	return true
}

func headLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
