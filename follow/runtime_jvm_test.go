package follow

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_JVMBanner: the JVM's fatal error banner is one fatal record,
// its text the signal's line (or the memory the JVM lacked), its stack the
// banner without its '#', whatever logged before it; a '#' that heads no
// banner is read as it was.
func TestParse_JVMBanner(t *testing.T) {
	// As a Minecraft player posted it (Slowpoke101/FTBLaunch, Windows,
	// Java 7): "# " lines with a space after the '#'.
	windows := "[12:00:01] [Minecraft main thread/INFO]: Reloading ResourceManager: Default\n" +
		"# \n# A fatal error has been detected by the Java Runtime Environment:\n# \n" +
		"# EXCEPTION_ACCESS_VIOLATION (0xc0000005) at pc=0x00000000614466ca, pid=4572, tid=3700\n# \n" +
		"# JRE version: 7.0_07-b11\n# Java VM: Java HotSpot(TM) 64-Bit Server VM (23.3-b01 mixed mode windows-amd64 compressed oops)\n" +
		"# Problematic frame:\n# C  [atio6axx.dll+0x4e66ca]  DrvPresentBuffers+0x4a332a\n# \n" +
		"# Failed to write core dump. Minidumps are not enabled by default on client versions of Windows\n# \n" +
		"# If you would like to submit a bug report, please visit:\n# http://bugreport.sun.com/bugreport/crash.jsp\n" +
		"# The crash happened outside the Java Virtual Machine in native code.\n# See problematic frame for where to report the bug.\n# \n"
	memory := "#\n# There is insufficient memory for the Java Runtime Environment to continue.\n" +
		"# Native memory allocation (mmap) failed to map 65536 bytes for committing reserved memory.\n" +
		"# An error report file with more information is saved as:\n# /home/dev/hs_err_pid811.log\n"
	for _, parser := range []string{"generic", "minecraft", "auto"} {
		recs := recordsOf(feed(mustParser(t, parser), []byte(windows)))
		if len(recs) != 2 || recs[0].Level != oplog.LevelInfo {
			t.Fatalf("%s: %d records %+v, want the info line and the crash", parser, len(recs), recs)
		}
		r := recs[1]
		if r.Level != oplog.LevelFatal || r.Text != "EXCEPTION_ACCESS_VIOLATION (0xc0000005) at pc=0x00000000614466ca, pid=4572, tid=3700" ||
			!strings.HasPrefix(r.Stack, "A fatal error has been detected by the Java Runtime Environment:\nJRE version: 7.0_07-b11\n") ||
			!strings.Contains(r.Stack, "\nProblematic frame:\nC  [atio6axx.dll+0x4e66ca]  DrvPresentBuffers+0x4a332a\n") ||
			strings.Contains(r.Stack, "#") {
			t.Errorf("%s: %s %q\n%s", parser, r.Level, r.Text, r.Stack)
		}
	}
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(memory)))
	if len(recs) != 1 || recs[0].Level != oplog.LevelFatal || recs[0].Text != "There is insufficient memory for the Java Runtime Environment to continue." ||
		!strings.HasPrefix(recs[0].Stack, "Native memory allocation (mmap) failed to map 65536 bytes") {
		t.Errorf("out of memory: %+v", recs)
	}
	plain := "10:00:01 INFO starting\n#\n10:00:02 INFO # of players: 3\n#\n"
	recs = recordsOf(feed(mustParser(t, "generic"), []byte(plain)))
	var got []string
	for _, r := range recs {
		got = append(got, r.Level.String()+" "+r.Text+"|"+r.Stack)
	}
	if strings.Join(got, ";") != "info starting|#;info # of players: 3|#" {
		t.Errorf("a '#' of no banner: %q", got)
	}
}
