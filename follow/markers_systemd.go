package follow

import (
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// A game server run by systemd, its journal followed (journalctl -u
// gameserver -f): systemd's own lines say when the service started and how
// its main process ended, as mcplogd run's markers do for a launch.
// "Started gameserver.service - Dungeon game server." starts a run;
// "gameserver.service: Main process exited, code=dumped, status=11/SEGV"
// ends it as a program's exit does (here killed by SIGSEGV, its core
// dumped), and "gameserver.service: Deactivated successfully." ends it
// clean when no exit was read. The first service systemd starts or ends in
// the log is the game's (systemd's own, systemd-*, and user@ are never);
// another's lines mark nothing, so that a whole system's journal does not
// cut the game's runs at every service.

// systemdUnit reads the service systemd's line names and what it says of
// it: started, exited (the main process's end) or deactivated.
func systemdUnit(r *oplog.Record) (unit, what string) {
	if r.Name != "systemd" {
		return "", ""
	}
	t := r.Text
	if rest, ok := strings.CutPrefix(t, "Started "); ok {
		unit, _, _ = strings.Cut(rest, " ")
		unit = strings.TrimSuffix(unit, ".")
		what = "started"
	} else if u, rest, ok := strings.Cut(t, ": "); ok && !strings.Contains(u, " ") {
		unit = u
		switch {
		case strings.HasPrefix(rest, "Main process exited, code="):
			what = "exited"
		case rest == "Deactivated successfully.":
			what = "deactivated"
		}
	}
	if what == "" || !strings.HasSuffix(unit, ".service") || strings.HasPrefix(unit, "systemd-") || strings.HasPrefix(unit, "user@") {
		return "", ""
	}
	return unit, what
}

// systemdExit reads how the main process ended: "code=exited,
// status=1/FAILURE", "code=killed, status=9/KILL", "code=dumped,
// status=11/SEGV".
func systemdExit(text string) (Exit, bool) {
	_, rest, _ := strings.Cut(text, "code=")
	code, status, ok := strings.Cut(rest, ", status=")
	num, name, _ := strings.Cut(status, "/")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return Exit{}, false
	}
	if code == "exited" {
		return Exit{Code: n}, true
	}
	return Exit{Code: -1, Signal: "SIG" + name, SignalNumber: n, CoreDumped: code == "dumped"}, true
}

// systemdMarkers returns the markers systemd's line r puts before and
// after itself: a run's start, a run's end.
func (m *marking) systemdMarkers(r *oplog.Record, before, after []oplog.Record) ([]oplog.Record, []oplog.Record) {
	unit, what := systemdUnit(r)
	if unit == "" || m.owned || m.launched || m.unit != "" && m.unit != unit {
		return before, after
	}
	m.unit = unit
	switch what {
	case "started":
		before = append(before, marker(r, oplog.MarkerRun, oplog.LevelInfo, "run started: systemd started "+unit,
			(&runInfo{reason: "service"}).data()))
		m.runStarted()
		m.unitEnded = false
	case "exited":
		if e, ok := systemdExit(r.Text); ok && !m.unitEnded {
			var o object
			if e.Signal != "" {
				o.str("signal", e.Signal)
				o.num("signalNumber", e.SignalNumber)
				if e.CoreDumped {
					o.key("coreDumped")
					o.b = append(o.b, "true"...)
				}
			} else {
				o.num("exitCode", e.Code)
			}
			after = append(after, marker(r, oplog.MarkerExit, e.Level(), unit+" "+e.String(), o.bytes()))
			m.unitEnded = true
		}
	case "deactivated":
		if !m.unitEnded {
			after = append(after, marker(r, oplog.MarkerExit, oplog.LevelInfo, unit+" exited", []byte(`{"reason":"service"}`)))
			m.unitEnded = true
		}
	}
	return before, after
}
