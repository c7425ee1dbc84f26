package crash

import "strings"

// boost::stacktrace writes a frame as its number, '#', the function and
// its place, innermost first: " 0# World::spawnEnemy(std::string const&)
// at /game/world.cpp:58", " 2# __libc_start_main in
// /lib/x86_64-linux-gnu/libc.so.6", " 3# 0x000055A6F6B57C0F" without a
// symbol.

// boostParts splits a frame of boost::stacktrace's into its function and
// its place ("file:line", "in MODULE" or ""); ok is false for any other
// line.
func boostParts(s string) (fn, place string, ok bool) {
	n, rest, found := strings.Cut(s, "# ")
	if !found || !allDigits(n) || rest == "" {
		return "", "", false
	}
	fn = rest
	if i := strings.LastIndex(rest, " at "); i > 0 {
		fn, place = rest[:i], rest[i+4:]
	} else if i := strings.LastIndex(rest, " in "); i > 0 {
		fn, place = rest[:i], rest[i+1:]
	}
	if isHexStart(fn, 0) && skipHex(fn, 0) == len(fn) {
		fn = "" // an address: no symbol
	}
	return fn, place, true
}

// boostFrame is a frame of boost::stacktrace's as a signature keeps it.
func boostFrame(s string) (string, bool) {
	fn, place, ok := boostParts(s)
	if !ok {
		return "", false
	}
	if fn == "" || nativeStartup(fn) || strings.HasPrefix(place, "in ") && systemLibrary(place[3:]) || runtimeFrame(boostSymbol(s)) {
		return "", true
	}
	return normalizeName(demangled(fn)), true
}

// boostSymbol is a frame of boost::stacktrace's without its number:
// "World::spawnEnemy(std::string const&) at /game/world.cpp:58"; any
// other line is s.
func boostSymbol(s string) string {
	if _, rest, ok := strings.Cut(s, "# "); ok {
		if _, _, ok := boostParts(s); ok {
			return rest
		}
	}
	return s
}
