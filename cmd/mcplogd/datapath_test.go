package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

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
		!strings.Contains(err.Error(), "mcplogd serve --data "+want) || !strings.Contains(err.Error(), "stdio, run and import make a missing one") {
		t.Fatalf("missing per-user directory: %v", err)
	}
}
