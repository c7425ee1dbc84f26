package follow

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// writeFiles writes files (path relative to dir: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") { // a directory
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// envOf is an injected machine: a home directory and variables.
func envOf(goos, home string, vars map[string]string) *Env {
	return &Env{GOOS: goos, Home: home, Getenv: func(k string) string { return vars[k] }}
}

func TestLocate_Paths(t *testing.T) {
	home := t.TempDir()
	winVars := map[string]string{
		"USERPROFILE":  `C:\Users\me`,
		"APPDATA":      `C:\Users\me\AppData\Roaming`,
		"LOCALAPPDATA": `C:\Users\me\AppData\Local`,
	}
	// f locates engine:name=auto:<a project made of files> on goos and
	// compares the path (project-relative when it starts with "./") and
	// the previous run's file.
	f := func(goos string, vars map[string]string, engine, name string, files map[string]string, want, wantPrev string) {
		t.Helper()
		project := t.TempDir()
		writeFiles(t, project, files)
		loc, err := Locate(engine, name, project, envOf(goos, home, vars))
		if err != nil {
			t.Errorf("%s %s:%s: %v", goos, engine, name, err)
			return
		}
		expand := func(p string) string {
			if rel, ok := strings.CutPrefix(p, "./"); ok {
				return filepath.Join(project, filepath.FromSlash(rel))
			}
			return strings.ReplaceAll(p, "~", home)
		}
		if loc.Path != expand(want) || loc.Previous != expand(wantPrev) {
			t.Errorf("%s %s:%s: got %q (previous %q), want %q (previous %q); why: %s", goos, engine, name, loc.Path, loc.Previous, expand(want), expand(wantPrev), loc.Why)
		}
		if loc.Why == "" {
			t.Errorf("%s %s:%s: no reason given", goos, engine, name)
		}
	}
	unity2022 := map[string]string{"ProjectSettings/ProjectVersion.txt": "m_EditorVersion: 2022.3.10f1\nm_EditorVersionWithRevision: 2022.3.10f1 (ff3792e53c62)\n", "Logs/": ""}
	unity65 := map[string]string{"ProjectSettings/ProjectVersion.txt": "m_EditorVersion: 6000.5.0b2\r\n"}

	// Unity Editor before 6.5: the user's file, whatever the project's Logs.
	f("linux", nil, "unity", "Editor", unity2022, "~/.config/unity3d/Editor.log", "~/.config/unity3d/Editor-prev.log")
	f("darwin", nil, "unity", "Editor", unity2022, "~/Library/Logs/Unity/Editor.log", "~/Library/Logs/Unity/Editor-prev.log")
	f("windows", winVars, "unity", "Editor", unity2022, `C:\Users\me\AppData\Local\Unity\Editor\Editor.log`, `C:\Users\me\AppData\Local\Unity\Editor\Editor-prev.log`)
	f("windows", map[string]string{"USERPROFILE": `C:\Users\me`}, "unity", "Editor", nil, `C:\Users\me\AppData\Local\Unity\Editor\Editor.log`, `C:\Users\me\AppData\Local\Unity\Editor\Editor-prev.log`)
	// Unity 6.5+: the project's Logs/Editor.log, on every system.
	for _, goos := range []string{"linux", "darwin", "windows"} {
		f(goos, winVars, "unity", "Editor", unity65, "./Logs/Editor.log", "./Logs/Editor-prev.log")
		f(goos, winVars, "unity", "Editor", map[string]string{"Logs/Editor.log": "x\n"}, "./Logs/Editor.log", "./Logs/Editor-prev.log")
	}
	// No version: a Logs directory wins while the user's file is missing.
	f("linux", nil, "unity", "Editor", map[string]string{"Logs/": ""}, "./Logs/Editor.log", "./Logs/Editor-prev.log")
	f("linux", nil, "unity", "Editor", nil, "~/.config/unity3d/Editor.log", "~/.config/unity3d/Editor-prev.log")

	// Unity Player: named after company and product.
	player := map[string]string{"ProjectSettings/ProjectSettings.asset": "%YAML 1.1\n--- !u!129 &1\nPlayerSettings:\n  companyName: Acme Games\n  productName: 'Space: Run'\n"}
	f("linux", nil, "unity", "Player", player, "~/.config/unity3d/Acme Games/Space: Run/Player.log", "~/.config/unity3d/Acme Games/Space: Run/Player-prev.log")
	f("darwin", nil, "unity", "GamePlayer", player, "~/Library/Logs/Acme Games/Space: Run/Player.log", "~/Library/Logs/Acme Games/Space: Run/Player-prev.log")
	f("windows", winVars, "unity", "player", player, `C:\Users\me\AppData\LocalLow\Acme Games\Space: Run\Player.log`, `C:\Users\me\AppData\LocalLow\Acme Games\Space: Run\Player-prev.log`)

	// Godot: user://logs/godot.log under the project's app data.
	godot := map[string]string{"project.godot": "config_version=5\n\n[application]\n\nconfig/name=\"My \\\"Best\\\" Game\"\nrun/main_scene=\"res://main.tscn\"\n"}
	f("linux", nil, "godot", "Game", godot, "~/.local/share/godot/app_userdata/My -Best- Game/logs/godot.log", "")
	f("linux", map[string]string{"XDG_DATA_HOME": "/xdg/data"}, "godot", "Game", godot, "/xdg/data/godot/app_userdata/My -Best- Game/logs/godot.log", "")
	f("darwin", nil, "godot", "Game", godot, "~/Library/Application Support/Godot/app_userdata/My -Best- Game/logs/godot.log", "")
	f("windows", winVars, "godot", "Game", godot, `C:\Users\me\AppData\Roaming\Godot\app_userdata\My -Best- Game\logs\godot.log`, "")
	custom := map[string]string{"project.godot": "[application]\nconfig/name=\"Squash\"\nconfig/use_custom_user_dir=true\nconfig/custom_user_dir_name=\"acme/squash\"\n[rendering]\nconfig/name=\"not this\"\n"}
	f("linux", nil, "godot", "Game", custom, "~/.local/share/acme/squash/logs/godot.log", "")
	f("darwin", nil, "godot", "Game", custom, "~/Library/Application Support/acme/squash/logs/godot.log", "")
	f("windows", winVars, "godot", "Game", custom, `C:\Users\me\AppData\Roaming\acme/squash\logs\godot.log`, "")
	f("linux", nil, "godot", "Game", map[string]string{"project.godot": "[application]\n"}, "~/.local/share/godot/app_userdata/[unnamed project]/logs/godot.log", "")

	// Minecraft: logs/latest.log of the directory given.
	for _, engine := range []string{"log4j", "minecraft"} {
		f("linux", nil, engine, "Server", nil, "./logs/latest.log", "")
		// A name containing "crash": the crash-reports directory.
		f("linux", nil, engine, "Crashes", nil, "./crash-reports", "")
	}

	// Unreal: Saved/Logs/<project>.log.
	f("windows", winVars, "unreal", "Game", map[string]string{"ShooterGame.uproject": "{}"}, "./Saved/Logs/ShooterGame.log", "")
}

// TestLocate_Minecraft_Default: without a directory, the working
// directory's logs/latest.log when it exists, else the default .minecraft.
func TestLocate_Minecraft_Default(t *testing.T) {
	home := t.TempDir()
	winVars := map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`}
	t.Chdir(t.TempDir())
	for goos, want := range map[string]string{
		"linux":   filepath.Join(home, ".minecraft/logs/latest.log"),
		"darwin":  filepath.Join(home, "Library/Application Support/minecraft/logs/latest.log"),
		"windows": `C:\Users\me\AppData\Roaming\.minecraft\logs\latest.log`,
	} {
		if goos != "windows" && runtime.GOOS == "windows" {
			continue // Linux's and macOS's paths join with /, a Windows home with \
		}
		loc, err := Locate("minecraft", "Game", "", envOf(goos, home, winVars))
		if err != nil || loc.Path != want {
			t.Errorf("%s: %q, %v; want %q", goos, loc.Path, err, want)
		}
	}
	for goos, want := range map[string]string{
		"linux":   filepath.Join(home, ".minecraft/crash-reports"),
		"windows": `C:\Users\me\AppData\Roaming\.minecraft\crash-reports`,
	} {
		if goos != "windows" && runtime.GOOS == "windows" {
			continue
		}
		loc, err := Locate("minecraft", "ClientCrashes", "", envOf(goos, home, winVars))
		if err != nil || loc.Path != want || loc.Glob != McCrashGlob {
			t.Errorf("%s crashes: %q %q, %v; want %q", goos, loc.Path, loc.Glob, err, want)
		}
	}
	writeFiles(t, ".", map[string]string{"logs/latest.log": "[12:00:00] [Server thread/INFO]: Done\n"})
	wd, _ := os.Getwd()
	loc, err := Locate("log4j", "Server", "", envOf("linux", home, nil))
	if want := filepath.Join(wd, "logs", "latest.log"); err != nil || loc.Path != want {
		t.Errorf("server directory: %q, %v; want %q", loc.Path, err, want)
	}
}

func TestLocate_Errors(t *testing.T) {
	home := t.TempDir()
	f := func(engine, name string, files map[string]string, want string) {
		t.Helper()
		project := t.TempDir()
		writeFiles(t, project, files)
		_, err := Locate(engine, name, project, envOf("linux", home, nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:%s: %v, want an error with %q", engine, name, err, want)
		}
	}
	f("unity", "Player", nil, "ProjectSettings.asset")
	f("unity", "Player", map[string]string{"ProjectSettings/ProjectSettings.asset": "  companyName: A\n"}, "no productName")
	f("godot", "Game", nil, "project.godot")
	f("unreal", "Game", nil, "no .uproject")
	f("unreal", "Game", map[string]string{"A.uproject": "{}", "B.uproject": "{}"}, "2 .uproject files")
	f("generic", "Game", nil, `"generic": unknown engine`)
	if _, err := Locate("logcat", "Phone", t.TempDir(), nil); !errors.Is(err, ErrUnknownEngine) || !strings.Contains(err.Error(), "adb logcat > phone.log") {
		t.Errorf("logcat: %v, want ErrUnknownEngine and what to do", err)
	}
	if _, err := Locate("plain", "x", t.TempDir(), nil); !errors.Is(err, ErrUnknownEngine) {
		t.Errorf("plain: %v, want ErrUnknownEngine", err)
	}
}

// TestFollower_Previous: the previous run's file is read once, before the
// file followed, and never again: not at a restart, not when the file
// followed becomes the previous one while mcplogd is down; a previous file
// two runs old that was never read is read first.
func TestFollower_Previous(t *testing.T) {
	dir := t.TempDir()
	path, prev := filepath.Join(dir, "Editor.log"), filepath.Join(dir, "Editor-prev.log")
	opts := testOptions(path)
	opts.Previous = prev
	l := mustLog(t)
	appendFile(t, prev, joinLines(lines("a", 0, 10)))
	appendFile(t, path, joinLines(lines("b", 0, 5)))
	want := append(lines("a", 0, 10), lines("b", 0, 5)...)
	run := func(n int) {
		t.Helper()
		f := mustStart(t, l, opts)
		waitStored(t, l, n)
		time.Sleep(100 * time.Millisecond) // time to read anything twice
		mustClose(t, f)
		checkTexts(t, l, want)
	}
	run(15)

	// A restart with nothing new reads nothing; with new lines, those.
	run(15)
	appendFile(t, path, joinLines(lines("b", 5, 6)))
	want = append(want, "b-5")
	run(16)

	// The editor restarts while mcplogd is down: Editor.log (b) becomes
	// Editor-prev.log after one more line, a new Editor.log (c) begins.
	appendFile(t, path, joinLines(lines("b", 6, 7)))
	if err := os.Rename(path, prev); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, joinLines(lines("c", 0, 3)))
	want = append(want, append(lines("b", 6, 7), lines("c", 0, 3)...)...)
	run(20)

	// Two editor runs while mcplogd is down: d was never read.
	if err := os.Rename(path, prev); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, joinLines(lines("d", 0, 2)))
	if err := os.Rename(path, prev); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, joinLines(lines("e", 0, 2)))
	want = append(want, append(lines("d", 0, 2), lines("e", 0, 2)...)...)
	run(24)
}

// TestLocate_Luanti: debug.txt in the directory given, above a portable
// install's world, in ~/.luanti or ~/.minetest (the one holding a log,
// else the one that exists), and on Windows and macOS.
func TestLocate_Luanti(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("it makes Linux's ~/.minetest and ~/.luanti in a temporary home, and Locate joins Linux's paths with /, not a Windows home's \\")
	}
	loc := func(home, dir string, env *Env) string {
		t.Helper()
		if env == nil {
			env = envOf("linux", home, nil)
		}
		l, err := Locate("luanti", "Server", dir, env)
		if err != nil {
			t.Fatalf("Locate(luanti, %q): %v", dir, err)
		}
		return l.Path
	}
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".minetest/debug.txt": "x", ".luanti/": ""})
	if got := loc(home, "", nil); got != filepath.Join(home, ".minetest", "debug.txt") {
		t.Errorf("the directory holding a debug.txt: %s", got)
	}
	writeFiles(t, home, map[string]string{".luanti/debug.txt": "x"})
	if got := loc(home, "", nil); got != filepath.Join(home, ".luanti", "debug.txt") {
		t.Errorf("both have one: %s, want ~/.luanti's", got)
	}
	empty := t.TempDir()
	writeFiles(t, empty, map[string]string{".minetest/": ""})
	if got := loc(empty, "", nil); got != filepath.Join(empty, ".minetest", "debug.txt") {
		t.Errorf("only ~/.minetest exists: %s", got)
	}
	if got := loc(t.TempDir(), "", nil); !strings.HasSuffix(got, "/.luanti/debug.txt") {
		t.Errorf("nothing exists: %s", got)
	}
	portable := t.TempDir()
	writeFiles(t, portable, map[string]string{"debug.txt": "x", "worlds/w1/world.mt": "gameid = minetest"})
	if got := loc(home, filepath.Join(portable, "worlds", "w1"), nil); got != filepath.Join(portable, "debug.txt") {
		t.Errorf("a portable install's world: %s", got)
	}
	if got := loc(home, portable, nil); got != filepath.Join(portable, "debug.txt") {
		t.Errorf("the install given: %s", got)
	}
	if got := loc(home, "", envOf("windows", `C:\Users\me`, map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`})); got != `C:\Users\me\AppData\Roaming\Luanti\debug.txt` {
		t.Errorf("windows: %s", got)
	}
	if got := loc("/Users/me", "", envOf("darwin", "/Users/me", nil)); got != "/Users/me/Library/Application Support/luanti/debug.txt" {
		t.Errorf("darwin: %s", got)
	}
}

// TestLocate_Godot3Note: a Godot 3 project's godot.log comes with a note
// that it never holds a crash, and how to record one; a Godot 4 one not.
func TestLocate_Godot3Note(t *testing.T) {
	for version, wantNote := range map[string]bool{"4": true, "5": false} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"project.godot": "config_version=" + version + "\n\n[application]\n\nconfig/name=\"Space Game\"\n"})
		l, err := Locate("godot", "Game", dir, envOf("linux", t.TempDir(), nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Note != ""; got != wantNote || wantNote && !strings.Contains(l.Note, "mcplogd run --name SpaceGame -- godot3 --path "+dir) {
			t.Errorf("config_version=%s: note %q", version, l.Note)
		}
	}
}
