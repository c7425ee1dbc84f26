package crash

import "strings"

// rustFrame reads a frame of a Rust panic's backtrace as the crate's file:
// "at game::main (/home/me/game/src/main.rs:98:13)" and, without
// RUST_BACKTRACE, "at src/main.rs:98:13" are both "src/main.rs", so that
// one panic is one crash however its backtrace was asked for and whichever
// compiler built it. The standard library's frames, the panic machinery,
// dependencies' and frames without a file are "": not the game's. Parse
// keeps the first of the crate's frames only, where it panicked: the frames
// that called it are in a backtrace, never in a panic without one.
func rustFrame(s string) string {
	i := strings.Index(s, ".rs:")
	if i < 0 {
		return ""
	}
	path := s[:i+len(".rs")]
	if j := strings.LastIndexAny(path, " ("); j >= 0 {
		path = path[j+1:]
	}
	path = strings.ReplaceAll(path, `\`, "/")
	for _, p := range []string{"/rustc/", "/rustc-", "/library/std/", "/library/core/", "/library/alloc/", ".cargo/registry", "/.rustup/"} {
		if strings.Contains(path, p) {
			return ""
		}
	}
	if j := strings.LastIndex(path, "src/"); j >= 0 {
		return path[j:]
	}
	if j := strings.LastIndexByte(path, '/'); j >= 0 {
		return path[j+1:]
	}
	return path
}
