package crash

import (
	"slices"
	"strings"
	"testing"
)

// TestSignature_UnityNativeDump: Windows' dumps are told apart by their
// frames, not by the symbol path and modules every dump starts with.
func TestSignature_UnityNativeDump(t *testing.T) {
	const head = "SymInit: Symbol-SearchPath: '.;C:\\Games\\Run', symOptions: 534, UserName: 'dev'\nOS-Version: 10.0.0\n" +
		"C:\\Windows\\SYSTEM32\\ntdll.dll:ntdll.dll (00007FFA20910000), size: 2179072 (result: 0), SymType: '-deferred-', PDB: ''\n\n" +
		"========== OUTPUTTING STACK TRACE ==================\n\n"
	sig := func(frames string) (string, string) {
		s, title, _ := Signature(head + frames + "\n========== END OF STACKTRACE ===========\n")
		return s, title
	}
	f := func(a, b string, same bool, title string) {
		t.Helper()
		sa, ta := sig(a)
		sb, _ := sig(b)
		if (sa == sb) != same || ta != title {
			t.Errorf("%q / %q: same %v, title %q; want same %v, title %q", a, b, sa == sb, ta, same, title)
		}
	}
	f("0x00007FF98B3542BB (UnityPlayer) UnityMain\n0x0000022124FE0CC9 (Mono JIT Code) (wrapper managed-to-native) UnityEngine.Texture2D:Compress (UnityEngine.Texture2D,bool)",
		"0x00007FF11B3542BB (UnityPlayer) UnityMain\n  ERROR: SymGetSymFromAddr64, GetLastError: 'x' (Address: 00007FF98AAC751E)\n0x00000223DDCD1CDB (Mono JIT Code) (wrapper managed-to-native) UnityEngine.Texture2D:Compress (UnityEngine.Texture2D,bool)",
		true, "crash in Texture2D.Compress")
	f("0x00000001416323F4 (Unity) mecanim::skeleton::CreateSkeletonPose<math::trsX>",
		"0x0000000011F821D5 (Mono JIT Code) [C:\\P\\Assets\\ImportAnimation.cs:14] SetupAnimationProcessor:SetupAnimation () ",
		false, "crash in skeleton.CreateSkeletonPose")
	f("0x00007FFAA5D61158 (mono) [c:\\buildslave\\mono\\build\\eglib\\src\\goutput.c:201] g_logv ",
		"0x00007FFAA5D61158 (mono) [c:\\buildslave\\mono\\build\\eglib\\src\\goutput.c:205] g_logv ",
		true, "crash in g_logv")
}

// TestNormalizeHead_LoggerPrefix: the head of an exception logged with a
// prefix is the exception.
func TestNormalizeHead_LoggerPrefix(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := normalizeHead(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	f("Exception in Verse.AI.ThinkNode_Priority TryIssueJobPackage: System.NullReferenceException: Object reference not set",
		"System.NullReferenceException: Object reference not set")
	f("System.NullReferenceException: Object reference not set", "System.NullReferenceException: Object reference not set")
	f("Exception ticking Vex: System.NullReferenceException", "System.NullReferenceException")
	f("Loading: 3 assets", "Loading: N assets")
}

// TestAndroidTombstone: the frames of Android's tombstone (debuggerd's,
// and the runtime's abort dump's "native: #00 pc …"): a symbol names a
// frame, its offset left out; without one the module and the offset in it
// do (two places in one library are two crashes), though they never name
// the game's frame, nor do Android's own libraries; the tombstone's banner, build, registers are
// no head.
func TestAndroidTombstone(t *testing.T) {
	stack := func(pc string) string {
		return "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n" +
			"Build fingerprint: 'google/sdk_gphone64_arm64/emu64a:14/UE1A.230829.036/10958433:userdebug/dev-keys'\n" +
			"pid: 4321, tid: 4345, name: GLThread 12  >>> com.example.dungeon <<<\n" +
			"signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000018\n" +
			"    x0  0000000000000000  x1  0000007fe1c3a8b0  x2  0000000000000001  x3  0000000000000000\n" +
			"backtrace:\n" +
			"      #00 pc 00000000000c1000  /apex/com.android.runtime/lib64/bionic/libc.so (abort+164) (BuildId: 4e2ab0c1)\n" +
			"      #01 pc " + pc + "  /data/app/~~Qm1x==/com.example.dungeon-Zk9w==/lib/arm64/libdungeon.so (BuildId: 9c1d5e7a)\n" +
			"      native: #02 pc 00000000001a3004  /data/app/~~Qm1x==/com.example.dungeon-Zk9w==/lib/arm64/libdungeon.so (_ZN5World4tickEf+120) (BuildId: 9c1d5e7a)\n"
	}
	tr := Parse(stack("00000000001a2b3c"))
	if tr.Head != "" || !slices.Equal(tr.Frames, []string{"abort", "libdungeon.so+0x1a2b3c", "World::tick"}) {
		t.Errorf("head %q frames %q", tr.Head, tr.Frames)
	}
	if g := GameFrame(stack("00000000001a2b3c")); !strings.HasPrefix(g, "native: #02") { // the first of the game's with a symbol
		t.Errorf("game frame %q", g)
	}
	if Parse(stack("00000000001a2b3c")).Signature() == Parse(stack("00000000001a2f00")).Signature() {
		t.Error("two places in a library without symbols: one signature")
	}
}

// TestCoredumpFrames: systemd-coredump's frames ("#0  0x… symbol (module +
// 0xoff)") by their symbol, a C++ one demangled; without a symbol, a
// system library's left out and the game's by its module and offset; the C
// runtime's start left out. The title names the game's frame, past libc's
// raise and abort.
func TestCoredumpFrames(t *testing.T) {
	stack := "Stack trace of thread 4121:\n" +
		"#0  0x00007f6184b7826c n/a (libc.so.6 + 0x8926c)\n" +
		"#1  0x00007f6184b28a08 raise (libc.so.6 + 0x39a08)\n" +
		"#2  0x00007f6184b11538 abort (libc.so.6 + 0x22538)\n" +
		"#3  0x000056523211b1d7 _ZN5World10spawnEnemyEi (dungeon + 0x1e31d7)\n" +
		"#4  0x000056523211b1c6 n/a (dungeon + 0x1e31c6)\n" +
		"#5  0x000056523211b1c0 main (dungeon + 0x1e31c0)\n" +
		"#6  0x00007f404821ed8a __libc_start_main (libc.so.6 + 0x25d8a)\n" +
		"#7  0x00007f062022dac6 n/a (n/a)\n"
	want := []string{"raise", "abort", "World::spawnEnemy", "dungeon+0x1e31c6", "main"}
	if got := Parse(stack).Frames; !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
	title, _, _ := Describe("Process 4121 (dungeon) of user 1000 dumped core.", stack)
	if want := "Process 4121 (dungeon) of user 1000 dumped core. in World::spawnEnemy (dungeon+0x1e31d7)"; title != want {
		t.Errorf("title %q, want %q", title, want)
	}
}
