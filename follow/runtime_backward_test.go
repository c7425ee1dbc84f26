package follow

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_Backward: backward-cpp's trace is one record, whatever thread
// it names and whether its frames have source: fatal, titled by the
// signal psiginfo names after the frames; without a signal after it (a
// trace a program prints itself) an error titled by its heading.
func TestParse_Backward(t *testing.T) {
	crash := "Stack trace (most recent call last) in thread 4242:\n" +
		"#12   Object \"[0xffffffffffffffff]\", at 0xffffffffffffffff, in\n#11   Object \"./driver\", at 0x55bfb81b706d, in _start\n" +
		"#1    Source \"/srv/game/src/net.cpp\", line 88, in Net::poll() [0x55bfb829e2a1]\n        87:   auto *c = conns[i];\n      > 88:   c->flush();\n" +
		"#0  | Source \"/srv/game/src/conn.h\", line 12, in Conn::flush\n    |   > 12:     buf->write(out);\n      Source \"/srv/game/src/net.cpp\", line 88, in Net::poll() [0x55bfb829e2a1]\n" +
		"Segmentation fault (Address not mapped to object [0x6448])\n"
	printed := "Stack trace (most recent call last):\n#1    Object \"./game\", at 0x55e5098b2c32, in main\n#0    Object \"./game\", at 0x55e5098b6398, in World::spawn(int)\n"
	in := "INFO: up\n" + crash + "INFO: next\n" + printed + "12:00:01 INFO: done\n"
	for _, parser := range []string{"generic", "auto"} {
		recs := recordsOf(feed(mustParser(t, parser), []byte(in)))
		if len(recs) != 5 {
			t.Fatalf("%s: %d records: %+v", parser, len(recs), recs)
		}
		r := recs[1]
		if r.Level != oplog.LevelFatal || r.Text != "Segmentation fault (Address not mapped to object [0x6448])" ||
			r.Stack != strings.TrimSuffix(crash[:strings.LastIndex(crash, "Segmentation")], "\n") {
			t.Errorf("%s: the crash: %s %q\n%s", parser, r.Level, r.Text, r.Stack)
		}
		if r := recs[3]; r.Level != oplog.LevelError || r.Text != "Stack trace (most recent call last):" || !strings.HasSuffix(r.Stack, "in World::spawn(int)") {
			t.Errorf("%s: the printed trace: %s %q\n%s", parser, r.Level, r.Text, r.Stack)
		}
	}
}

// TestParse_Cpptrace: cpptrace's terminate handler's line and its trace
// are one fatal record; a trace a program prints after its own error line
// is that line's stack; after an info line, an error of its own.
func TestParse_Cpptrace(t *testing.T) {
	trace := "Stack trace (most recent call first):\n#0 0x00005613c6d8d5a7 in World::spawnEnemy(std::string const&) at /game/world.cpp:22:30\n" +
		"#1 (inlined)          in World::spawn(int) at /game/world.cpp:30:10\n#2 (filtered)\n#3 0x00005613c6d8d61a in main at /game/main.cpp:45:5\n"
	in := "INFO: up\nTerminate called after throwing an instance of std::runtime_error: no spawn point for orc\n" + trace +
		"ERROR: the save is damaged\n" + trace + "INFO: frame 4\n" + trace + "INFO: done\n"
	type rec struct {
		level oplog.Level
		text  string
	}
	want := []rec{{oplog.LevelInfo, "up"}, {oplog.LevelFatal, "Terminate called after throwing an instance of std::runtime_error: no spawn point for orc"},
		{oplog.LevelError, "the save is damaged"}, {oplog.LevelInfo, "frame 4"}, {oplog.LevelError, "Stack trace (most recent call first):"}, {oplog.LevelInfo, "done"}}
	for _, parser := range []string{"generic", "auto"} {
		recs := recordsOf(feed(mustParser(t, parser), []byte(in)))
		if len(recs) != len(want) {
			t.Fatalf("%s: %d records: %+v", parser, len(recs), recs)
		}
		for i, w := range want {
			r := recs[i]
			withTrace := i == 1 || i == 2 || i == 4
			if r.Level != w.level || r.Text != w.text || withTrace != (r.Stack == strings.TrimSuffix(trace, "\n")) {
				t.Errorf("%s: record %d: %s %q\n%s", parser, i, r.Level, r.Text, r.Stack)
			}
		}
	}
}

// TestParse_BoostStacktrace: boost::stacktrace's frames after a signal
// handler's headline are its stack.
func TestParse_BoostStacktrace(t *testing.T) {
	in := "INFO: frame 3\nCaught signal 11 (Segmentation fault), backtrace:\n 0# on_signal(int) at /game/main.cpp:12\n" +
		" 1# 0x00007F2D3C05AFD0 in /lib/x86_64-linux-gnu/libc.so.6\n 2# World::spawnEnemy(std::string const&) at /game/world.cpp:58\n" +
		"10# _start in ./game\nINFO: after\n"
	recs := recordsOf(feed(mustParser(t, "auto"), []byte(in)))
	if len(recs) != 3 || recs[1].Level != oplog.LevelFatal || !strings.HasPrefix(recs[1].Stack, " 0# on_signal(int)") ||
		!strings.HasSuffix(recs[1].Stack, "10# _start in ./game") {
		t.Errorf("%+v", recs)
	}
}
