package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// The game's app in a device's log: its launches and its ANRs.
//
// A device's log holds every launch of the game, each a process of its
// own: logcatLaunches tells them apart, so that each is a run. The game is
// the app whose process logs under an engine's tag (engineTag); its
// package is learnt from ActivityManager's "Start proc 4321:com.example.
// game/u0a123 for top-activity …", which names the process it starts.
// Once the game is known, each start of its package starts a run; a log
// kept to the engine's tags (adb logcat -s godot), which holds no
// ActivityManager line, starts one where those lines come from another
// process. Other apps' starts and crashes start nothing.
type logcatLaunches struct {
	started map[string]string // process → package, of the last processes started
	game    string            // the game's package, once known
	pid     string            // the game's process
	runs    map[string]bool   // the processes that had a run
	// lmkd is the process the low-memory killer killed last, and what it
	// said ("oom_score_adj 0 to free 612340kB rss; reason: …").
	lmkd, lmkdSaid string
}

// maxStarted bounds the processes remembered.
const maxStarted = 256

// launch reads a line with its header, and returns the run marker to put
// before it when it starts a launch of the game.
func (l *logcatLaunches) launch(h logcatHeader, body string) (oplog.Record, bool) {
	if h.tag == "ActivityManager" {
		pid, pkg, ok := startProc(body)
		if !ok {
			return oplog.Record{}, false
		}
		if l.started == nil || len(l.started) >= maxStarted {
			l.started = map[string]string{}
		}
		l.started[pid] = pkg
		if pkg != l.game || pid == l.pid {
			return oplog.Record{}, false
		}
		l.ran(pid)
		return l.marker(h, pkg, pid), true
	}
	pid := logcatPid(h.proc)
	if pid == "" || pid == l.pid || !engineTag(h.tag) || l.runs[pid] {
		return oplog.Record{}, false // (two processes at once logging the tag: a run each, once)
	}
	was := l.pid
	l.ran(pid)
	if pkg, ok := l.started[pid]; ok {
		l.game = pkg
	}
	if was == "" {
		return oplog.Record{}, false // the first process seen: the run under way
	}
	return l.marker(h, l.game, pid), true // another process logs the engine's tag: relaunched
}

// ran makes pid the game's process, which has its run.
func (l *logcatLaunches) ran(pid string) {
	if l.runs == nil || len(l.runs) >= maxStarted {
		l.runs = map[string]bool{}
	}
	l.pid, l.runs[pid] = pid, true
}

// died reads a line with its header, and returns the exit marker to put
// before it when it says the game's process died: ActivityManager's
// "Process com.example.game (pid 4502) has died: fg  TOP". The run exited
// (the player closed the game, it finished), unless the low-memory killer
// killed it just before ("lowmemorykiller: Kill 'com.example.game' (4502),
// uid 10123, oom_score_adj 0 to free 612340kB rss; reason: …") or it died
// of a signal the system did not send (": signal 6 (Aborted)", where the
// log holds no tombstone): then it crashed, and the marker is its crash.
func (l *logcatLaunches) died(h logcatHeader, body string) (oplog.Record, bool) {
	t := strings.TrimSpace(body)
	if h.tag == "lowmemorykiller" || h.tag == "lmkd" {
		if rest, ok := strings.CutPrefix(t, "Kill '"); ok {
			_, after, _ := strings.Cut(rest, "' (")
			l.lmkd, _, _ = cutDigits(after)
			_, l.lmkdSaid, _ = strings.Cut(after, "), ")
			if i := strings.Index(l.lmkdSaid, "oom_score_adj "); i > 0 {
				l.lmkdSaid = l.lmkdSaid[i:] // not its uid
			}
		}
		return oplog.Record{}, false
	}
	if h.tag != "ActivityManager" || l.pid == "" {
		return oplog.Record{}, false
	}
	rest, ok := strings.CutPrefix(t, "Process ")
	pkg, rest, _ := strings.Cut(rest, " (pid ")
	pid, rest, _ := cutDigits(rest)
	how, died := strings.CutPrefix(rest, ") has died")
	if !ok || !died || pid != l.pid {
		return oplog.Record{}, false
	}
	how = strings.TrimSpace(strings.TrimPrefix(how, ":"))
	level, text := oplog.LevelInfo, pkg+" (process "+pid+") died"
	switch {
	case pid == l.lmkd:
		level, text = oplog.LevelFatal, pkg+" (process "+pid+") killed by the low-memory killer: "+l.lmkdSaid
	case strings.HasPrefix(how, "signal ") && !strings.HasPrefix(how, "signal 9 "):
		level, text = oplog.LevelFatal, pkg+" (process "+pid+") died of "+how
	case how != "":
		text += ": " + how
	}
	var o object
	o.str("package", pkg)
	o.str("pid", pid)
	return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: level, Time: h.t, Text: oplog.ClipText(text), Data: o.bytes()}, true
}

// marker is the run marker of a launch of pkg as process pid.
func (l *logcatLaunches) marker(h logcatHeader, pkg, pid string) oplog.Record {
	text := "run started: process " + pid
	if pkg != "" {
		text = "run started: " + pkg + " (process " + pid + ")"
	}
	var o object
	o.str("reason", "launch")
	o.str("package", pkg)
	o.str("pid", pid)
	return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Time: h.t, Text: text, Data: o.bytes()}
}

// startProc reads ActivityManager's line of a process it starts: "Start
// proc 4321:com.example.game/u0a123 for top-activity {…}" (Android 7 on),
// or "Start proc com.example.game for activity com.example.game/.Main:
// pid=4321 uid=10123 …" (before).
func startProc(body string) (pid, pkg string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(body), "Start proc ")
	if !ok {
		return "", "", false
	}
	if pid, after, ok := cutDigits(rest); ok && strings.HasPrefix(after, ":") {
		pkg, _, _ = strings.Cut(after[1:], "/")
		pkg, _, _ = strings.Cut(pkg, " ")
		return pid, pkg, pkg != ""
	}
	pkg, _, _ = strings.Cut(rest, " ")
	_, after, found := strings.Cut(rest, " pid=")
	if !found {
		return "", "", false
	}
	pid, _, ok = cutDigits(after)
	return pid, pkg, ok && pkg != ""
}

// logcatPid is the process of a header's "4321 4345" (threadtime), "4321"
// (brief, time) or "4321-4345" (Android Studio).
func logcatPid(proc string) string {
	pid, _, _ := cutDigits(strings.TrimSpace(proc))
	return pid
}

// engineTag reports the tags engines log a game's lines under on Android.
func engineTag(tag string) bool {
	switch tag {
	case "Unity", "godot", "UE4", "UE", "python", "SDL", "SDL/APP", "cocos2d-x", "cocos2d-x debug info", "defold", "yoyo",
		"Corona", "LOVE", "GameActivity", "libgdx", "Bevy", "bevy":
		return true
	}
	return false
}

// isGame reports whether the app or process a crash names (either may be
// "") may be the game's: yes while the game is not known.
func (l *logcatLaunches) isGame(app, pid string) bool {
	switch {
	case l.game == "" || app == "" && pid == "":
		return true
	case app != "":
		return app == l.game
	}
	return pid == l.pid
}

// crashedProcess reads the process a native crash's line names, beside
// app and pid read before: libc's "Fatal signal 11 (SIGSEGV), … in tid
// 4530 (GLThread 15), pid 4502 (example.dungeon)", the tombstone's "pid:
// 4502, tid: 4530, name: GLThread 15  >>> com.example.dungeon <<<".
func crashedProcess(t, app, pid string) (string, string) {
	if i := strings.Index(t, ">>> "); i >= 0 && strings.HasSuffix(t, " <<<") {
		app = strings.TrimSuffix(t[i+len(">>> "):], " <<<")
	}
	if _, after, ok := strings.Cut(t, ", pid "); ok && strings.HasPrefix(t, "Fatal signal ") {
		pid, _, _ = cutDigits(after)
	} else if after, ok := strings.CutPrefix(t, "pid: "); ok {
		pid, _, _ = cutDigits(after)
	}
	return app, pid
}

// startANR begins ActivityManager's report of an app not responding: "ANR
// in com.example.game (com.example.game/.MainActivity)", then its "PID:",
// "Reason:", "Load:" and CPU usage lines. One record, titled by the app
// and the reason; fatal when the app is the game (it hung: Android shows
// the dialog that closes it, or kills it in the background), an error of
// another app's.
func (p *logcatParser) startANR(out []Entry, h logcatHeader, body string, end int64) []Entry {
	p.key = h.proc + "\x00" + h.tag + "\x00" + string(rune('0'+h.level)) // its lines go on with it
	p.anr = true
	pkg, _, _ := strings.Cut(strings.TrimPrefix(body, "ANR in "), " ")
	p.anrApp = pkg
	level := h.level
	if pkg == p.runs.game {
		level = oplog.LevelFatal
	}
	p.info = object{}
	p.info.str("process", pkg)
	p.e.start(body, level, end)
	p.e.rec.Time = h.t
	p.e.setName(h.tag)
	p.e.add(body, end)
	return out
}

// anrLine reads a line of an ANR report: its reason is the title's.
func (p *logcatParser) anrLine(out []Entry, body string, end int64) []Entry {
	t := strings.TrimSpace(body)
	if reason, ok := strings.CutPrefix(t, "Reason: "); ok {
		p.e.rec.Text = oplog.ClipText("ANR in " + p.anrApp + ": " + reason)
	}
	if pid, ok := strings.CutPrefix(t, "PID: "); ok {
		p.info.str("pid", pid)
		if pid == p.runs.pid { // the process that logs the engine's lines: the game, though its start was not seen
			p.runs.game = p.anrApp
			p.e.rec.Level = oplog.LevelFatal
		}
	}
	p.e.add(body, end)
	return out
}
