package follow

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_GoRuntimeSays: what Go's runtime says before a fatal error
// ("runtime: goroutine stack exceeds …") is part of that error's record,
// its own stack ("runtime stack:") too; "runtime:" lines no fatal error
// follows are read as they came.
func TestParse_GoRuntimeSays(t *testing.T) {
	in := "2026/12/07 04:21:55 starting\n" +
		"runtime: goroutine stack exceeds 1000000000-byte limit\n" +
		"runtime: sp=0x3994b3480498 stack=[0x3994b3480000, 0x3994d3480000]\n" +
		"fatal error: stack overflow\n\nruntime stack:\n" +
		"runtime.throw({0x4cef00?, 0x41a905?})\n\t/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x39949344be98 sp=0x39949344be68 pc=0x479928\n" +
		"runtime.morestack()\n\t/usr/local/go/src/runtime/asm_amd64.s:681 +0x7d fp=0x39949344bfd0 sp=0x39949344bfc8 pc=0x47ddbd\n\n" +
		"goroutine 1 gp=0x3994933f61e0 m=2 mp=0x399493430808 [running]:\n" +
		"main.spawnEnemy(0xfa231?)\n\t/tmp/rt/so.go:5 +0xa5 fp=0x3994b34804a8 sp=0x3994b34804a0 pc=0x4a63c5\n" +
		"...1024465 frames elided...\n" +
		"main.main()\n\t/tmp/rt/so.go:6 +0x70 fp=0x3994d347ff48 sp=0x3994d347fee8 pc=0x4a6450\n\n" +
		"goroutine 2 gp=0x3994933f6780 m=nil [force gc (idle)]:\n" +
		"runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)\n\t/usr/local/go/src/runtime/proc.go:462 +0xce fp=0x39949342cfa8 sp=0x39949342cf88 pc=0x479a0e\n" +
		"runtime.goexit({})\n\t/usr/local/go/src/runtime/asm_amd64.s:1771 +0x1 fp=0x39949342cfe8 sp=0x39949342cfe0 pc=0x47f701\n" +
		"created by runtime.init.7 in goroutine 1\n\t/usr/local/go/src/runtime/proc.go:363 +0x1a\n"
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(in)))
	if len(recs) != 2 || recs[0].Text != "starting" || recs[0].Stack != "" {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	r := recs[1]
	if r.Level != oplog.LevelFatal || r.Text != "fatal error: stack overflow" ||
		!strings.HasPrefix(r.Stack, "runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=") ||
		!strings.Contains(r.Stack, "runtime stack:\nruntime.throw(") || !strings.HasSuffix(r.Stack, "proc.go:363 +0x1a") {
		t.Errorf("%s %q\n%s", r.Level, r.Text, r.Stack)
	}
	alone := "runtime: note: your Linux kernel may be buggy\n10:00:01 INFO next\n"
	recs = recordsOf(feed(mustParser(t, "generic"), []byte(alone)))
	if len(recs) != 2 || recs[0].Level == oplog.LevelFatal || recs[0].Text != "runtime: note: your Linux kernel may be buggy" || recs[1].Text != "next" {
		t.Errorf("a remark alone: %+v", recs)
	}
}
