package follow

import "strings"

// Haxe's uncaught exception, as its runtimes print it when the program
// ends. HashLink (Heaps' and most Haxe games' runtime) says what first,
// then where, innermost first:
//
//	Uncaught exception: Null access .hp
//	Called from world.Enemy.takeDamage (world/Enemy.hx line 37)
//	Called from $Main.main (Main.hx line 55)
//
// hxcpp (OpenFL's, Lime's and HaxeFlixel's native builds) and Neko print
// the frames first, outermost first, and the message last:
//
//	Called from hxcpp::__hxcpp_main
//	Called from Main::update Main.hx line 33
//	Critical Error: Null Object Reference
//
// (hxcpp's "Error : msg" for an uncaught throw, "Critical Error: msg" for
// a null access; Neko's "Uncaught exception - msg".) It is one fatal
// record: its text the message, its stack the frames, and, printed last,
// the message's line, which tells the crash package the innermost frame
// is the last. Frames that no message ends are lines as they came.

const (
	haxeFrame  = "Called from "
	haxeHeader = "Uncaught exception: "
)

// haxeStart reports the first line of Haxe's report: HashLink's header or
// a frame.
func haxeStart(t string) bool {
	return strings.HasPrefix(t, haxeFrame) && len(t) > len(haxeFrame) || strings.HasPrefix(t, haxeHeader)
}

// beginHaxe starts Haxe's report with its first line.
func (r *report) beginHaxe(line, t string, end int64) {
	if msg, ok := strings.CutPrefix(t, haxeHeader); ok {
		r.setText(msg)
		return
	}
	r.holdFrames(line, t, end)
}

// haxe adds a line to Haxe's report: a frame, or the message after the
// frames, which ends it.
func (r *report) haxe(t string, end int64) bool {
	msg, ok := haxeMessage(t)
	return r.framesFirst(t, end, strings.HasPrefix(t, haxeFrame), msg, ok)
}

// holdFrames begins a report whose frames come before its message
// (hxcpp's, Neko's, Nim's) with its first line, t a frame: the lines as
// they came until the message shows it is a report.
func (r *report) holdFrames(line, t string, end int64) {
	r.confirmed = false
	r.raw, r.rawEnds = append(r.raw, line), append(r.rawEnds, end)
	if t != "" {
		r.add(t, end)
	}
}

// framesFirst adds t to a report whose frames come before its message:
// a frame, or the message (msg, when isMsg), which ends it.
func (r *report) framesFirst(t string, end int64, frame bool, msg string, isMsg bool) bool {
	if frame {
		return r.add(t, end)
	}
	if isMsg && !r.confirmed {
		r.confirmed, r.done = true, true
		r.setText(msg)
		return r.add(t, end)
	}
	return false
}

// haxeMessage cuts the message from the line hxcpp or Neko print after an
// uncaught exception's frames. Haxe 4's Neko prints a thrown value as the
// exception object's fields: the message is its __exceptionMessage.
func haxeMessage(t string) (string, bool) {
	for _, p := range [...]string{"Error : ", "Critical Error: ", "Uncaught exception - "} {
		if msg, ok := strings.CutPrefix(t, p); ok {
			if _, m, ok := strings.Cut(msg, "__exceptionMessage => "); ok && strings.HasPrefix(msg, "{ ") {
				m, _, _ = strings.Cut(m, ", value => ")
				m, _, _ = strings.Cut(m, ", __nativeStack => ")
				return m, true
			}
			return msg, true
		}
	}
	return "", false
}
