package crash

import "strings"

// Haxe's frames, as its runtimes print an uncaught exception's: HashLink's
// "Called from world.Enemy.takeDamage (world/Enemy.hx line 37)" and
// "Called from $Main.getBytes(Main.hx:8)" (innermost first, under its
// "Uncaught exception: ..."), haxe.CallStack's "Called from Main.main
// (Main.hx line 5 column 3)", hxcpp's "Called from Main::update Main.hx
// line 33" and Neko's "Called from Main.hx line 5" (outermost first, the
// message after them: messageLast).

const haxeCalled = "Called from "

// haxeFrame reads a frame: the function, without HashLink's '$' before a
// class's static part; "" for a frame without a name (a C function, an
// address, an anonymous function).
func haxeFrame(line string) (string, bool) {
	s, ok := strings.CutPrefix(line, haxeCalled)
	switch {
	case !ok:
		return "", false
	case s == "a C function", strings.HasPrefix(s, "? "), strings.HasPrefix(s, "@0x"), strings.HasPrefix(s, "fun$"), strings.HasPrefix(s, "module "):
		return "", true
	}
	s = strings.TrimSuffix(s, " (no debug available)")
	name, _, _ := strings.Cut(s, " ") // hxcpp's "Main::update Main.hx line 33", Neko's "Main.hx line 5"
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i] // HashLink's "$Main.getBytes(Main.hx:8)"
	}
	return normalizeName(strings.ReplaceAll(name, "$", "")), true
}

// messageLast reports a stack whose frames come outermost first and the
// message's line after them, as hxcpp's and Neko's ("Critical Error: …",
// "Error : …", "Uncaught exception - …") and Nim's ("Error: unhandled
// exception: …", "SIGSEGV: …") do: its innermost frame is its last.
func messageLast(stack string) bool {
	last := stack[strings.LastIndexByte(stack, '\n')+1:]
	if strings.HasPrefix(stack, haxeCalled) {
		for _, p := range [...]string{"Error : ", "Critical Error: ", "Uncaught exception - "} {
			if strings.HasPrefix(last, p) {
				return true
			}
		}
	}
	return strings.HasPrefix(last, "Error: unhandled exception: ") || strings.HasPrefix(last, "SIG") && strings.Contains(last, ": ")
}
