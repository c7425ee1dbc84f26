package follow

import (
	"bytes"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// asyncio adds s to the held entry, asyncio's message, when it is a line
// of its context ("future: <Future finished exception=ValueError('bad map')>"),
// a frame of where the task was created under its "source_traceback:" (in
// asyncio's debug mode), or, after them, the exception's line of one raised
// nowhere, which has no traceback ("ValueError: bad map"), past whatever
// prefix the logger put in front of each.
func (p *genericParser) asyncio(s string, end int64) bool {
	if ctx, ok := oplog.AsyncioContext(s); ok {
		if !p.explicit {
			p.e.rec.Level = max(p.e.rec.Level, oplog.LevelError) // logged at error, printed without a format
		}
		return p.e.add(ctx, end)
	}
	if p.e.lines == 0 {
		return false
	}
	_, body, _ := p.stamp(s)
	if _, _, text, ok := findLevel(body); ok {
		body = text
	}
	body = trimLeft(strings.TrimPrefix(body, "stderr: "))
	last := p.e.stack[bytes.LastIndexByte(p.e.stack, '\n')+1:]
	switch {
	case !bytes.Contains(p.e.stack, []byte("_traceback: ")):
	case strings.HasPrefix(body, `File "`):
		return p.e.add("  "+body, end)
	case bytes.HasPrefix(last, []byte(`  File "`)):
		return p.e.add("    "+body, end) // the frame's source line
	}
	if !bytes.HasPrefix(p.e.stack, []byte("future: <Future ")) || !exceptionLine(body) || !p.e.add(body, end) {
		return false
	}
	p.e.rec.Level = max(p.e.rec.Level, oplog.LevelError)
	return true
}
