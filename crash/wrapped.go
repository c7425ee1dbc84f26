package crash

import (
	"slices"
	"strings"
)

// Exceptions wrapped by event buses and loggers: Forge's and NeoForge's
// EventBus print "Exception caught during firing event: ...", then
// "Index: 3", "Listeners:" and one line per listener, and only then the
// exception and its frames. The crash's head is the exception's first
// line, not "Index: 3", so that the same exception thrown to different
// listeners is one crash.

// isExceptionLine reports an exception's first line: a qualified type
// name ending in Exception, Error or Throwable ("java.lang.
// NullPointerException: ...", "System.InvalidOperationException").
func isExceptionLine(s string) bool {
	head := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		head = s[:i]
	}
	if head == "" || strings.ContainsAny(head, " \t") || !strings.Contains(head, ".") {
		return false
	}
	return strings.HasSuffix(head, "Exception") || strings.HasSuffix(head, "Error") || strings.HasSuffix(head, "Throwable")
}

// javaLeadIn is a stack whose Java exception comes after lines of the
// message's own (Forge's event bus's "Index:" and "Listeners:", a
// plugin's banner, Minecraft's "> Errors in registry …"): from the
// exception on, the first line that names one with a frame ("at …")
// under it. A stack with a frame before that, or whose first line is its
// exception, is returned as it is.
func javaLeadIn(stack string) string {
	if !strings.Contains(stack, "at ") {
		return stack
	}
	prev, prevAt := "", 0
	for at, n := 0, 0; at < len(stack) && n < 64; n++ {
		line, _, _ := strings.Cut(stack[at:], "\n")
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "at ") {
			if n > 1 && isExceptionLine(prev) {
				return stack[prevAt:]
			}
			return stack
		}
		if s != "" {
			if n == 0 && isExceptionLine(s) {
				return stack
			}
			prev, prevAt = s, at
		}
		at += len(line) + 1
	}
	return stack
}

// mcReported are the names, over Minecraft's mappings, of the exception
// the game throws with a crash report's description ("Ticking block
// entity", "Exception in server tick loop"): a wrapper, its cause the
// crash.
var mcReported = []string{"net.minecraft.util.crash.CrashException", "net.minecraft.class_148"} // and every *.ReportedException

// reportedCause is a stack whose exception is Minecraft's ReportedException
// from its cause on ("Caused by: java.lang.NullPointerException: …" and
// that exception's frames), as the crash report the game writes shows it:
// titles name the cause and its frame. A cause that wraps a
// ReportedException again ("java.util.concurrent.ExecutionException:
// net.minecraft.server.v1_13_R1.ReportedException: Loading NBT data") is
// passed too. Any other stack, and one whose cause has no frames, is
// returned as it is.
func reportedCause(stack string) string {
	for range 8 {
		first, _, _ := strings.Cut(strings.TrimLeft(stack, " \t\r\n"), "\n")
		if !mcReportedLine(first) {
			return stack
		}
		i := strings.Index(stack, "\nCaused by: ")
		if i < 0 {
			return stack
		}
		cause := stack[i+len("\nCaused by: "):]
		_, rest, _ := strings.Cut(cause, "\n")
		if !strings.HasPrefix(strings.TrimSpace(rest), "at ") {
			return stack // its frames are not there (a log cut there): the wrapper's
		}
		stack = cause
	}
	return stack
}

// mcReportedLine reports an exception's line that is Minecraft's
// ReportedException, or an exception whose message is one.
func mcReportedLine(s string) bool {
	for s != "" {
		head, rest, _ := strings.Cut(strings.TrimSpace(s), ": ")
		if strings.HasPrefix(head, "net.minecraft.") && (strings.HasSuffix(head, ".ReportedException") || slices.Contains(mcReported, head)) {
			return true
		}
		if !isExceptionLine(head) {
			return false
		}
		s = rest
	}
	return false
}
