package follow

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// The headers of loggers the generic parser reads whole: each returns the
// time, the level, the name (glog's and loguru's: the place), the text.

// rustHeader reads env_logger's "[2024-05-01T12:34:56Z ERROR my_crate::net] msg".
func (p *genericParser) rustHeader(s string) (time.Time, oplog.Level, string, string, bool) {
	if len(s) < 22 || s[0] != '[' || !isDigit(s[1]) {
		return time.Time{}, 0, "", "", false
	}
	t, n, ok := parseISO(s[1:], p.clk.location())
	if !ok || 1+n >= len(s) || s[1+n] != ' ' {
		return time.Time{}, 0, "", "", false
	}
	inner, text, ok := strings.Cut(s[2+n:], "]")
	if !ok {
		return time.Time{}, 0, "", "", false
	}
	word, name, _ := strings.Cut(strings.TrimSpace(inner), " ")
	level, ok := levelWord(word)
	if !ok {
		return time.Time{}, 0, "", "", false
	}
	return t, level, strings.TrimSpace(name), strings.TrimLeft(text, " "), true
}

// rubyHeader reads Ruby's Logger's "E, [2026-12-04T10:00:01.123456 #7605]
// ERROR -- game: msg" (the program's name, which may be empty, the name).
func (p *genericParser) rubyHeader(s string) (time.Time, oplog.Level, string, string, bool) {
	if len(s) < 30 || !strings.ContainsRune("DIWEFA", rune(s[0])) || s[1:4] != ", [" {
		return time.Time{}, 0, "", "", false
	}
	t, n, ok := parseISO(s[4:], p.clk.location())
	if !ok || !strings.HasPrefix(s[4+n:], " #") {
		return time.Time{}, 0, "", "", false
	}
	_, rest, ok := strings.Cut(s[4+n:], "] ")
	word, rest, ok2 := strings.Cut(strings.TrimLeft(rest, " "), " -- ")
	name, text, ok3 := strings.Cut(rest, ": ")
	level, ok4 := levelWord(word)
	if word == "ANY" {
		level, ok4 = oplog.LevelInfo, true
	}
	if !ok || !ok2 || !ok3 || !ok4 {
		return time.Time{}, 0, "", "", false
	}
	return t, level, name, text, true
}

// glibHeader reads GLib's log lines (GTK's, GStreamer's, a game's g_log):
// "** Message: 10:00:01.123: msg", "** (game:17795): CRITICAL **:
// 10:00:01.123: msg", "(game:1234): GLib-CRITICAL **: msg": the domain
// ("GLib", "Gtk") is the name. g_error's ERROR is fatal (it traps), as
// CRITICAL is an error, WARNING a warning; Message and INFO info, DEBUG
// debug. The time is zero when the line has none.
func (p *genericParser) glibHeader(s string) (time.Time, oplog.Level, string, string, bool) {
	rest, stars := strings.CutPrefix(s, "** ")
	if strings.HasPrefix(rest, "(") {
		i := strings.Index(rest, "): ")
		if i < 0 || strings.IndexByte(rest[:i], ':') < 0 {
			return time.Time{}, 0, "", "", false
		}
		rest = rest[i+3:]
	} else if !stars {
		return time.Time{}, 0, "", "", false
	}
	word, text, found := strings.Cut(rest, ": ")
	if !found || len(word) > 40 {
		return time.Time{}, 0, "", "", false
	}
	word, closed := strings.CutSuffix(word, " **")
	domain, lvl, dashed := strings.Cut(word, "-")
	if !dashed {
		domain, lvl = "", word
	}
	var level oplog.Level
	switch lvl {
	case "ERROR":
		level = oplog.LevelFatal
	case "CRITICAL":
		level = oplog.LevelError
	case "WARNING":
		level = oplog.LevelWarn
	case "Message", "INFO":
		level = oplog.LevelInfo
	case "DEBUG":
		level = oplog.LevelDebug
	default:
		return time.Time{}, 0, "", "", false
	}
	if !closed && (lvl == "ERROR" || lvl == "CRITICAL" || lvl == "WARNING") {
		return time.Time{}, 0, "", "", false // "** WARNING: x" is no GLib line: it writes "WARNING **: "
	}
	var t time.Time
	if h, m, sec, ns, n, ok := parseClock(text); ok && strings.HasPrefix(text[n:], ": ") {
		t, text = p.clk.at(h, m, sec, ns), text[n+2:]
	}
	return t, level, domain, text, true
}

// glogHeader reads the prefix of glog's lines (Google's C++ logging, and
// abseil's LOG): "W1206 10:00:01.223456  4242 main.cc:41] no GPU": the
// severity's letter (F: LOG(FATAL), which aborts after it), (the year,)
// month and day,
// time, thread, and the file and line (its place), whose file is the
// record's name.
func (p *genericParser) glogHeader(s string) (time.Time, oplog.Level, string, string, bool) {
	if len(s) < 24 || strings.IndexByte("IWEF", s[0]) < 0 || !isDigit(s[1]) {
		return time.Time{}, 0, "", "", false
	}
	year, i := p.clk.date().Year(), 1
	if s[9] == ' ' { // glog 0.6 writes the year too: "I20261206 05:49:46.857664"
		y, ok := atoi(s[1:5])
		if !ok {
			return time.Time{}, 0, "", "", false
		}
		year, i = y, 5
	}
	mo, ok1 := two(s, i)
	d, ok2 := two(s, i+2)
	h, m, sec, ns, n, ok := parseClock(s[i+5:])
	if s[i+4] != ' ' || !ok1 || !ok2 || !ok || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, 0, "", "", false
	}
	rest := strings.TrimLeft(s[i+5+n:], " ")
	thread, rest, _ := strings.Cut(rest, " ")
	place, text, found := strings.Cut(rest, "] ")
	file, line, colon := strings.Cut(place, ":")
	if thread == "" || !isDigits(thread) || !found || !colon || !isDigits(line) || file == "" || strings.IndexByte(file, ' ') >= 0 {
		return time.Time{}, 0, "", "", false
	}
	level := map[byte]oplog.Level{'I': oplog.LevelInfo, 'W': oplog.LevelWarn, 'E': oplog.LevelError, 'F': oplog.LevelFatal}[s[0]]
	return time.Date(year, time.Month(mo), d, h, m, sec, ns, p.clk.location()), level, place, text, true
}

// placeHeader reads glog's header or loguru's (emilk/loguru, C++): their
// place ("main.cc:41") is the name.
func (p *genericParser) placeHeader(s string) (time.Time, oplog.Level, string, string, bool) {
	if t, level, place, text, ok := p.glogHeader(s); ok {
		return t, level, place, text, true
	}
	return p.loguruHeader(s)
}

// loguruHeader reads the prefix of emilk/loguru's lines (C++): "2026-12-07
// 01:24:17.123 (   0.001s) [main thread     ]   main.cpp:12    ERR| msg":
// the date and time, the uptime and the thread (a game may turn either
// off), the place, the verbosity (FATL, ERR, WARN, INFO, or a number: 0 is
// info, more is debug).
func (p *genericParser) loguruHeader(s string) (time.Time, oplog.Level, string, string, bool) {
	t, rest, ok := p.stamp(s)
	if !ok {
		return time.Time{}, 0, "", "", false
	}
	if rest = strings.TrimLeft(rest, " "); strings.HasPrefix(rest, "(") {
		up, after, found := strings.Cut(rest[1:], "s) ")
		if !found || !isDecimal(strings.TrimSpace(up)) {
			return time.Time{}, 0, "", "", false
		}
		rest = after
	}
	if rest = strings.TrimLeft(rest, " "); strings.HasPrefix(rest, "[") {
		_, after, found := strings.Cut(rest, "] ")
		if !found {
			return time.Time{}, 0, "", "", false
		}
		rest = after
	}
	head, text, ok := strings.Cut(rest, "| ")
	if !ok && strings.HasSuffix(rest, "|") {
		head, ok = rest[:len(rest)-1], true // nothing after the bar
	}
	fields := strings.Fields(head)
	if !ok || len(fields) != 2 {
		return time.Time{}, 0, "", "", false
	}
	place, v := fields[0], fields[1]
	if _, line, found := strings.Cut(place, ":"); !found || !isDigits(line) {
		return time.Time{}, 0, "", "", false
	}
	var level oplog.Level
	switch {
	case v == "FATL":
		level = oplog.LevelFatal
	case v == "ERR":
		level = oplog.LevelError
	case v == "WARN":
		level = oplog.LevelWarn
	case v == "INFO" || v == "0":
		level = oplog.LevelInfo
	case isDigits(v):
		level = oplog.LevelDebug
	default:
		return time.Time{}, 0, "", "", false
	}
	return t, level, place, text, true
}

// isDecimal reports a number with perhaps a fraction: "0.001", "12".
func isDecimal(s string) bool {
	whole, frac, _ := strings.Cut(s, ".")
	return whole != "" && isDigits(whole) && (frac == "" || isDigits(frac))
}

// logfmtText is the text of a logfmt line: its message (msg=), then its
// other pairs as written, without the time and the level the record holds
// ("time=… level=ERROR msg=\"no spawn point\" kind=orc" is "no spawn point
// kind=orc"); the line whole when it has no message.
func logfmtText(s string) string {
	var msg string
	var rest []string
	found := false
	for s != "" {
		s = strings.TrimLeft(s, " ")
		key, after, ok := strings.Cut(s, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \"") {
			return s // not logfmt from here on: the rest as written
		}
		n := len(key) + 1
		value := after
		if strings.HasPrefix(after, `"`) {
			end := quotedEnd(after)
			if end < 0 {
				return s
			}
			if v, err := strconv.Unquote(after[:end]); err == nil {
				value = v
			} else {
				value = after[1 : end-1]
			}
			n += end
		} else {
			value, _, _ = strings.Cut(after, " ")
			n += len(value)
		}
		switch key {
		case "msg", "message":
			if !found {
				msg, found = value, true
			}
		case "time", "ts", "level", "lvl", "severity":
		default:
			rest = append(rest, s[:n])
		}
		s = s[n:]
	}
	if !found {
		return strings.Join(rest, " ")
	}
	return strings.TrimSpace(msg + " " + strings.Join(rest, " "))
}

// quotedEnd returns the length of the quoted value s begins with, its
// quotes counted, or -1.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// melHeader reads the first line of Microsoft.Extensions.Logging's console
// (.NET's ILogger): "fail: Game.World[0]", the level's four letters, the
// category, the event's number; the message is on the lines under it,
// indented, then the exception.
func melHeader(s string) (oplog.Level, string, bool) {
	word, rest, ok := strings.Cut(s, ": ")
	if !ok || !strings.HasSuffix(rest, "]") || strings.IndexByte(rest, ' ') >= 0 {
		return 0, "", false
	}
	category, id, ok := strings.Cut(rest[:len(rest)-1], "[")
	if !ok || category == "" || !isDigits(id) {
		return 0, "", false
	}
	level, ok := map[string]oplog.Level{"trce": oplog.LevelDebug, "dbug": oplog.LevelDebug, "info": oplog.LevelInfo,
		"warn": oplog.LevelWarn, "fail": oplog.LevelError, "crit": oplog.LevelFatal}[word]
	return level, category, ok
}

// notifyHeader reads a line of Panda3D's Notify (its C++ categories and
// the Python DirectNotify's): ":display:x11display(error): BadValue …",
// ":ShowBase(warning): Unable to open 'onscreen' window.", and at info no
// severity, ":display: Using threading model Cull/Draw". The category is
// the name.
func notifyHeader(s string) (oplog.Level, string, string, bool) {
	if len(s) < 4 || s[0] != ':' || !isLetter(s[1]) {
		return 0, "", "", false
	}
	i := 1
	for i < len(s) && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '_' || s[i] == ':' && i+1 < len(s) && s[i+1] != ' ') {
		i++
	}
	name, level := s[1:i], oplog.LevelInfo
	if i < len(s) && s[i] == '(' {
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			return 0, "", "", false
		}
		lv, ok := notifySeverities[s[i+1:i+j]]
		if !ok {
			return 0, "", "", false
		}
		level, i = lv, i+j+1
	}
	if rest := s[i:]; rest != ":" && !strings.HasPrefix(rest, ": ") {
		return 0, "", "", false
	}
	return level, name, strings.TrimPrefix(s[i+1:], " "), true
}

// notifySeverities are Panda3D's Notify severities.
var notifySeverities = map[string]oplog.Level{"spam": oplog.LevelDebug, "debug": oplog.LevelDebug, "info": oplog.LevelInfo,
	"warning": oplog.LevelWarn, "error": oplog.LevelError, "fatal": oplog.LevelFatal}

// libraryHeader reads what the libraries a game runs on print of their
// own, without a logger: "libpng warning: iCCP: known incorrect sRGB
// profile", LWJGL's "[LWJGL] GLFW_API_UNAVAILABLE error" (a Java game's GLFW),
// Steamworks' "[S_API FAIL] SteamAPI_Init() failed; …", "MESA: error: ZINK: failed to choose pdev" (a library, then a
// level word and its colon); GLFW's error callback as Dear ImGui's
// examples print it, "GLFW Error 65543: GLX: Failed to create context";
// Vulkan's validation layers, "Validation Error: [ VUID-… ] …"; OpenAL
// Soft's "AL lib: (EE) …"; ALSA's "ALSA lib pcm.c:2664:(snd_pcm_open_noupdate)
// Unknown PCM default" (a warning: the game plays on without sound);
// PyInstaller's "[4321] Failed to execute script 'main' due to unhandled
// exception!". The library is the name. (Xlib's default handlers' lines, which it exits
// after, are the runtimes' layer's: nativeAbort.)
func libraryHeader(s string) (oplog.Level, string, string, bool) {
	switch {
	case strings.HasPrefix(s, "[LWJGL] "):
		// LWJGL's GLFW error callback (GLFWErrorCallback.createPrint):
		// "[LWJGL] GLFW_API_UNAVAILABLE error", its description and stack
		// indented under it.
		if code, ok := strings.CutSuffix(s[len("[LWJGL] "):], " error"); ok && isIdentWord(code) && isUpper(code) {
			return oplog.LevelError, "LWJGL", s[len("[LWJGL] "):], true
		}
		return 0, "", "", false
	case strings.HasPrefix(s, "[S_API FAIL] "): // Steamworks: "[S_API FAIL] SteamAPI_Init() failed; …"
		return oplog.LevelError, "Steam", s[len("[S_API FAIL] "):], true
	case strings.HasPrefix(s, "[S_API] "):
		return oplog.LevelInfo, "Steam", s[len("[S_API] "):], true
	case strings.HasPrefix(s, "[") && strings.Contains(s[:min(len(s), 40)], "] Failed to execute script "):
		// PyInstaller's bootloader before 6, after the traceback of the
		// exception its program died of: "[4321] Failed to execute script
		// 'main' due to unhandled exception!" (the process in brackets).
		if pid, text, _ := strings.Cut(s[1:], "] "); isDigits(pid) {
			return oplog.LevelError, "PYI", text, true
		}
	case strings.HasPrefix(s, "ALSA lib "):
		return oplog.LevelWarn, "ALSA", s[len("ALSA lib "):], true
	case strings.HasPrefix(s, "AL lib: ("):
		if lv, ok := map[string]oplog.Level{"(EE)": oplog.LevelError, "(WW)": oplog.LevelWarn, "(II)": oplog.LevelInfo}[s[8:min(len(s), 12)]]; ok {
			return lv, "OpenAL", strings.TrimLeft(s[min(len(s), 12):], " "), true
		}
	case strings.HasPrefix(s, "Validation "):
		for _, w := range [...]struct {
			head  string
			level oplog.Level
		}{{"Validation Error: ", oplog.LevelError}, {"Validation Warning: ", oplog.LevelWarn}, {"Validation Performance Warning: ", oplog.LevelWarn}} {
			if strings.HasPrefix(s, w.head+"[") {
				return w.level, "Vulkan", s, true
			}
		}
	}
	lib, rest, ok := strings.Cut(s, " ")
	lib = strings.TrimSuffix(lib, ":")
	if !ok || lib == "" || len(lib) > 24 || !isIdentWord(lib) || isLevelWord(lib) {
		return 0, "", "", false
	}
	word, text, ok := strings.Cut(rest, " ")
	if code, msg, isCode := strings.Cut(text, ": "); ok && word == "Error" && isDigits(code) && isCode {
		return oplog.LevelError, lib, msg, true // "GLFW Error 65543: msg"
	}
	if !ok || !strings.HasSuffix(word, ":") {
		return 0, "", "", false
	}
	switch word {
	case "warning:":
		return oplog.LevelWarn, lib, text, true
	case "error:":
		return oplog.LevelError, lib, text, true
	case "fatal:":
		return oplog.LevelFatal, lib, text, true
	}
	return 0, "", "", false
}

// ownLine reports a record of a library that prints on its own, beside the
// game's output and never about it (ALSA's lines as it opens no sound
// card, OpenAL's, Vulkan's layers', Steam's, Mesa's, libpng's, libEGL's):
// a trace after it is not its, however bad its level.
func ownLine(name string) bool {
	switch name {
	case "ALSA", "OpenAL", "Vulkan", "Steam", "MESA", "Mesa", "libpng", "libEGL", "libGL", "libdecor":
		return true
	}
	return false
}

// isIdentWord reports a library's name: letters, digits, '_' and '-', a
// letter first.
func isIdentWord(s string) bool {
	if !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
