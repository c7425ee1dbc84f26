package follow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// TestParse_Panda3D: a Panda3D game that cannot open its window on a
// headless machine, as posted in panda3d/panda3d issue 261 and
// ekiefl/pooltool issue 191: Notify's lines are records of their
// category at their severity, its C++ assertion's place is its stack
// (and no part of its title), and ShowBase's warning heads the traceback
// it announced (an error now), titled by the exception.
func TestParse_Panda3D(t *testing.T) {
	in := "Known pipe types:\n  glxGraphicsPipe\n(1 aux display modules not yet loaded.)\n" +
		":display:x11display(error): BadValue (integer parameter out of range for operation)\n" +
		":display:glxdisplay(error): Could not find a usable pixel format.\n:display:gsg:glgsg(warning): Unable to query GL_VENDOR\n" +
		"Assertion failed: removed at line 449 of panda/src/display/graphicsEngine.cxx\n" +
		":ShowBase(warning): Unable to open 'onscreen' window.\nTraceback (most recent call last):\n" +
		"  File \"/home/u/game/main.py\", line 8, in <module>\n    app = Game()\n" +
		"  File \"/usr/lib/python3/dist-packages/direct/showbase/ShowBase.py\", line 1189, in openMainWindow\n" +
		"    raise Exception('Could not open window.')\nException: Could not open window.\n"
	want := []string{
		"info  Known pipe types: |   glxGraphicsPipe | Known pipe types:", "info  (1 aux display modules not yet loaded.)",
		"error display:x11display BadValue (integer parameter out of range for operation)",
		"error display:glxdisplay Could not find a usable pixel format.", "warn display:gsg:glgsg Unable to query GL_VENDOR",
		"error  Assertion failed: removed at line 449 of panda/src/display/graphicsEngine.cxx" +
			" | at panda/src/display/graphicsEngine.cxx:449 | Assertion failed: removed in panda/src/display/graphicsEngine.cxx:449",
		"error ShowBase Unable to open 'onscreen' window. | Traceback (most recent call last): | Exception: Could not open window. in File \"/home/u/game/main.py\", line 8, in <module>",
	}
	for _, parser := range []string{"generic", "auto"} {
		var got []string
		for _, r := range recordsOf(feed(mustParser(t, parser), []byte(in))) {
			s := fmt.Sprintf("%s %s %s", r.Level, r.Name, r.Text)
			if r.Stack != "" {
				title, _, _ := crash.Describe(r.Text, r.Stack)
				first, _, _ := strings.Cut(r.Stack, "\n")
				s += " | " + first + " | " + title
			}
			got = append(got, s)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", parser, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestParse_XIO: Xlib's default IO error handler, as a game whose X server
// went away prints it before it exits: one fatal record, its next line
// the stack; behind a launcher's wrapper too.
func TestParse_XIO(t *testing.T) {
	for _, wrap := range []string{"", "[WARNING] stderr: "} {
		in := wrap + "INFO: frame 9\n" + wrap + "XIO:  fatal IO error 11 (Resource temporarily unavailable) on X server \":0\"\n" +
			wrap + "      after 2183 requests (2183 known processed) with 0 events remaining.\n"
		recs := recordsOf(feed(mustParser(t, "auto"), []byte(in)))
		if len(recs) != 2 || recs[1].Level.String() != "fatal" || !strings.HasPrefix(recs[1].Text, "XIO:  fatal IO error 11") ||
			!strings.Contains(recs[1].Stack, "after 2183 requests") {
			t.Errorf("%q: %+v", wrap, recs)
		}
	}
}
