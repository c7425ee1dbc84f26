package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Balatro (a LÖVE game) as its mods run it: lovely, the injector mods
// load through, logs every line the game prints behind its level and
// "[G]" (its own behind "[♥]"); Steamodded, the mod loader, logs behind
// its own header inside that:
//
//	INFO - [♥] Lovely 0.8.0
//	INFO - [G] 2025-06-03 23:54:40 :: ERROR :: StackTrace :: Oops! The game crashed
//	functions/misc_functions.lua:656: attempt to call method 'get_id' (a nil value)
//	Stack Traceback
//	===============
//	(1) Lua upvalue 'orig' at file 'main.lua:612'
//	        Local variables:
//	(4) Lua global 'get_X_same' at file 'functions/misc_functions.lua:656'
//
// The time, level and logger are Steamodded's when it gave them. Its crash
// ("Oops! The game crashed", or "Oops! The game crashed:" as its crash
// screen shows it and players paste it, the game's versions and mods after
// the error) is one fatal record: its text the error, its stack every line
// up to the next header, StackTracePlus' frames and their locals too.

// balatroCrashed is Steamodded's first line of a crash.
const balatroCrashed = "Oops! The game crashed"

// balatroCrash reports the first line of Steamodded's crash report.
func balatroCrash(text string) bool { return strings.TrimSuffix(text, ":") == balatroCrashed }

// lovelyHeader reads lovely's header, "INFO - [G] msg", and Steamodded's
// after it or alone, "2025-06-03 23:54:40 :: ERROR :: StackTrace :: msg".
// The time is zero when only lovely's header is there.
func (p *genericParser) lovelyHeader(s string) (time.Time, oplog.Level, string, string, bool) {
	level, name, msg := oplog.LevelInfo, "", s
	if word, rest, ok := strings.Cut(s, " - ["); ok && len(word) <= 5 && isUpper(word) {
		target, after, ok := strings.Cut(rest, "] ")
		lv, isLevel := levelWord(word)
		if !ok || !isLevel || target == "" || len(target) > 8 {
			return time.Time{}, 0, "", "", false
		}
		level, name, msg = lv, target, after
	} else if len(s) < 30 || !isDigit(s[0]) {
		return time.Time{}, 0, "", "", false
	}
	if t, n, ok := parseISO(msg, p.clk.location()); ok && strings.HasPrefix(msg[n:], " :: ") {
		if parts := strings.SplitN(msg[n+len(" :: "):], " :: ", 3); len(parts) == 3 {
			if lv, ok := levelWord(parts[0]); ok && parts[1] != "" {
				p.clk.saw(t)
				return t, lv, parts[1], parts[2], true
			}
		}
	}
	if name == "" {
		return time.Time{}, 0, "", "", false
	}
	return time.Time{}, level, name, msg, true
}

// takeBalatro makes the held crash's text its error, the first line after
// "Oops! The game crashed", and its stack that line and the rest.
func (p *genericParser) takeBalatro() {
	st := string(p.e.stack)
	for l := range strings.Lines(st) {
		if l = strings.TrimSpace(l); l != "" {
			text := p.e.rec.Text
			p.e.rec.Text = oplog.ClipText(l)
			p.e.prepend(text)
			return
		}
	}
}
