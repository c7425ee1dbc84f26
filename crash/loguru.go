package crash

import (
	"slices"
	"strconv"
	"strings"
)

// emilk/loguru (C++) prints a stack trace before its fatal line, or after
// "Loguru caught a signal": "Stack trace:", then frames numbered down to
// 0, outermost first, each its number, its address, and the function and
// offset ("2       0x56419edb9e76 main + 696") or, without a symbol,
// backtrace_symbols' line ("1       0x56419edb9b7d ./game(+0x65b7d)
// [0x56419edb9b7d]").

const loguruStack = "Stack trace:\n"

// loguruParts splits a frame of loguru's into its number and what follows
// its address: a function and its offset, or backtrace_symbols' line
// (Defold's frames, numbered too, end in a file and line instead).
func loguruParts(s string) (n int, rest string, ok bool) {
	num, rest, ok := strings.Cut(s, " ")
	rest = strings.TrimLeft(rest, " ")
	if !ok || !allDigits(num) || !isHexStart(rest, 0) {
		return 0, "", false
	}
	_, rest, ok = strings.Cut(rest, " ")
	rest = strings.TrimLeft(rest, " ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return 0, "", false
	}
	if _, _, ok := execinfoParts(rest); ok {
		return n, rest, true
	}
	fn, off, ok := strings.Cut(rest, " + ")
	return n, rest, ok && fn != "" && allDigits(off)
}

// loguruFrame reads a frame of loguru's with a symbol: the function's
// name ("" for the C runtime's start).
func loguruFrame(s string) (string, bool) {
	_, rest, ok := loguruParts(s)
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, " + ")
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	if name = demangled(name); nativeStartup(name) {
		return "", true
	}
	return normalizeName(name), true
}

// loguruSymbol is what follows a loguru frame's address: "main + 696";
// any other line is s.
func loguruSymbol(s string) string {
	if _, rest, ok := loguruParts(s); ok {
		return rest
	}
	return s
}

// loguruInnerFirst returns stack with loguru's frames after its "Stack
// trace:" innermost first, as every other stack is read; any other stack
// as it is.
func loguruInnerFirst(stack string) string {
	i := strings.Index(stack, loguruStack)
	if i < 0 {
		return stack
	}
	from := i + len(loguruStack)
	var frames []string
	end := from
	for line := range strings.Lines(stack[from:]) {
		if _, _, ok := loguruParts(strings.TrimSpace(line)); !ok {
			break
		}
		frames = append(frames, strings.TrimRight(line, "\r\n"))
		end += len(line)
	}
	if len(frames) < 2 {
		return stack
	}
	first, _, _ := loguruParts(strings.TrimSpace(frames[0]))
	last, _, _ := loguruParts(strings.TrimSpace(frames[len(frames)-1]))
	if first < last {
		return stack
	}
	slices.Reverse(frames)
	return stack[:from] + strings.Join(frames, "\n") + "\n" + stack[end:]
}
