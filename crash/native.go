package crash

import "strings"

// Unity's native crash dumps. On Windows the player and the editor print
// "Crash!!!", the symbol search path, the loaded modules and then one frame
// a line, "0x00007FF6A1B2C3D4 (Unity) mecanim::skeleton::CreateSkeletonPose<math::trsX>",
// "0x0000022124FE0CC9 (Mono JIT Code) (wrapper managed-to-native) UnityEngine.Texture2D:Compress (UnityEngine.Texture2D,bool)",
// "0x00007FF9DDEA436A (mono-2.0-bdwgc) [c:\...\mini-runtime.c:2620] mono_jit_runtime_invoke",
// between "========== OUTPUTTING STACK TRACE" and "========== END OF STACKTRACE" banners.

// nativeFrame reads a frame of a Windows dump: s starts with "0x". ok is
// false when s is not one (a memory dump's "0x005fdc60: 005fdcc0 ..."); the
// frame is "" when it names nothing (an address without symbols).
func nativeFrame(s string) (frame string, ok bool) {
	i := 2
	for i < len(s) && isHex(s[i]) {
		i++
	}
	if i < 6 || i+2 >= len(s) || s[i] != ' ' || s[i+1] != '(' {
		return "", false
	}
	module, rest, found := strings.Cut(s[i+2:], ") ")
	if !found {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "[") { // the source position: "[c:\...\object.c:2853] do_runtime_invoke"
		if _, after, found := strings.Cut(rest, "] "); found {
			rest = strings.TrimSpace(after)
		}
	}
	switch {
	case rest == "" || strings.HasPrefix(rest, "(function-name not available)"):
		return "", true
	case rest == "UnityMain" && module == "UnityPlayer":
		// Without its symbols every address of UnityPlayer.dll resolves
		// to its one export: the name says nothing of the crash.
		return "", true
	case module == "Mono JIT Code":
		return atFrame(rest), true
	}
	if k := strings.IndexByte(rest, '('); k > 0 {
		rest = rest[:k]
	}
	return normalizeName(rest), true
}

// nativeNoise reports the lines of a Windows dump that are neither a frame
// nor the crash's head: the banners, the symbol path, the modules loaded,
// dbghelp's complaints and the count of frames.
func nativeNoise(s string) bool {
	switch {
	case strings.HasPrefix(s, "=========="), s == "Crash!!!",
		strings.HasPrefix(s, "SymInit:"), strings.HasPrefix(s, "OS-Version:"),
		strings.HasPrefix(s, "ERROR: SymGetSymFromAddr64"), s == "Stack trace:",
		strings.HasPrefix(s, "Obtained ") && strings.Contains(s, " stack frames"),
		strings.Contains(s, ", SymType: '"): // "C:\...\ntdll.dll:ntdll.dll (00007FFA...), size: ..., SymType: '-deferred-', ..."
		return true
	}
	return false
}

// exceptionStart returns s from its first exception type on when a logger
// put a prefix before it: "Exception in Verse.AI.ThinkNode_Priority
// TryIssueJobPackage: System.NullReferenceException: Object reference ..."
// gives "System.NullReferenceException: Object reference ...". s is
// returned whole when it starts with the exception or names none.
func exceptionStart(s string) string {
	if !strings.Contains(s, "Exception") {
		return s
	}
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], ": ")
		if j < 0 {
			return s
		}
		if i == 0 && isExceptionType(s[:j]) {
			return s
		}
		rest := s[i+j+2:]
		typ, _, _ := strings.Cut(rest, ":")
		if isExceptionType(strings.TrimSpace(typ)) {
			return rest
		}
		i += j + 2
	}
	return s
}

// isExceptionType reports a .NET or Java exception's type name:
// "System.NullReferenceException", "NullReferenceException".
func isExceptionType(s string) bool {
	return len(s) > len("Exception") && strings.HasSuffix(s, "Exception") && !strings.ContainsAny(s, " \t()")
}
