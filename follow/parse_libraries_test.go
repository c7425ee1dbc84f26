package follow

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
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
		// The warning that came before the program's uncaught exception is
		// no part of it.
		"warn ShowBase Unable to open 'onscreen' window.",
		"error  Exception: Could not open window. | Traceback (most recent call last): | Exception: Could not open window. in File \"/home/u/game/main.py\", line 8, in <module>",
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

// TestParse_Asyncio: what asyncio's exception handler prints (its message,
// the lines of its context, the traceback, or only the exception's line
// when it was raised nowhere; in debug mode where the task was created)
// is one record, its message the text, under every decoration.
func TestParse_Asyncio(t *testing.T) {
	cases := []struct {
		name, in, text, message string
	}{
		{"task", "Task exception was never retrieved\n" +
			"future: <Task finished name='Task-2' coro=<load() done, defined at /g/main.py:4> exception=KeyError('orc')>\n" +
			"Traceback (most recent call last):\n  File \"/g/main.py\", line 5, in load\n    raise KeyError(\"orc\")\nKeyError: 'orc'\n",
			"Task exception was never retrieved", "KeyError: 'orc'"},
		{"future", "ERROR:asyncio:Future exception was never retrieved\n" +
			"future: <Future finished exception=ValueError('bad map')>\nValueError: bad map\n",
			"Future exception was never retrieved", "ValueError: bad map"},
		{"callback", "Exception in callback cb() at /g/main.py:2\nhandle: <Handle cb() at /g/main.py:2>\n" +
			"Traceback (most recent call last):\n  File \"/g/main.py\", line 3, in cb\n    raise KeyError(\"orc\")\nKeyError: 'orc'\n",
			"Exception in callback cb() at /g/main.py:2", "KeyError: 'orc'"},
		{"debug", "Task exception was never retrieved\n" +
			"future: <Task finished name='Task-2' coro=<load() done, defined at /g/main.py:4> exception=KeyError('orc') created at /g/main.py:9>\n" +
			"source_traceback: Object created at (most recent call last):\n  File \"/g/main.py\", line 9, in main\n    asyncio.ensure_future(load())\n" +
			"Traceback (most recent call last):\n  File \"/g/main.py\", line 5, in load\n    raise KeyError(\"orc\")\nKeyError: 'orc'\n",
			"Task exception was never retrieved", "KeyError: 'orc'"},
		{"pending", "Task was destroyed but it is pending!\n" +
			"task: <Task pending name='Task-3' coro=<music() running at /g/main.py:12> wait_for=<Future pending cb=[Task.task_wakeup()]>>\n",
			"Task was destroyed but it is pending!", ""},
	}
	for _, c := range cases {
		for _, wrap := range []string{"", "[WARNING] stderr: ", "2026-12-04 10:00:01,123 [ERROR  ] "} {
			var in strings.Builder
			in.WriteString("frame 3\n")
			for line := range strings.Lines(c.in) {
				in.WriteString(wrap + line)
			}
			in.WriteString(wrap + "frame 4\n")
			recs := recordsOf(feed(mustParser(t, "auto"), []byte(in.String())))
			if len(recs) != 3 || recs[1].Level < oplog.LevelWarn || wrap != "[WARNING] stderr: " && recs[1].Level != oplog.LevelError || !strings.HasSuffix(recs[1].Text, c.text) ||
				!strings.Contains(recs[1].Stack, c.message) || !strings.HasPrefix(recs[1].Stack, strings.SplitN(c.in, "\n", 3)[1]) {
				t.Errorf("%s %q:", c.name, wrap)
				for _, r := range recs {
					t.Errorf("  %s %q\n\tstack %q", r.Level, r.Text, r.Stack)
				}
				continue
			}
			if m := crash.Message(&recs[1]); c.message != "" && m != c.message {
				t.Errorf("%s %q: the crash's message is %q, want %q", c.name, wrap, m, c.message)
			}
		}
	}
}

// TestParse_LibraryBeforeTraceback: ALSA's own line just before a Python
// traceback is not the line the traceback belongs to, and pygame's
// lower-case exception class is no logger's name.
func TestParse_LibraryBeforeTraceback(t *testing.T) {
	for _, wrap := range []string{"", "2026-12-04 10:00:01,123 [ERROR  ] "} {
		in := "ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\n" +
			wrap + "Traceback (most recent call last):\n" + wrap + "  File \"/g/game.py\", line 15, in spawn_enemy\n" +
			wrap + "    pygame.mixer.init()\n" + wrap + "pygame.error: ALSA: Couldn't open audio device: No such device\n"
		recs := recordsOf(feed(mustParser(t, "auto"), []byte(in)))
		if len(recs) != 2 || recs[0].Level != oplog.LevelWarn || recs[0].Stack != "" ||
			recs[1].Text != "pygame.error: ALSA: Couldn't open audio device: No such device" || !strings.Contains(recs[1].Stack, "line 15, in spawn_enemy") {
			t.Errorf("%q:", wrap)
			for _, r := range recs {
				t.Errorf("  %s %q\n\tstack %q", r.Level, r.Text, r.Stack)
			}
		}
	}
}

// TestParse_PyInstaller: a frozen game's bootloader says, after the
// traceback of the exception the game died of, that it died of it
// (PyInstaller 6: "[PYI-4321:ERROR] Failed to execute script …"; before:
// "[4321] Failed to execute script …"): the traceback's last line, so that
// an imported log that ends there ends crashed, titled by the exception.
func TestParse_PyInstaller(t *testing.T) {
	for _, pyi := range []string{"[PYI-14860:ERROR] Failed to execute script 'main' due to unhandled exception!",
		"[5020] Failed to execute script '__main__' due to unhandled exception!", "[4321] Failed to execute script main"} {
		for _, wrap := range []string{"", "2026-12-04 10:00:01,123 [ERROR  ] ", "[WARNING] stderr: "} {
			in := strings.Replace(wrap, "ERROR  ", "INFO   ", 1) + "level 1 loaded\n" + wrap + "Traceback (most recent call last):\n" + wrap + "  File \"main.py\", line 12, in <module>\n" +
				wrap + "  File \"game/world.py\", line 40, in spawn\n" + wrap + "KeyError: 'orc'\n" + wrap + pyi + "\n"
			l := mustLog(t)
			l.SetCrashes(crash.New(l, nil))
			mustImport(t, l, []byte(in), ImportOptions{Source: "frozen"})
			recs := ofSource(t, l, "frozen")
			lines := slices.DeleteFunc(slices.Clone(recs), func(r oplog.Record) bool { return r.Kind != oplog.KindLine })
			if len(lines) != 2 || lines[1].Text != "KeyError: 'orc'" || !strings.HasSuffix(lines[1].Stack, "Failed to execute script "+strings.SplitN(pyi, "script ", 2)[1]) {
				t.Errorf("%q %q:", pyi, wrap)
				for _, r := range lines {
					t.Errorf("  %s %q\n\tstack %q", r.Level, r.Text, r.Stack)
				}
				continue
			}
			if runs, err := l.Runs(t.Context(), "frozen"); err != nil || len(runs) != 1 || runs[0].Outcome != oplog.OutcomeCrashed || runs[0].CrashID != lines[1].ID {
				t.Errorf("%q %q: runs %+v, %v; want one, crashed of record %d", pyi, wrap, runs, err, lines[1].ID)
			}
			if m := crash.Message(&lines[1]); m != "KeyError: 'orc'" {
				t.Errorf("%q %q: the crash's message is %q", pyi, wrap, m)
			}
		}
	}
	// Alone, the line is the bootloader's error.
	recs := recordsOf(feed(mustParser(t, "auto"), []byte("[PYI-14860:ERROR] Failed to execute script 'main' due to unhandled exception!\n")))
	if len(recs) != 1 || recs[0].Level != oplog.LevelError || recs[0].Name != "PYI" {
		t.Errorf("alone: %+v", recs)
	}
}

// TestParse_KivyCaretAtAnyColumn: beneath Kivy (each line one space in), a
// .kv rule's source line shown without its indentation leaves its caret
// line at the prefix's column; it is the traceback's still, and the
// exception after it ends it (as a user pasted it from Kivy 2.3 on
// Python 3.12).
func TestParse_KivyCaretAtAnyColumn(t *testing.T) {
	in := "[INFO   ] [Base        ] Leaving application in progress...\n" +
		" Traceback (most recent call last):\n" +
		"   File \"C:\\app\\main.py\", line 29, in <module>\n     YourApp().run()\n" +
		"   File \"C:\\app\\ui\\mainwindow.kv\", line 29, in <module>\n     on_press: root.on_download_button_click()\n" +
		" ^^^^^^^^^^^^^^^^^^^^^^^\n" +
		"   File \"C:\\app\\main.py\", line 22, in on_download_button_click\n     self.ids.video_panel.source = frame_image\n     ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n" +
		"   File \"kivy\\properties.pyx\", line 593, in kivy.properties.Property.check\n" +
		" ValueError: None is not allowed for Image.source\n"
	recs := recordsOf(feed(mustParser(t, "auto"), []byte(in)))
	if len(recs) != 2 || recs[1].Text != "ValueError: None is not allowed for Image.source" || !strings.Contains(recs[1].Stack, "^^^^^^^^^^^^^^^^^^^^^^^") {
		for _, r := range recs {
			t.Errorf("  %s %q\n\tstack %q", r.Level, r.Text, r.Stack)
		}
		return
	}
	if got := crash.Title(crash.Message(&recs[1]), crash.GameFrame(recs[1].Stack)); got != `ValueError: None is not allowed for Image.source in File "C:\app\main.py", line 22, in on_download_button_click` {
		t.Errorf("title %q", got)
	}
}
