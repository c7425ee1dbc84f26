package crash

import "strings"

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
