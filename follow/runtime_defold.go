package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Defold's engine (dmengine) writes a crash dump when it crashes, then its
// call stack to its log, each line behind its "ERROR:CRASH:" prefix (older
// engines' frames bare):
//
//	INFO:CRASH: Successfully wrote Crashdump to file: C:\Users\A\AppData\Roaming\Defold/_crash
//	ERROR:CRASH: CALL STACK:
//
//	ERROR:CRASH:  0 0x7FF7C41C9F40 dmCrash::GenerateCallstack D:\a\defold\defold\engine\crash\src\backtrace_win32.cpp:144
//	ERROR:CRASH:  8 0x7FF7C41F47A0 dmGraphics::WriteAttribute D:\a\defold\defold\engine\graphics\src\graphics.cpp:469
//	ERROR:CRASH:
//
// It is one fatal record, the line that says the dump was written (else
// "CALL STACK:") its text, the frames its stack.

const defoldCallStack = "ERROR:CRASH: CALL STACK:"

// defoldStart reports Defold's call stack's first line.
func defoldStart(s string) bool { return s == defoldCallStack }

// defoldDump reports Defold's line before its call stack, which names the
// dump it wrote: the record the call stack joins.
func defoldDump(r *oplog.Record) bool {
	return r.Stack == "" && strings.HasPrefix(r.Text, "Successfully wrote Crashdump to file: ")
}

// defold adds a line to Defold's call stack: a frame, behind the prefix or
// bare; the prefix alone ends it.
func (r *report) defold(s string, end int64) bool {
	rest, prefixed := strings.CutPrefix(s, "ERROR:CRASH:")
	t := strings.TrimSpace(rest)
	switch {
	case prefixed && t == "":
		r.done, r.e.end = true, end
		return true
	case !defoldFrame(t):
		return false
	}
	return r.add(t, end)
}

// defoldFrame reports a frame of Defold's call stack: "8 0x7FF7C41F47A0
// dmGraphics::WriteAttribute D:\…\graphics.cpp:469", "2 0x55D3A1E51A20
// dmGameSystem::CompSpriteUpdate(…) <unknown>:0".
func defoldFrame(t string) bool {
	n, rest, ok := strings.Cut(t, " 0x")
	return ok && isDigits(n) && strings.Contains(rest, " ")
}
