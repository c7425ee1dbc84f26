package follow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_Valgrind: Valgrind's reports are a record each, its pid left
// off, their frames the stack; its banner and summaries are lines as they
// came; its blank lines are blank. Valgrind's report of the abort that a
// line without frames explained (the stack protector's, Valgrind 3.13 as
// posted with CERT C examples) is that line's stack; Ctrl-C's SIGINT
// (Helgrind 3.15 as a developer posted it) is a warning, no crash.
func TestParse_Valgrind(t *testing.T) {
	in := "==8672== Memcheck, a memory error detector\n==8672== Command: ./game\n==8672== \n" +
		"*** stack smashing detected ***: <unknown> terminated\n==8672== \n" +
		"==8672== Process terminating with default action of signal 6 (SIGABRT)\n==8672==    at 0x4E7CFB7: raise (raise.c:51)\n" +
		"==8672==    by 0x4F72B21: __stack_chk_fail (stack_chk_fail.c:29)\n==8672==    by 0x10872E: GetServerPath (game.c:43)\n==8672== \n" +
		"==8672== HEAP SUMMARY:\n==8672==     in use at exit: 0 bytes in 0 blocks\n==8672== \n" +
		"==581== Possible data race during write of size 4 at 0x404058 by thread #3\n==581== Locks held: none\n" +
		"==581==    at 0x40124C: thread_set_bit (in /home/dev/test_flags)\n==581==\n" +
		"==581== This conflicts with a previous write of size 4 by thread #2\n==581== Locks held: none\n" +
		"==581==    at 0x40124C: thread_set_bit (in /home/dev/test_flags)\n==581==  Address 0x404058 is 0 bytes inside data symbol \"g_flags\"\n==581==\n" +
		"==581== Process terminating with default action of signal 2 (SIGINT)\n==581==    at 0x4E45017: pthread_join (pthread_join.c:90)\n" +
		"==581==    by 0x4012E4: main (in /home/dev/test_flags)\n==581==\n" +
		"[12:00:01] [WARNING] stderr: ==99== Invalid read of size 4\n[12:00:01] [WARNING] stderr: ==99==    at 0x1091E2: spawn_enemy (game.c:9)\n" +
		"[12:00:01] [WARNING] stderr: ==99== \nafter\n"
	want := []string{
		"info ==8672== Memcheck, a memory error detector", "info ==8672== Command: ./game",
		"fatal *** stack smashing detected ***: <unknown> terminated | Process terminating with default action of signal 6 (SIGABRT)\n   at 0x4E7CFB7: raise (raise.c:51)\n   by 0x4F72B21: __stack_chk_fail (stack_chk_fail.c:29)\n   by 0x10872E: GetServerPath (game.c:43)",
		"info ==8672== HEAP SUMMARY:", "info ==8672==     in use at exit: 0 bytes in 0 blocks",
		"error Possible data race during write of size 4 at 0x404058 by thread #3 | Locks held: none\n   at 0x40124C: thread_set_bit (in /home/dev/test_flags)\n" +
			"This conflicts with a previous write of size 4 by thread #2\nLocks held: none\n   at 0x40124C: thread_set_bit (in /home/dev/test_flags)\n" +
			" Address 0x404058 is 0 bytes inside data symbol \"g_flags\"",
		"warn Process terminating with default action of signal 2 (SIGINT) |    at 0x4E45017: pthread_join (pthread_join.c:90)\n   by 0x4012E4: main (in /home/dev/test_flags)",
		"error Invalid read of size 4 |    at 0x1091E2: spawn_enemy (game.c:9)",
		"info after",
	}
	for _, parser := range []string{"generic", "auto"} {
		var got []string
		for _, r := range recordsOf(feed(mustParser(t, parser), []byte(in))) {
			s := r.Level.String() + " " + r.Text
			if r.Stack != "" {
				s += " | " + r.Stack
			}
			got = append(got, s)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("%s:\n%s\nwant\n%s", parser, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if r := recordsOf(feed(mustParser(t, "generic"), []byte("==77== Invalid read of size 4\n==77== \n"))); len(r) != 1 || r[0].Level != oplog.LevelInfo {
		t.Errorf("a block without frames: %+v", r)
	}
}
