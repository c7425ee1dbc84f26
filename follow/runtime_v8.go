package follow

import "strings"

// V8's fatal error, as Node (and Electron) print it when the JavaScript
// heap is full or V8 gives up, then abort:
//
//	<--- JS stacktrace --->
//
//	FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory
//	----- Native stack trace -----
//
//	 1: 0xb78db3 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [node]
//	 2: 0xee8300 v8::Utils::ReportOOMFailure(…) [node]
//	…
//	16: 0x195e476  [node]
//
// One fatal record: its text the error's line, its stack the native
// frames. The "FATAL ERROR:" line is V8's when it says the heap is out of
// memory or frames follow it (a candidate until they do: a game's own
// "FATAL ERROR: …" is its logger's line).

const v8Fatal = "FATAL ERROR: "

// v8NativeStack heads V8's frames in Node 20 and later.
const v8NativeStack = "----- Native stack trace -----"

// v8Start reports V8's fatal error line, and whether it is surely V8's.
func v8Start(t string) (is, sure bool) {
	if !strings.HasPrefix(t, v8Fatal) || signalHeadline(t[len(v8Fatal):]) {
		return false, false // a game's signal handler's own words: Widelands' "FATAL ERROR: Received signal 11 (…)"
	}
	return true, strings.HasSuffix(t, "JavaScript heap out of memory") || strings.Contains(t, "CALL_AND_RETRY_LAST")
}

// v8Frame reports a frame of V8's native stack: " 1: 0xb78db3
// node::OOMErrorHandler(…) [node]".
func v8Frame(t string) bool {
	n, rest, ok := strings.Cut(t, ": 0x")
	return ok && isDigits(n) && len(rest) > 0 && isHexDigit(rest[0])
}

// v8 adds a line to V8's fatal error: its native stack's heading and
// frames.
func (r *report) v8(t string, end int64) bool {
	if t != v8NativeStack && !v8Frame(t) {
		return false
	}
	return r.add(t, end)
}
