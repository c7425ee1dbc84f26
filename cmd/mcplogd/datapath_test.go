package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// isolateHome points HOME, XDG_STATE_HOME, XDG_CONFIG_HOME and
// LOCALAPPDATA at a new temporary directory for the whole test run, so
// that no test, and no process a test starts, reads or writes the real
// per-user directory; it returns the directory, to remove at the end.
func isolateHome() string {
	// The go command finds its caches from HOME: keep the real ones for
	// the binaries the tests build.
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
	return home
}

// userEnv returns a fresh HOME for one test (set in this process, for
// the processes it starts) and a Getenv of it for an in-process Main.
func userEnv(t *testing.T) (home string, getenv func(string) string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	return home, func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

// TestDefaultData: with neither MCPLOGD_DATA nor ./mcplogd-data the
// default is the per-user directory of HOME, and a "no data directory"
// message says how to make one.
func TestDefaultData(t *testing.T) {
	home, getenv := userEnv(t)
	m := &Main{Getenv: getenv}
	want := filepath.Join(home, ".local", "state", "mcplogd")
	if got := m.defaultData(); got != want {
		t.Fatalf("default data directory %q, want %q", got, want)
	}
	if !m.implicitData() {
		t.Fatal("implicitData is false with nothing chosen")
	}
	m.Getenv = func(k string) string {
		if k == "MCPLOGD_DATA" {
			return "/elsewhere"
		}
		return getenv(k)
	}
	if got := m.defaultData(); got != "/elsewhere" || m.implicitData() {
		t.Fatalf("with MCPLOGD_DATA: %q (implicit %v)", got, m.implicitData())
	}
	// A project's ./mcplogd-data, where it exists, wins over the per-user one.
	m.Getenv = getenv
	t.Chdir(t.TempDir())
	must(t, os.Mkdir(datadir.Default, 0o700))
	if got := m.defaultData(); got != datadir.Default || m.implicitData() {
		t.Fatalf("with ./%s: %q (implicit %v)", datadir.Default, got, m.implicitData())
	}
	_, err := datadir.Existing(want)
	if err == nil || !strings.Contains(err.Error(), "no data directory at "+want) || !strings.Contains(err.Error(), "--create") ||
		!strings.Contains(err.Error(), "mcplogd serve --data "+want) {
		t.Fatalf("missing per-user directory: %v", err)
	}
}
