package follow

import (
	"path/filepath"
)

// luanti finds Luanti's (Minetest's) debug.txt: in the directory given (a
// portable install, or wherever --logfile put it), two folders above a
// world of a portable install (worlds/NAME), else in the user's directory:
// ~/.luanti since Luanti 5.10, ~/.minetest before (the one that has a
// debug.txt, else the one that exists); %APPDATA%\Minetest on Windows,
// ~/Library/Application Support/minetest on macOS. Without a directory,
// the working directory's debug.txt wins when there is one.
func (e Env) luanti(dir string, given bool) (Location, error) {
	if p := filepath.Join(dir, "debug.txt"); exists(p) {
		return Location{Path: p, Why: "debug.txt of " + dirWhy(given)}, nil
	}
	if given && exists(filepath.Join(dir, "world.mt")) {
		if p := filepath.Join(dir, "..", "..", "debug.txt"); exists(p) {
			return Location{Path: filepath.Clean(p), Why: "the debug.txt of the portable install the world " + dir + " is in"}, nil
		}
	}
	if given && !exists(filepath.Join(dir, "world.mt")) {
		return Location{Path: filepath.Join(dir, "debug.txt"), Why: "debug.txt of the directory given (it does not exist yet)"}, nil
	}
	var dirs []string
	switch e.GOOS {
	case "windows":
		appdata := e.winDir("APPDATA", "AppData", "Roaming")
		dirs = []string{e.join(appdata, "Luanti"), e.join(appdata, "Minetest")}
	case "darwin":
		support := e.join(e.Home, "Library", "Application Support")
		dirs = []string{e.join(support, "luanti"), e.join(support, "minetest")}
	default:
		dirs = []string{e.join(e.Home, ".luanti"), e.join(e.Home, ".minetest")}
	}
	for _, d := range dirs {
		if p := e.join(d, "debug.txt"); exists(p) {
			return Location{Path: p, Why: "the user's Luanti directory's debug.txt"}, nil
		}
	}
	for _, d := range dirs {
		if isDir(d) {
			return Location{Path: e.join(d, "debug.txt"), Why: "the user's Luanti directory " + d + " (no debug.txt yet)"}, nil
		}
	}
	return Location{Path: e.join(dirs[0], "debug.txt"), Why: "Luanti 5.10's user directory for " + e.GOOS + " (none exists yet)"}, nil
}

// dirWhy names the directory a rule looked in.
func dirWhy(given bool) string {
	if given {
		return "the directory given"
	}
	return "the working directory"
}
