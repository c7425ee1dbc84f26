package follow

import "strings"

// GameMaker's runner error, as its dialog and its output show it:
//
//	############################################################################################
//	FATAL ERROR in
//	action number 1
//	of Create Event
//	for object oWorld:
//
//	string_count argument 2 incorrect type (number) expecting a String (YYGS)
//	at gml_Script_loadConfig
//	############################################################################################
//	--------------------------------------------------------------------------------------------
//	stack frame is
//	gml_Script_loadConfig (line 0)
//	gml_Object_oWorld_Create_0
//
// ("ERROR in" for an error the player may ignore, the frames without
// "stack frame is" in older runners.) It is one fatal record from "ERROR
// in": its text the message, its stack the event and object, where, and
// the frames. The runner stops there unless the player ignores it. The
// candidate is "ERROR in" or "FATAL ERROR in"; "action number N" after it
// proves it.

// gmStart reports the first line of GameMaker's error.
func gmStart(t string) bool { return t == "FATAL ERROR in" || t == "ERROR in" }

// gm adds a line to GameMaker's error: the event's lines, the message
// (the first line after them), where, the rulers, the frames.
func (r *report) gm(s, t string, end int64) bool {
	switch {
	case r.state == stGMHeader && (strings.HasPrefix(t, "action number ") || strings.HasPrefix(t, "of ") || strings.HasPrefix(t, "for object ")):
	case r.state == stGMHeader:
		r.state = stGMMessage
		r.setText(t)
		r.e.end = end
		return true
	case strings.Trim(t, "#") == "" || strings.Trim(t, "-") == "" || t == "stack frame is":
		r.state = stGMFrames
	case r.state == stGMMessage && !strings.HasPrefix(t, "at gml_") && !strings.HasPrefix(t, "called from"):
		r.setText(r.e.rec.Text + "\n" + t) // the message's next line
		r.e.end = end
		return true
	case r.state == stGMFrames && !strings.HasPrefix(t, "gml_") && !strings.HasPrefix(t, "called from"):
		return false
	}
	return r.add(s, end)
}
