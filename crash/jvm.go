package crash

import "strings"

// The JVM's fatal error (a crash in native code, HotSpot's own), as the
// follower reads its banner: the signal's line is the record's text, the
// stack the banner's other lines, the one after "Problematic frame:" the
// frame it crashed in:
//
//	C  [liblwjgl_opengl.so+0x12d44]  Java_org_lwjgl_opengl_GL11C_nglDrawElements+0x24
//	V  [libjvm.so+0xed2f94]  Unsafe_PutLong+0x124
//	j  game.World.spawnEnemy(Ljava/lang/String;)V+12
//	J 1234 c2 game.World.spawn(I)V (42 bytes) @ 0x00007f3fa1234567 [0x00007f3fa1234500+0x67]
//
// (C: native code, V: the JVM's, j: interpreted Java, J: compiled Java.)

const jvmProblematic = "Problematic frame:\n"

// jvmBanner is the problematic frame of a JVM's fatal error, alone, as a
// frame the other readers read: a native one as backtrace_symbols writes
// it, a Java one as a Java stack's "at" line. Any other stack is returned
// as it is.
func jvmBanner(stack string) string {
	i := strings.Index(stack, jvmProblematic)
	if i < 0 || i > 0 && stack[i-1] != '\n' || !strings.Contains(stack[:i], "Java Runtime Environment") && !strings.Contains(stack[:i], "JRE version") {
		return stack
	}
	line, _, _ := strings.Cut(stack[i+len(jvmProblematic):], "\n")
	line = strings.TrimSpace(line)
	if len(line) < 4 || line[1] != ' ' {
		return ""
	}
	rest := strings.TrimSpace(line[2:])
	switch line[0] {
	case 'C', 'V':
		// "[liblwjgl_opengl.so+0x12d44]  Java_…_nglDrawElements+0x24";
		// without a symbol, the module and the offset in it.
		place, sym, _ := strings.Cut(rest, "]")
		module, off, ok := strings.Cut(strings.TrimPrefix(place, "["), "+0x")
		if !ok || module == "" || !strings.HasPrefix(place, "[") {
			return "" // "C  0x00000000029c0000": an address alone
		}
		if sym = strings.TrimSpace(sym); sym == "" {
			sym = "+0x" + off
		}
		return module + "(" + sym + ") [0x" + off + "]"
	case 'j', 'J':
		for _, f := range strings.Fields(rest) {
			if name, _, ok := strings.Cut(f, "("); ok && name != "" {
				return "at " + f // "at game.World.spawnEnemy(Ljava/lang/String;)V+12"
			}
		}
	}
	return ""
}
