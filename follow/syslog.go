package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// The syslog prefix a system's log puts before each program's line: the
// journal's (journalctl's short and short-precise, "Dec 07 12:40:01 devbox
// gameserver[4121]: msg", short-iso's "2026-12-07T12:40:01+0000 devbox
// gameserver[4121]: msg") and syslog files' (rsyslog's traditional "Dec  7
// 12:40:01 devbox gameserver[4121]: msg", its RFC 3339 time). What follows
// it is the program's line as it printed it: its own prefix, a traceback.
// The program's name (its process number off) names the record.

// begin starts an entry with line s.
func (p *genericParser) begin(line string, end int64) {
	n, ident, k := syslogPrefix(line)
	if n == 0 {
		p.beginEntry(line, end)
		return
	}
	// The system log's line: the program's own, its time and name the
	// prefix's when the program's line gives none.
	plain := p.plain
	p.beginEntry(line[n:], end)
	if !p.stamped {
		p.e.rec.Time, _ = p.clk.syslogTime(line[:k])
		p.stamped, p.plain = true, plain
	}
	if p.e.rec.Name == "" {
		p.e.setName(ident)
	}
	if lv, found := systemLevel(p.e.rec.Text); found && !p.explicit {
		p.e.rec.Level, p.explicit = lv, true
	}
}

// monthNames are the three letters of the months' names, as syslog writes them.
const monthNames = "JanFebMarAprMayJunJulAugSepOctNovDec"

// syslogPrefix returns the length of the syslog prefix s begins with, to
// the one space after its colon, the program's name and the length of the
// prefix's time; n is 0 when s has none. A time written with its month's
// name is followed by a host and the program, "gameserver:" or
// "gameserver[4121]:" (or by the program with its process number alone:
// journalctl --no-hostname); an ISO time (with its "T") by a host and a program
// with its process number ("kernel:" the one without), so that a logger's
// "2026-12-07T10:00:01Z ERROR World: msg" is not read as one.
func syslogPrefix(s string) (n int, ident string, stampLen int) {
	if len(s) < 20 {
		return 0, "", 0
	}
	iso := false
	switch c := s[0]; {
	case 'A' <= c && c <= 'S':
		if stampLen = monthStamp(s); stampLen == 0 {
			return 0, "", 0
		}
	case isDigit(c):
		// Most lines with an ISO time are a logger's: the program after
		// the host is looked for first.
		sp := strings.IndexByte(s[19:min(len(s), 48)], ' ')
		if s[10] != 'T' || sp < 0 {
			return 0, "", 0
		}
		stampLen = 19 + sp
		after := s[stampLen+1:]
		h := strings.IndexByte(after, ' ')
		if h <= 0 || pidToken(after[h+1:]) == 0 && !strings.HasPrefix(after[h+1:], "kernel: ") || skipISO(s) != stampLen {
			return 0, "", 0
		}
		iso = true
	default:
		return 0, "", 0
	}
	rest := s[stampLen:]
	if len(rest) < 4 || rest[0] != ' ' {
		return 0, "", 0
	}
	host, after, ok := strings.Cut(rest[1:], " ")
	if strings.HasSuffix(host, "]:") && pidToken(rest[1:]) > 0 {
		after = rest[1:] // no host: journalctl --no-hostname
	} else if !ok || host == "" || levelToken(rest[1:]) > 0 {
		return 0, "", 0
	}
	rest = after
	colon := strings.IndexByte(rest, ':')
	if colon <= 0 || colon > 64 || colon+1 < len(rest) && rest[colon+1] != ' ' || strings.ContainsAny(rest[:colon], " \t") {
		return 0, "", 0
	}
	ident = rest[:colon]
	if name, pid, ok := strings.Cut(ident, "["); ok && strings.HasSuffix(pid, "]") && isDigits(pid[:len(pid)-1]) && name != "" {
		ident = name
	} else if iso && ident != "kernel" {
		return 0, "", 0
	}
	n = len(s) - len(rest) + colon + 1
	if n < len(s) {
		n++ // the space after the colon; the program's own indentation is its line's
	}
	return n, ident, stampLen
}

// monthStamp returns the length of the time s begins with in syslog's
// form, "Dec 07 12:40:01" or "Dec  7 12:40:01", its fraction of a second
// too ("12:40:01.123456"); 0 when it has none.
func monthStamp(s string) int {
	if len(s) < 15 || s[3] != ' ' || s[6] != ' ' || strings.Index(monthNames, s[:3])%3 != 0 ||
		!isDigit(s[5]) || s[4] != ' ' && !isDigit(s[4]) {
		return 0
	}
	if _, _, _, _, k, ok := parseClock(s[7:]); ok {
		return 7 + k
	}
	return 0
}

// syslogTime reads the time of a syslog prefix's stamp (syslogPrefix):
// ISO's as parseISO reads it; one with its month's name in the clock's
// year, or the year before when that would put it more than a day ahead.
func (c *clock) syslogTime(stamp string) (time.Time, bool) {
	if isDigit(stamp[0]) {
		t, _, ok := parseISO(stamp, c.location())
		return t, ok
	}
	h, m, sec, ns, _, ok := parseClock(stamp[7:])
	if !ok {
		return time.Time{}, false
	}
	day := int(stamp[5] - '0')
	if stamp[4] != ' ' {
		day += 10 * int(stamp[4]-'0')
	}
	month := time.Month(strings.Index(monthNames, stamp[:3])/3 + 1)
	now := c.date()
	t := time.Date(now.Year(), month, day, h, m, sec, ns, c.location())
	if t.Sub(now) > 24*time.Hour {
		t = t.AddDate(-1, 0, 0)
	}
	return t, true
}

// systemLevel reads the system's own lines that say a program crashed or
// failed, errors though they have no level word: the kernel's
// "gameserver[4121]: segfault at 0 ip …" and "traps: gameserver[4121]
// trap invalid opcode …", systemd-coredump's "Process 4121 (gameserver) of
// user 1000 terminated abnormally with signal 11/SEGV, processing...",
// systemd's "gameserver.service: Main process exited, code=dumped,
// status=11/SEGV" and "gameserver.service: Failed with result
// 'core-dump'.".
func systemLevel(text string) (oplog.Level, bool) {
	switch {
	case strings.Contains(text, "]: segfault at "),
		strings.HasPrefix(text, "traps: ") && strings.Contains(text, "] trap "),
		strings.HasPrefix(text, "Process ") && strings.Contains(text, ") of user ") && strings.Contains(text, " terminated abnormally with signal "),
		strings.Contains(text, ".service: Main process exited, code="),
		strings.Contains(text, ".service: Failed with result '"):
		return oplog.LevelError, true
	}
	return 0, false
}

// syslogNewline is how rsyslog writes a line break in a message (and
// syslogTab a tab), its control characters escaped: a message of several
// lines is one line of /var/log/messages ("… dumped core.#012#012Stack
// trace of thread 27696:#012#0  0x…").
const (
	syslogNewline = "#012"
	syslogTab     = "#011"
)

// syslogEscape reports whether s[i:] begins an escaped line break or tab:
// "#012" or "#011" not followed by a digit ("#0123" is a number).
func syslogEscape(s string, i int) bool {
	if !strings.HasPrefix(s[i:], syslogNewline) && !strings.HasPrefix(s[i:], syslogTab) {
		return false
	}
	return i+4 == len(s) || s[i+4] < '0' || s[i+4] > '9'
}

// syslogEscaped reports whether line's message has its line breaks
// escaped: at least two escapes, one a line break. A single one may be the
// message's own ("map #012 loaded"), and a message of two lines is kept
// whole rather than a number cut.
func syslogEscaped(line string) bool {
	n, newline := 0, false
	for i := strings.IndexByte(line, '#'); i >= 0 && i < len(line); {
		if syslogEscape(line, i) {
			n++
			newline = newline || line[i+3] == '2'
			i += 4
		} else {
			i++
		}
		j := strings.IndexByte(line[i:], '#')
		if j < 0 {
			break
		}
		i += j
	}
	return n >= 2 && newline
}

// syslogLines reads a system log's line whose message has its line breaks
// escaped as the lines it stands for: the first with its prefix, the
// others as the message's further lines.
func (l *runtimeLayer) syslogLines(line string, end int64) []Entry {
	var out []Entry
	_, l.ident, _ = syslogPrefix(line)
	var part strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '#' && syslogEscape(line, i) && line[i+3] == '1':
			part.WriteByte('\t')
			i += 3
		case line[i] == '#' && syslogEscape(line, i):
			out = join(out, l.line(part.String(), end))
			part.Reset()
			i += 3
		default:
			part.WriteByte(line[i])
		}
	}
	out = join(out, l.line(part.String(), end))
	l.ident = ""
	return out
}
