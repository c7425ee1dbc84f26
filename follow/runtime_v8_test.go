package follow

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_V8Fatal: V8's fatal error and its native frames are one fatal
// record, in Node 20's shape and in older Node's (the frames right after
// the line, which then need not name the heap); a game's own "FATAL
// ERROR:" line that no frame follows is read as before.
func TestParse_V8Fatal(t *testing.T) {
	node20 := "starting\n\n<--- JS stacktrace --->\n\n" +
		"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n----- Native stack trace -----\n\n" +
		" 1: 0xb78db3 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [node]\n" +
		" 2: 0xee8300 v8::Utils::ReportOOMFailure(v8::internal::Isolate*, char const*, v8::OOMDetails const&) [node]\n" +
		"16: 0x195e476  [node]\n"
	older := "FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal.\n 1: 0x8dc1c0 node::Abort() [node]\n 2: 0x8dc20c  [node]\n"
	for name, in := range map[string]string{"node20": node20, "older": older} {
		recs := recordsOf(feed(mustParser(t, "generic"), []byte(in)))
		r := recs[len(recs)-1]
		if r.Level != oplog.LevelFatal || !strings.HasPrefix(r.Text, "FATAL ERROR: ") || !strings.Contains(r.Stack, ": 0x") ||
			strings.Count(r.Stack, ": 0x") != strings.Count(in, ": 0x") {
			t.Errorf("%s: %s %q\n%s", name, r.Level, r.Text, r.Stack)
		}
		for _, o := range recs[:len(recs)-1] {
			if strings.Contains(o.Text, ": 0x") {
				t.Errorf("%s: a frame of its own: %q", name, o.Text)
			}
		}
	}
	mine := "10:00:01 INFO starting\nFATAL ERROR: could not open config.json\n10:00:02 INFO next\n"
	got := recordsOf(feed(mustParser(t, "generic"), []byte(mine)))
	if len(got) != 3 || got[1].Text != "could not open config.json" || got[1].Stack != "" {
		t.Errorf("a game's own line: %+v", got)
	}
}
