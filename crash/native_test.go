package crash

import "testing"

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
