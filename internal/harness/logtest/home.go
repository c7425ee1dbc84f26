package logtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// IsolateHome points HOME, XDG_STATE_HOME, XDG_CONFIG_HOME and
// LOCALAPPDATA at a new temporary directory for a whole test run (call it
// first in TestMain), so that no test, and no mcplogd a test starts, reads
// or writes the real per-user data directory, its registry of running
// servers or the user's services; MCPLOGD_DATA is unset. The go command's
// caches stay where they were (they are found from HOME otherwise). It
// returns the function that removes the directory.
func IsolateHome() (cleanup func()) {
	if out, err := exec.Command("go", "env", "GOPATH", "GOMODCACHE", "GOCACHE").Output(); err == nil {
		for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			os.Setenv([]string{"GOPATH", "GOMODCACHE", "GOCACHE"}[i], v)
		}
	}
	home, err := os.MkdirTemp("", "mcplogd-home-")
	if err != nil {
		panic("BUG: no temporary directory for HOME: " + err.Error())
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.Setenv("LOCALAPPDATA", filepath.Join(home, "AppData", "Local"))
	os.Unsetenv("MCPLOGD_DATA")
	return func() { os.RemoveAll(home) }
}
