package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// PocketMine-MP (a Minecraft: Bedrock Edition server written in PHP)
// writes server.log in log4j's shape with the date before it:
//
//	2020-02-22 [22:02:37] [Server thread/CRITICAL]: Error: "Call to undefined method …::dataPacket()" (EXCEPTION) in "plugins/VanillaCoordinates.phar/src/…/CoordinateCommand" at line 37
//	2020-02-22 [22:02:37] [Server thread/DEBUG]: #0 src/pocketmine/command/SimpleCommandMap(248): …\CoordinateCommand->execute(object …, string[6] coords, array[1])
//	2020-02-22 [22:02:37] [Server thread/EMERGENCY]: An unrecoverable error has occurred and the server has crashed. Creating a crash dump
//
// Version 4 on gives the time to the millisecond ("[00:38:19.573]") and
// prints an exception's frames as lines of its message, without headers:
// "--- Stack trace ---", "  #0 …", "--- End of exception information ---".
// Its levels are PSR-3's: CRITICAL is what it logs every exception it
// caught at (a plugin's, and the server goes on), so it is an error here;
// EMERGENCY is its crash. The exception's record is the class and message,
// its stack the place it was thrown ("at <frame #0's call> (<file>:<line>)",
// as PHP's own uncaught exceptions read) and the frames, whichever way they
// came. The crash's lines join the exception they follow, which becomes
// fatal: one crash titled by its cause.

// parsePMMPHeader reads PocketMine's header: a date, then a log4j header
// with a time of day and a thread.
func parsePMMPHeader(s string, loc *time.Location) (h log4jHeader, ok bool) {
	y, ok1 := four(s)
	mo, ok2 := two(s, 5)
	d, ok3 := two(s, 8)
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return h, false
	}
	if h, ok = parseLog4jHeader(s[11:], loc); !ok || !h.clock || h.thread == "" || h.pmmp {
		return log4jHeader{}, false
	}
	h.pmmp = true
	if y >= minYear && y <= maxYear {
		h.date, h.t = true, time.Date(y, time.Month(mo), d, h.hour, h.min, h.sec, h.ns, loc)
	}
	if strings.EqualFold(h.word, "critical") || strings.EqualFold(h.word, "alert") {
		h.level = oplog.LevelError
	}
	return h, true
}

// pmmpException reads PocketMine's line for an exception it caught:
// `Class: "message" (code) in "file" at line 37`. It returns the record's
// text ("Class: message") and the place ("file:37").
func pmmpException(msg string) (text, place string, ok bool) {
	class, rest, found := strings.Cut(msg, `: "`)
	if !found || class == "" || strings.ContainsAny(class, " \t") {
		return "", "", false
	}
	i := strings.LastIndex(rest, `" at line `)
	if i < 0 || !isDigits(rest[i+len(`" at line `):]) {
		return "", "", false
	}
	j := strings.LastIndex(rest[:i], `) in "`)
	if j < 0 {
		return "", "", false
	}
	errstr := rest[:j+1]
	if k := strings.LastIndex(errstr, `" (`); k >= 0 && strings.HasSuffix(errstr, ")") {
		errstr = errstr[:k]
	} else {
		return "", "", false
	}
	return class + ": " + errstr, rest[j+len(`) in "`):i] + ":" + rest[i+len(`" at line `):], true
}

// pmmpFrame reports a frame of PocketMine's trace: "#0 src/…(248): call".
func pmmpFrame(t string) bool {
	return len(t) > 3 && t[0] == '#' && isDigit(t[1]) && strings.Contains(t, ": ")
}

// pmmpCrash reports PocketMine's crash lines: the crash, and where it
// wrote its dump.
func pmmpCrash(h *log4jHeader) bool {
	return h.pmmp && h.level == oplog.LevelFatal
}

// pmmpLine adds a line of the held exception's trace, with or without
// its header: before frame #0, the place the exception was thrown. It
// reports whether the line was the trace's.
func (p *log4jParser) pmmpLine(t string, end int64) bool {
	switch {
	case pmmpFrame(t):
		if t[1] == '0' && p.pmmpAt != "" {
			call := t[strings.Index(t, ": ")+2:]
			if i := strings.IndexByte(call, '('); i > 0 {
				call = call[:i] + "()" // its arguments are in the frame
			}
			p.e.add("at "+call+" ("+p.pmmpAt+")", end)
			p.pmmpAt = ""
		}
	case strings.HasPrefix(t, "--- ") && strings.HasSuffix(t, " ---"): // "--- Stack trace ---", "--- Previous ---"
	default:
		return false
	}
	return p.e.add(t, end)
}
