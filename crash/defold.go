package crash

import "strings"

// Defold's call stack, as its engine logs it when it crashes: "8
// 0x7FF7C41F47A0 dmGraphics::WriteAttribute D:\a\defold\…\graphics.cpp:469",
// "2 0x55D3A1E51A20 dmGameSystem::CompSpriteUpdate(…) <unknown>:0" (the
// follow layer cuts its "ERROR:CRASH:" prefix). Its first frames are the
// crash handler's and the system's exception dispatch, no frames of the
// crash.

// defoldParts splits a frame of Defold's call stack into the function and
// where it is.
func defoldParts(s string) (sym, loc string, ok bool) {
	n, rest, ok := strings.Cut(s, " 0x")
	if !ok || n == "" || strings.Trim(n, "0123456789") != "" {
		return "", "", false
	}
	_, rest, ok = strings.Cut(rest, " ") // past the address
	i := strings.LastIndexByte(rest, ' ')
	if !ok || i <= 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// defoldFrame reads a frame of Defold's call stack: its function, "" for
// the crash handler's and the exception dispatch's.
func defoldFrame(s string) (string, bool) {
	sym, _, ok := defoldParts(s)
	if !ok {
		return "", false
	}
	for _, h := range [...]string{"dmCrash::", "__sigaction", "_seh_filter_exe", "`__scrt_common_main_seh'", "__C_specific_handler",
		"__chkstk", "RtlFindCharInUnicodeString", "KiUserExceptionDispatcher"} {
		if strings.HasPrefix(sym, h) {
			return "", true
		}
	}
	return normalizeName(sym), true
}

// defoldTitle is a frame of Defold's call stack as a title names it: the
// function and where it is, without its number and address.
func defoldTitle(s string) (string, bool) {
	sym, loc, ok := defoldParts(s)
	if loc == "<unknown>:0" {
		return sym, ok
	}
	return sym + " " + loc, ok
}
