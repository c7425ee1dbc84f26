package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// readingWhole reports that the held entry is Ren'Py's traceback.txt.
func (p *genericParser) readingWhole() bool { return p.renpy && p.e.held }

// renpyHeader is the first line of Ren'Py's traceback.txt (after its BOM),
// which it also prints to the console: the simple traceback, "-- Full
// Traceback ---", "Full traceback:", the full one, the exception line, then
// the platform, Ren'Py's version, the game's and the time.
const renpyHeader = "I'm sorry, but an uncaught exception occurred."

// takeRenpy makes the held Ren'Py traceback's text its exception (the last
// unindented line after an indented one) and its stack everything, header
// first.
func (p *genericParser) takeRenpy() {
	st := string(p.e.stack)
	exc, prevIndented := "", false
	for l := range strings.Lines(st) {
		l = strings.TrimRight(l, "\n")
		if l == "" {
			continue
		}
		if !indented(l) && prevIndented {
			exc = l
		}
		prevIndented = indented(l)
	}
	if exc == "" {
		return
	}
	text := p.e.rec.Text
	p.e.rec.Text = oplog.ClipText(exc)
	p.e.stack = append([]byte(text+"\n"), p.e.stack...)
}
