package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/store"
)

// refusedHere runs a command in this process, which must fail, and
// returns its error's text; a serve that starts instead fails the test.
func refusedHere(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := newMain(io.Discard, io.Discard, "").Run(ctx, args)
	if err == nil {
		t.Fatalf("%s: no error", strings.Join(args, " "))
	}
	return err.Error()
}

// newDataDir makes a data directory at path as serve leaves it: a token
// and a log.db.
func newDataDir(t *testing.T, path string) {
	t.Helper()
	dir, err := datadir.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dir.Token(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(dir.DBPath(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestServe_ReadOnlyFileSystem: a data directory on a read-only file
// system, existing or to be made, is refused saying so, by serve and by
// tail. It needs root, to mount one.
func TestServe_ReadOnlyFileSystem(t *testing.T) {
	mnt := logtest.MountTmpfs(t, 8<<20)
	data := filepath.Join(mnt, "data")
	newDataDir(t, data)
	if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot make the tmpfs read-only (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	const todo = "read-only file system; pass --data a directory on a writable file system"
	fresh := filepath.Join(mnt, "new")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"Serve", []string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, "cannot write the data directory " + data + ": " + todo},
		{"ServeNew", []string{"serve", "--data", fresh, "--addr", "127.0.0.1:0"}, "cannot create the data directory " + fresh + ": " + todo},
		{"Tail", []string{"tail", "--data", data}, "cannot write the data directory " + data + ": " + filepath.Join(data, "log.db") + ": " + todo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedHere(t, tc.args...); got != tc.want {
				t.Errorf("got\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
}

// TestServe_DataIsAFile: --data naming a file, or a path under one, is
// refused naming the file, as root too.
func TestServe_DataIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	must(t, os.WriteFile(file, []byte("x"), 0o600))
	under := filepath.Join(file, "data")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"Serve", []string{"serve", "--data", file, "--addr", "127.0.0.1:0"}, "the data directory " + file + " is a file, not a directory; pass --data a directory (a new one, or one holding log.db)"},
		{"ServeUnder", []string{"serve", "--data", under, "--addr", "127.0.0.1:0"}, "cannot create the data directory " + under + ": " + file + " is a file, not a directory; pass --data a path without a file in it"},
		{"Tail", []string{"tail", "--data", under}, "no data directory at " + under + ": " + file + " is a file, not a directory; pass --data a data directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedHere(t, tc.args...); got != tc.want {
				t.Errorf("got\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
}

// TestServe_EmptyConfig: a 0-byte config.json stops serve saying the file
// is empty and what to write, not "EOF".
func TestServe_EmptyConfig(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	must(t, os.Mkdir(data, 0o700))
	must(t, os.WriteFile(filepath.Join(data, "config.json"), nil, 0o600))
	got := refusedHere(t, "serve", "--data", data, "--addr", "127.0.0.1:0")
	want := filepath.Join(data, "config.json") + " is empty, and an empty file is not valid JSON: write {} in it, or remove it (it may hold {"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s...", got, want)
	}
}
