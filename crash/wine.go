package crash

import (
	"strings"
)

// Wine's crash report (winedbg's, as a Windows game run under Wine or
// Proton prints it) holds its registers, a stack dump, the backtrace,
// the modules and the threads; only the backtrace's frames say where:
//
//	=>0 0x000001400015f5 damage_enemy+0x34(list=000000000021FD20, n=0x2) [Z:\src\main.c:13] in game (0x0000000021fcf0)
//	  2 0x000001400013ae in game (+0x13ae) (0x00000000c81300)
//	  4 0x0000007b627e49 BaseThreadInitThunk+0x9(...) [Z:\wine\dlls\kernel32\thread.c:61] in kernel32 (0000000000000000)
//
// wineFrames reads such a stack as those frames alone, each in the shape
// the native readers know: gdb's ("#0 0x… in damage_enemy () at
// Z:\src\main.c:13") with a symbol, backtrace_symbols' ("game(+0x13ae)
// [0x1400013ae]") without one, which names the place in a stripped build
// (offsetFrame); Windows' and Wine's own DLLs left out. Any other stack
// is returned as it is.
func wineFrames(stack string) string {
	at := strings.Index(stack, "\nBacktrace:\n")
	if at < 0 || !strings.Contains(stack[:at], "Unhandled ") && !strings.Contains(stack[:at], "Register dump:") {
		return stack
	}
	var b strings.Builder
	for line := range strings.Lines(stack[at+len("\nBacktrace:\n"):]) {
		t := strings.TrimSpace(line)
		n, addr, rest, ok := wineFrameParts(t)
		if !ok {
			if strings.HasPrefix(t, "0x") || t == "" {
				continue // the faulting instruction
			}
			break
		}
		fn, loc, module := wineSymbol(rest)
		switch {
		case wineSystemModule(module):
		case fn != "":
			b.WriteString("#" + n + " " + addr + " in " + fn + " ()")
			if loc != "" {
				b.WriteString(" at " + loc)
			}
			b.WriteByte('\n')
		case module != "":
			off := ""
			if i := strings.Index(rest, "(+0x"); i >= 0 {
				off, _, _ = strings.Cut(rest[i+1:], ")")
			}
			// backtrace_symbols' module has no space: "adobe air" is "adobe_air".
			b.WriteString(strings.ReplaceAll(module, " ", "_") + "(" + off + ") [" + addr + "]\n")
		}
	}
	return b.String()
}

// wineFrameParts splits a backtrace's line "=>0 0x000001400015f5 rest"
// or "2 0x… rest" into its number, address and the rest.
func wineFrameParts(t string) (n, addr, rest string, ok bool) {
	t = strings.TrimPrefix(t, "=>")
	n, t, ok = strings.Cut(t, " ")
	if !ok || n == "" || strings.Trim(n, "0123456789") != "" {
		return "", "", "", false
	}
	addr, rest, ok = strings.Cut(strings.TrimSpace(t), " ")
	if !ok || !strings.HasPrefix(addr, "0x") {
		return "", "", "", false
	}
	return n, addr, rest, true
}

// wineSymbol reads a frame's "damage_enemy+0x34(args) [Z:\src\main.c:13]
// in game (0x…)": its function, file and line, and module ("in game
// (+0x13ae) (0x…)": no function).
func wineSymbol(rest string) (fn, loc, module string) {
	i := strings.LastIndex(rest, " in ")
	if i < 0 && strings.HasPrefix(rest, "in ") {
		i = -1
	} else if i < 0 {
		return "", "", ""
	}
	sym, mod := rest[:max(i, 0)], rest[i+len(" in "):]
	module, _, _ = strings.Cut(mod, " (")
	if j := strings.LastIndexByte(sym, '['); j >= 0 && strings.HasSuffix(sym, "]") {
		loc, sym = sym[j+1:len(sym)-1], strings.TrimSpace(sym[:j])
	}
	if j := strings.IndexAny(sym, "+("); j >= 0 {
		sym = sym[:j]
	}
	return strings.TrimSpace(sym), loc, strings.TrimSpace(module)
}

// wineSystemModule reports Windows' and Wine's own modules, which a
// game's crash passes through but never names.
func wineSystemModule(module string) bool {
	switch strings.ToLower(module) {
	case "ntdll", "kernel32", "kernelbase", "msvcrt", "ucrtbase", "user32", "win32u", "gdi32", "combase", "ole32",
		"advapi32", "ws2_32", "winex11", "wined3d", "d3d9", "d3d11", "dxgi", "opengl32", "<wine-loader>", "libwine.so.1", "ntdll.so":
		return true
	}
	return strings.HasPrefix(module, "vcruntime") || strings.HasPrefix(module, "msvcp")
}
