package follow

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Env is the machine Locate looks at: its operating system and the
// directories of its user. A zero field means this machine's: GOOS
// runtime.GOOS, Home os.UserHomeDir, Getenv os.Getenv. Tests give another
// system's to compute its paths.
type Env struct {
	GOOS   string
	Home   string
	Getenv func(string) string
}

// Location is where an engine writes its log, as Locate found it.
type Location struct {
	Path string // the log file; it may not exist yet
	// Previous is the previous run's file (Unity's Editor-prev.log), to be
	// read once before Path (Options.Previous); "" when there is none.
	Previous string
	Why      string // the rule that found Path, for the user
	// Glob, when set, says Path is a directory whose files matching Glob
	// are each followed once (DirFollower): Minecraft's crash reports.
	Glob string
	// Note, when set, is what the user should know of the file: Godot 3's
	// godot.log never holds a crash.
	Note string
}

// McCrashGlob names Minecraft's crash reports in crash-reports/:
// crash-2023-12-28_13.21.22-client.txt, crash-…-server.txt.
const McCrashGlob = "crash-*.txt"

// ErrUnknownEngine is returned by Locate for an engine it has no rules for.
var ErrUnknownEngine = errors.New("unknown engine: want unity, godot, log4j (or minecraft), unreal or luanti (or minetest)")

// Locate finds the usual log file of engine ("unity", "godot", "log4j" or
// "minecraft", "unreal", "luanti" or "minetest") for the project in dir ("" for the working
// directory; for Minecraft "" means the default .minecraft unless the
// working directory holds logs/latest.log). For Unity, a name containing
// "player" (any case) asks for the Player's log, any other the Editor's;
// for Minecraft, a name containing "crash" asks for the crash-reports
// directory (Location.Glob set), any other for logs/latest.log.
// env nil means this machine. The file need not exist; Locate reads the
// project's files it needs (ProjectSettings, project.godot, *.uproject)
// and returns an error naming what it could not find.
func Locate(engine, name, dir string, env *Env) (Location, error) {
	e := env.resolved()
	given := dir != ""
	if !given {
		wd, err := os.Getwd()
		if err != nil {
			return Location{}, err
		}
		dir = wd
	}
	switch strings.ToLower(engine) {
	case "unity":
		if strings.Contains(strings.ToLower(name), "player") {
			return e.unityPlayer(dir)
		}
		return e.unityEditor(dir)
	case "godot":
		return e.godot(dir)
	case "log4j", "minecraft":
		loc, err := e.minecraft(dir, given)
		if strings.Contains(strings.ToLower(name), "crash") {
			loc = minecraftCrashes(loc)
		}
		return loc, err
	case "unreal":
		return e.unreal(dir)
	case "luanti", "minetest":
		return e.luanti(dir, given)
	case "logcat", "android":
		// Android keeps no log file on the computer: it is what adb prints.
		return Location{}, fmt.Errorf("%q: %w; logcat is what adb prints: follow a file it writes to "+
			"(adb logcat > phone.log, then --follow logcat:Phone=phone.log), or run it: mcplogd run --parser logcat -- adb logcat",
			engine, ErrUnknownEngine)
	}
	return Location{}, fmt.Errorf("%q: %w", engine, ErrUnknownEngine)
}

func (env *Env) resolved() Env {
	var e Env
	if env != nil {
		e = *env
	}
	if e.GOOS == "" {
		e.GOOS = runtime.GOOS
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	if e.Home == "" {
		e.Home, _ = os.UserHomeDir()
	}
	return e
}

// join joins a path under the user's directories with the system's
// separator (Windows' when GOOS is windows, whatever this machine is).
func (e Env) join(elem ...string) string {
	if e.GOOS == "windows" {
		for i := range elem {
			elem[i] = strings.TrimRight(elem[i], `\/`)
		}
		return strings.Join(elem, `\`)
	}
	return path.Join(elem...)
}

// winDir is a Windows known folder from its variable, else under the
// user's profile.
func (e Env) winDir(variable string, under ...string) string {
	if v := e.Getenv(variable); v != "" {
		return v
	}
	profile := e.Getenv("USERPROFILE")
	if profile == "" {
		profile = e.Home
	}
	return e.join(append([]string{profile}, under...)...)
}

func (e Env) unityEditor(dir string) (Location, error) {
	local := filepath.Join(dir, "Logs", "Editor.log")
	var global string
	switch e.GOOS {
	case "windows":
		global = e.join(e.winDir("LOCALAPPDATA", "AppData", "Local"), "Unity", "Editor", "Editor.log")
	case "darwin":
		global = e.join(e.Home, "Library", "Logs", "Unity", "Editor.log")
	default:
		global = e.join(e.Home, ".config", "unity3d", "Editor.log")
	}
	at := func(p, why string) (Location, error) {
		prev := strings.TrimSuffix(p, "Editor.log") + "Editor-prev.log"
		return Location{Path: p, Previous: prev, Why: why}, nil
	}
	if exists(local) {
		return at(local, "the project's Logs/Editor.log exists (Unity 6.5+ writes it there)")
	}
	version := unityVersion(dir)
	if newer, known := unity65(version); known {
		if newer {
			return at(local, "ProjectSettings/ProjectVersion.txt says "+version+": Unity 6.5+ writes the project's Logs/Editor.log")
		}
		return at(global, "ProjectSettings/ProjectVersion.txt says "+version+": Unity before 6.5 writes the user's Editor.log")
	}
	// Every Unity since 2019 makes a Logs directory in the project (for
	// its import workers), so the directory alone does not tell the
	// version: it wins only when the user's file is missing.
	if isDir(filepath.Join(dir, "Logs")) && !exists(global) {
		return at(local, "the project has a Logs directory and there is no "+global+" (Unity 6.5+ writes the project's Logs/Editor.log)")
	}
	return at(global, "Unity's Editor.log for "+e.GOOS+" (before Unity 6.5; "+local+" does not exist)")
}

// unityVersion reads m_EditorVersion from the project's ProjectVersion.txt:
// "" when it cannot.
func unityVersion(dir string) string {
	v, _ := yamlValue(filepath.Join(dir, "ProjectSettings", "ProjectVersion.txt"), "m_EditorVersion")
	return v
}

// unity65 reports whether a Unity version (6000.5.0f1, 2022.3.10f1) is
// 6.5 or later, and whether it could tell.
func unity65(v string) (newer, known bool) {
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return false, false
	}
	return ma > 6000 || ma == 6000 && mi >= 5, true
}

func (e Env) unityPlayer(dir string) (Location, error) {
	settings := filepath.Join(dir, "ProjectSettings", "ProjectSettings.asset")
	company, err1 := yamlValue(settings, "companyName")
	product, err2 := yamlValue(settings, "productName")
	if err := errors.Join(err1, err2); err != nil {
		return Location{}, fmt.Errorf("the Unity Player's log is named after the project's company and product: %w", err)
	}
	var p string
	switch e.GOOS {
	case "windows":
		p = e.join(e.winDir("USERPROFILE"), "AppData", "LocalLow", company, product, "Player.log")
	case "darwin":
		p = e.join(e.Home, "Library", "Logs", company, product, "Player.log")
	default:
		p = e.join(e.Home, ".config", "unity3d", company, product, "Player.log")
	}
	prev := strings.TrimSuffix(p, "Player.log") + "Player-prev.log"
	return Location{Path: p, Previous: prev, Why: fmt.Sprintf("Unity's Player.log for %s, company %q and product %q from %s", e.GOOS, company, product, settings)}, nil
}

// yamlValue reads the first "key: value" line of a Unity YAML file, the
// value unquoted; an error when the file or the key is missing.
func yamlValue(file, key string) (string, error) {
	var out string
	err := scanLines(file, func(line string) bool {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || k != key {
			return true
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '\'' && v[len(v)-1] == '\'' || v[0] == '"' && v[len(v)-1] == '"') {
			v = v[1 : len(v)-1]
		}
		out = v
		return false
	})
	if err == nil && out == "" {
		err = fmt.Errorf("%s: no %s", file, key)
	}
	return out, err
}

// scanLines calls fn with each line of file until it returns false.
func scanLines(file string, fn func(string) bool) error {
	fh, err := os.Open(file)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !fn(strings.TrimSuffix(sc.Text(), "\r")) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func (e Env) minecraft(dir string, given bool) (Location, error) {
	if given {
		return Location{Path: filepath.Join(dir, "logs", "latest.log"), Why: "logs/latest.log of the Minecraft directory given"}, nil
	}
	if p := filepath.Join(dir, "logs", "latest.log"); exists(p) {
		return Location{Path: p, Why: "logs/latest.log of the working directory (a Minecraft server or instance)"}, nil
	}
	var p string
	switch e.GOOS {
	case "windows":
		p = e.join(e.winDir("APPDATA", "AppData", "Roaming"), ".minecraft", "logs", "latest.log")
	case "darwin":
		p = e.join(e.Home, "Library", "Application Support", "minecraft", "logs", "latest.log")
	default:
		p = e.join(e.Home, ".minecraft", "logs", "latest.log")
	}
	return Location{Path: p, Why: "the default .minecraft directory's logs/latest.log for " + e.GOOS}, nil
}

// minecraftCrashes is the crash-reports directory beside the logs
// directory of latest.log.
func minecraftCrashes(latest Location) Location {
	sep := string(filepath.Separator)
	if strings.Contains(latest.Path, `\`) && !strings.Contains(latest.Path, "/") {
		sep = `\` // another system's path (tests)
	}
	root := strings.TrimSuffix(latest.Path, sep+"logs"+sep+"latest.log")
	return Location{Path: root + sep + "crash-reports", Glob: McCrashGlob,
		Why: "crash-reports/" + McCrashGlob + " beside " + latest.Why}
}

func (e Env) unreal(dir string) (Location, error) {
	found, err := filepath.Glob(filepath.Join(dir, "*.uproject"))
	if err != nil {
		return Location{}, err
	}
	switch len(found) {
	case 0:
		return Location{}, fmt.Errorf("%s: no .uproject file: the Unreal log is named after the project", dir)
	case 1:
	default:
		return Location{}, fmt.Errorf("%s: %d .uproject files: give the log's path instead", dir, len(found))
	}
	project := strings.TrimSuffix(filepath.Base(found[0]), ".uproject")
	p := filepath.Join(dir, "Saved", "Logs", project+".log")
	return Location{Path: p, Why: "Saved/Logs/" + project + ".log, named after " + filepath.Base(found[0])}, nil
}

func (e Env) godot(dir string) (Location, error) {
	file := filepath.Join(dir, "project.godot")
	s, err := godotSettings(file)
	if err != nil {
		return Location{}, fmt.Errorf("the Godot log is under the project's user data directory, named in project.godot: %w", err)
	}
	var data, godotDir string
	switch e.GOOS {
	case "windows":
		data, godotDir = e.winDir("APPDATA", "AppData", "Roaming"), "Godot"
	case "darwin":
		data, godotDir = e.join(e.Home, "Library", "Application Support"), "Godot"
	default:
		data, godotDir = e.join(e.Home, ".local", "share"), "godot"
		if x := e.Getenv("XDG_DATA_HOME"); strings.HasPrefix(x, "/") {
			data = x
		}
	}
	name := godotSafeName(s["config/name"], false)
	var user, why string
	switch {
	case name == "":
		user, why = e.join(data, godotDir, "app_userdata", "[unnamed project]"), "project.godot names no project"
	case s["config/use_custom_user_dir"] == "true":
		custom := godotSafeName(s["config/custom_user_dir_name"], true)
		if custom == "" {
			custom = name
		}
		user, why = e.join(data, custom), fmt.Sprintf("project.godot's custom user directory %q", custom)
	default:
		user, why = e.join(data, godotDir, "app_userdata", name), fmt.Sprintf("project.godot's name %q", name)
	}
	loc := Location{Path: e.join(user, "logs", "godot.log"), Why: "user://logs/godot.log for " + e.GOOS + ", from " + why}
	if s["config_version"] == "4" {
		loc.Note = "this is a Godot 3 project (project.godot's config_version=4): Godot 3 writes a crash's backtrace only to its standard error, " +
			"never to godot.log, so a crashed run's log just stops; to record crashes, run the game under mcplogd: " +
			"mcplogd run --name " + godotRunName(name) + " -- godot3 --path " + dir + " (or serve --run)"
	}
	return loc, nil
}

// godotRunName is a source name made of a project's name.
func godotRunName(name string) string {
	if name = strings.Map(func(r rune) rune {
		if r == ' ' || r == '=' || r == ':' {
			return -1
		}
		return r
	}, name); name != "" {
		return name
	}
	return "Game"
}

// godotSettings reads the [application] section of a project.godot and
// the keys before any section (config_version), string values unquoted.
func godotSettings(file string) (map[string]string, error) {
	out := map[string]string{}
	section := ""
	err := scanLines(file, func(line string) bool {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			return true
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section != "application" && section != "" {
			return true
		}
		v = strings.TrimSpace(v)
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		out[strings.TrimSpace(k)] = v
		return true
	})
	return out, err
}

// godotSafeName is Godot's OS::get_safe_dir_name: the characters a
// directory name cannot hold become "-"; with paths, "/" and `\` are
// separators.
func godotSafeName(s string, paths bool) string {
	bad := []string{":", "*", "?", `"`, "<", ">", "|"}
	if paths {
		s = strings.ReplaceAll(s, `\`, "/")
		bad = append(bad, "..")
	} else {
		bad = append(bad, "/", `\`)
	}
	s = strings.TrimSpace(s)
	for _, b := range bad {
		s = strings.ReplaceAll(s, b, "-")
	}
	return strings.TrimRight(s, ".")
}

// previousFirst returns where a follower of path starts when opts.Previous
// names the previous run's file: at the start of that file, so that it is
// read once before path, unless the newest stored position pos is already
// in it (the follower finishes it, as any file rotated away) or in the file
// at path (it was read before the file at path began, or is older than
// what the source holds). Otherwise it returns pos.
func previousFirst(pos *position, path, previous string) *position {
	if previous == "" {
		return pos
	}
	prev := openID(previous)
	if prev == nil {
		return pos
	}
	defer prev.f.Close()
	if pos != nil {
		if prev.is(pos.FileID) {
			return pos
		}
		if cur := openID(path); cur != nil {
			cur.f.Close()
			if cur.is(pos.FileID) {
				return pos
			}
		}
	}
	return &position{File: previous, Offset: 0, FileID: prev.id}
}

// openID opens the file at p to read its identity; nil when it cannot.
func openID(p string) *file {
	fh, err := openShared(p)
	if err != nil {
		return nil
	}
	c, err := newFile(fh, p)
	if err != nil {
		fh.Close()
		return nil
	}
	return c
}
