package follow

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// checkEnds checks what a follower needs of entries: ends that never go
// back (several may share one: they are stored together) and the last at
// the input's end.
func checkEnds(t *testing.T, es []Entry, size int64) {
	t.Helper()
	var last int64
	for i, e := range es {
		if e.End < last || e.End == 0 {
			t.Errorf("entry %d (%q): end %d before %d", i, e.Record.Text, e.End, last)
		}
		last = e.End
	}
	if last != size {
		t.Errorf("last entry ends at %d, want %d", last, size)
	}
}

// TestParse_Logcat: a game's logcat (threadtime, as `adb logcat` prints
// it; written for this test in the shape of real tombstones and crashes):
// every line a record of its tag at its letter's level and time, the
// engine's error with its "at:" line one record, a native crash one fatal
// record from libc's line through the tombstone debuggerd logs a moment
// later with other processes' lines between (those stay records of their
// own), named by the game's frame, and its second time one group with the
// first; AndroidRuntime's Java crash one fatal record titled by its
// exception; the game's second and third launch each after a run marker,
// each death of its process before an exit marker.
func TestParse_Logcat(t *testing.T) {
	data := readSample(t, "logcat/dungeon_threadtime.txt")
	for _, parser := range []string{"logcat", "auto"} {
		p := mustParser(t, parser)
		es := feed(p, data)
		checkEnds(t, es, int64(len(data)))
		if p.Name() != "logcat" {
			t.Fatalf("%s: chose %s", parser, p.Name())
		}
		var fatal []oplog.Record
		var launches, exits []string
		for i, e := range es {
			if e.Record.Level == oplog.LevelFatal {
				fatal = append(fatal, e.Record)
			}
			if e.Record.Kind == oplog.KindMarker && e.Record.Name == oplog.MarkerExit {
				exits = append(exits, e.Record.Text)
			}
			if e.Record.Kind == oplog.KindMarker && e.Record.Name == oplog.MarkerRun && i+1 < len(es) {
				launches = append(launches, e.Record.Text+" | "+es[i+1].Record.Text[:len("Start proc 4502")])
			}
		}
		if len(es) != 22 || len(fatal) != 3 {
			t.Fatalf("%s: %d records (%d fatal), want 22 (3): %q", parser, len(es), len(fatal), texts(recordsOf(es)))
		}
		if want := []string{"com.example.dungeon (process 4321) died: fg  TOP", "com.example.dungeon (process 4502) died: fg  TOP"}; !slices.Equal(exits, want) {
			t.Errorf("%s: the exit markers %q, want %q", parser, exits, want)
		}
		// The game's second and third launch: its package was learnt from
		// the first's Godot lines.
		if want := []string{"run started: com.example.dungeon (process 4502) | Start proc 4502",
			"run started: com.example.dungeon (process 4700) | Start proc 4700"}; !slices.Equal(launches, want) {
			t.Errorf("%s: the run markers %q, want %q", parser, launches, want)
		}
		byText := map[string]oplog.Record{}
		for _, e := range es {
			byText[e.Record.Text] = e.Record
		}
		start := byText["Start proc 4321:com.example.dungeon/u0a123 for top-activity {com.example.dungeon/com.godot.game.GodotApp}"]
		if start.Name != "ActivityManager" || start.Level != oplog.LevelInfo || start.Time.Month() != time.December || start.Time.Day() != 6 ||
			start.Time.Hour() != 10 || start.Time.Nanosecond() != 100_000_000 {
			t.Errorf("%s: header not read: %+v", parser, start)
		}
		if r := byText["--------- beginning of main"]; !r.Time.Equal(start.Time) {
			t.Errorf("%s: logcat's separator at %s, want the next line's time %s", parser, r.Time, start.Time)
		}
		if r := byText["setClientStateLocked: layer not found"]; r.Level != oplog.LevelDebug || r.Name != "SurfaceFlinger" {
			t.Errorf("%s: a D line: %+v", parser, r)
		}
		if r := byText["Cannot open file 'res://levels/level2.tscn'."]; r.Level != oplog.LevelError || r.Name != "godot" || !strings.Contains(r.Stack, "_load (core/io/resource_loader.cpp:278)") {
			t.Errorf("%s: Godot's error: %+v", parser, r)
		}
		if r := byText["received crash request for pid 4345"]; r.Name != "tombstoned" {
			t.Errorf("%s: a line between the crash's: %+v", parser, r)
		}
		n1, n2, java := fatal[0], fatal[1], fatal[2]
		sig1, _ := crash.RecordSignature(&n1)
		sig2, _ := crash.RecordSignature(&n2)
		if !strings.HasPrefix(n1.Text, "Fatal signal 11 (SIGSEGV)") || n1.Name != "libc" || sig1 != sig2 ||
			!strings.Contains(crash.GameFrame(n1.Stack), "(Enemy::update(float)+44)") || strings.Contains(n1.Stack, "received crash request") ||
			!strings.Contains(n1.Stack, "Cause: null pointer dereference") {
			t.Errorf("%s: the native crashes (signatures %s, %s):\n%+v\n%+v", parser, sig1, sig2, n1, n2)
		}
		if java.Text != "java.lang.IllegalStateException: save slot 2 is read-only" || java.Name != "AndroidRuntime" ||
			string(java.Data) != `{"thread":"main","process":"com.example.dungeon, PID: 4700"}` ||
			!strings.HasPrefix(crash.GameFrame(java.Stack), "at com.example.dungeon.SaveManager.write(SaveManager.java:88)") {
			t.Errorf("%s: the Java crash: %+v", parser, java)
		}
	}
}

// TestParse_LogcatPasted: logcat as users pasted it in engines' issues
// (testdata/logcat/README.md), in each of its formats: detected, and the
// crash one fatal record (or, for a Unity or Kivy error, one error record
// with its frames) named as a developer would.
func TestParse_LogcatPasted(t *testing.T) {
	for file, c := range map[string]struct {
		level      oplog.Level
		name, text string
	}{
		"libgdx-gltf-glthread-asold.txt":            {oplog.LevelFatal, "AndroidRuntime", "com.badlogic.gdx.utils.GdxRuntimeException: Vertex shader"},
		"unity-webrtc-sigsegv-ddmstime.txt":         {oplog.LevelFatal, "AndroidRuntime", "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0xba"},
		"sdl-tuxracer-sigsegv-threadtime.txt":       {oplog.LevelFatal, "libc", "Fatal signal 11 (SIGSEGV), code 2 (SEGV_ACCERR), fault addr 0x70039bdff0 in tid 11214 (SDLThread), pid 11174 (SDLActivity)"},
		"kivy-sdl2-pause-sigsegv-brief.txt":         {oplog.LevelFatal, "libc", "Fatal signal 11 (SIGSEGV) at 0x0000000c (code=1), thread 1005 (ugglesoft.evrev)"},
		"kivy-clock-traceback-brief.txt":            {oplog.LevelError, "python", "AttributeError: undefined symbol: clock_gettime"},
		"unity-e-unity-exception-brief.txt":         {oplog.LevelError, "Unity", "Unable to open archive file: jar:file:///data/app/com.DefaultCompany.unityDemo-DqpSFdHIN4KG9c34ueb6QA==/base.apk!/assets/AssetBundles/Android/manifest"},
		"cocos2dx-startup-sigsegv-tag.txt":          {oplog.LevelFatal, "libc", "Fatal signal 11 (SIGSEGV), code 1, fault addr 0x0 in tid 15076 (com.demo.app)"},
		"godot-vkthread-sigsegv-threadtime.txt":     {oplog.LevelFatal, "libc", "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x40648696406486be in tid 28901 (VkThread), pid 28825 (or.v4:GodotGame)"},
		"cocos2djs-evalstring-asold.txt":            {oplog.LevelFatal, "DEBUG", "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0xf94"},
		"defold-badalloc-abort-asold.txt":           {oplog.LevelFatal, "libc", "terminating with uncaught exception of type std::bad_alloc: std::bad_alloc"},
		"ue-zombonk-unsatisfiedlink-threadtime.txt": {oplog.LevelFatal, "AndroidRuntime", `java.lang.UnsatisfiedLinkError: dlopen failed: cannot locate symbol "_Unwind_Resume"`},
	} {
		data := readSample(t, "logcat/"+file)
		p := mustParser(t, "auto")
		es := feed(p, data)
		checkEnds(t, es, int64(len(data)))
		var bad []oplog.Record
		for _, e := range es {
			if e.Record.Level == c.level && (e.Record.Stack != "" || c.level == oplog.LevelFatal) {
				bad = append(bad, e.Record)
			}
		}
		if p.Name() != "logcat" || len(bad) != 1 || bad[0].Name != c.name || !strings.HasPrefix(bad[0].Text, c.text) {
			t.Errorf("%s: parser %s, %d records at %s: %+v", file, p.Name(), len(bad), c.level, bad)
		}
	}
}

// TestParseLogcat_Formats: each of logcat's formats, and lines that only
// look like one.
func TestParseLogcat_Formats(t *testing.T) {
	c := &clock{date: func() time.Time { return time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC) }, now: time.Now}
	for line, want := range map[string]string{
		"02-14 15:45:07.464 28825 28901 F libc    : Fatal signal 11":                                                            "fatal libc 28825 28901|Fatal signal 11",
		"2026-02-14 15:45:07.464 28825 28901 E Unity   : boom":                                                                  "error Unity 28825 28901|boom",
		"12-27 11:29:53.838: E/AndroidRuntime(30243): FATAL EXCEPTION: x":                                                       "error AndroidRuntime 30243|FATAL EXCEPTION: x",
		"05-24 06:52:44.341 F/DEBUG   (10185):     #18 pc 003ff72f":                                                             "fatal DEBUG 10185|    #18 pc 003ff72f",
		"E/CRASH   (11440): signal 11 (SIGSEGV)":                                                                                "error CRASH 11440|signal 11 (SIGSEGV)",
		"A/libc: Fatal signal 11 (SIGSEGV)":                                                                                     "fatal libc |Fatal signal 11 (SIGSEGV)",
		"2019-05-01 10:49:55.458 8741-8741/? A/DEBUG: backtrace:":                                                               "fatal DEBUG 8741-8741|backtrace:",
		"01-23 10:12:51.521  12326-12353/com.mygdx.game.android E/AndroidRuntime﹕ FATAL EXCEPTION: GLThread 10815":              "error AndroidRuntime 12326-12353|FATAL EXCEPTION: GLThread 10815",
		"2025-06-21 19:12:09.545 19606-19606 m.example.iluma         zygote64                             A  runtime.cc:708] x": "fatal m.example.iluma 19606-19606|runtime.cc:708] x",
		"I/O error: disk full":            "",
		"E/bad tag: x":                    "",
		"2026-12-06 10:00:00 INFO loaded": "",
		"W/ (  255): debuggerd: resuming": "warn  255|debuggerd: resuming",
	} {
		h, body, ok := parseLogcat(line, c)
		got := ""
		if ok {
			got = h.level.String() + " " + h.tag + " " + h.proc + "|" + body
		}
		if got != want {
			t.Errorf("%q: %q, want %q", line, got, want)
		}
	}
}

// TestParse_LogcatResume: a follower stores records in the order they come
// and resumes after the last one stored; a native crash's report is read
// across other processes' lines, whose records come after it. Stopped
// after any record and resumed there, no line's message is lost.
func TestParse_LogcatResume(t *testing.T) {
	c := &clock{date: time.Now, now: time.Now}
	for _, file := range []string{"dungeon_threadtime.txt", "anr_threadtime.txt", "lmkd_threadtime.txt", "kivy-sdl2-pause-sigsegv-brief.txt", "sdl-tuxracer-sigsegv-threadtime.txt"} {
		data := readSample(t, "logcat/"+file)
		all := feed(mustParser(t, "logcat"), data)
		for i := range all {
			at := all[i].End
			if i+1 < len(all) && all[i+1].End == at {
				continue // stored together with the next
			}
			kept := recordsOf(all[:i+1])
			kept = append(kept, recordsOf(feed(mustParser(t, "logcat"), data[at:]))...)
			for l := range strings.Lines(string(data)) {
				_, body, ok := parseLogcat(strings.TrimRight(l, "\r\n"), c)
				if body = strings.TrimSpace(body); ok && body != "" && holds(recordsOf(all), body) && !holds(kept, body) {
					t.Errorf("%s: stopped after byte %d, %q is in no record", file, at, body)
				}
			}
		}
	}
}

// holds reports whether a record's text or stack holds s.
func holds(recs []oplog.Record, s string) bool {
	for _, r := range recs {
		if strings.Contains(r.Text, s) || strings.Contains(r.Stack, s) || strings.Contains(string(r.Data), s) {
			return true
		}
	}
	return false
}
