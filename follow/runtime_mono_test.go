package follow

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_MonoNativeCrash: Mono's native crash report is one fatal
// record, its text the signal's sentence, its stack the native and the
// managed frames under their headings (gdb's dump, the telemetry and the
// bytes around the fault left out); what follows the report is read as
// it was. A report without managed frames (as Mono prints on Android)
// ends at the next report.
func TestParse_MonoNativeCrash(t *testing.T) {
	in := string(readSample(t, "runtimes/mono_native.txt")) + "10:00:09 INFO after\n"
	for _, parser := range []string{"generic", "auto", "unity"} {
		recs := recordsOf(feed(mustParser(t, parser), []byte(in)))
		var texts []string
		for _, r := range recs {
			texts = append(texts, r.Text)
		}
		if len(recs) != 4 || texts[0] != "starting" || texts[1] != "spawning" || !strings.HasSuffix(texts[3], "after") {
			t.Fatalf("%s: %d records %q", parser, len(recs), texts)
		}
		r := recs[2]
		if r.Level != oplog.LevelFatal || r.Text != "Got a SIGSEGV while executing native code" ||
			!strings.HasPrefix(r.Stack, "Native stacktrace:\n\t0x") || !strings.Contains(r.Stack, "\nManaged Stacktrace:\n\t  at <unknown> <0xffffffff>\n\t  at Game:strlen <0x000a2>\n\t  at Game:SpawnEnemy <0x00047>") ||
			strings.Contains(r.Stack, "LWP") || strings.Contains(r.Stack, "Pkilling") || strings.Contains(r.Stack, "Memory around") || strings.Contains(r.Stack, "=====") {
			t.Errorf("%s: %s %q\n%s", parser, r.Level, r.Text, r.Stack)
		}
	}
	android := "=================================================================\n\tNative Crash Reporting\n=================================================================\n" +
		"Got a SIGSEGV while executing native code. This usually indicates\na fatal error in the mono runtime or one of the native libraries \nused by your application.\n" +
		"=================================================================\n\n=================================================================\n\tBasic Fault Adddress Reporting\n" +
		"=================================================================\nMemory around native instruction pointer (0x7f7f5fe678):0x7f7f5fe668  00 1c 40 b9\n\n" +
		"No native Android stacktrace (see debuggerd output).\n\n" +
		"Traceback (most recent call last):\n  File \"/game/main.py\", line 3, in <module>\n    run()\nRuntimeError: next\n"
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(android)))
	if len(recs) != 2 || recs[0].Text != "Got a SIGSEGV while executing native code" || recs[1].Text != "RuntimeError: next" {
		var texts []string
		for _, r := range recs {
			texts = append(texts, r.Text)
		}
		t.Errorf("without managed frames: %q", texts)
	}
}
