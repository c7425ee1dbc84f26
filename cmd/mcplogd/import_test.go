package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestImport_GameLogTwice: a Luanti debug.txt imported beside a running
// server is read by the Luanti parser into its own source, with its runs
// and crashes; imported again it adds nothing and says so.
func TestImport_GameLogTwice(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	startServe(t, data, "--addr", "127.0.0.1:0")
	file, err := filepath.Abs("../../follow/testdata/luanti/debug.txt")
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, "import", file)
	// 308 lines and run markers, an exit marker after each of the 21
	// "Server: Shutting down" lines, the end marker of the import.
	if err != nil || !strings.Contains(out, "imported 330 records (IDs 1 to 330) from "+file+" into source debug.txt (parser luanti)") {
		t.Fatalf("import: %q, %v", out, err)
	}
	out, err = run(t, data, "import", file)
	if err != nil || !strings.Contains(out, "was imported into source debug.txt before: nothing new") {
		t.Fatalf("import again: %q, %v", out, err)
	}
	out, err = run(t, data, "crashes", "--source", "debug.txt")
	// Nine crashes: each ended its run, a mod's file named as the game's.
	if err != nil || !strings.Contains(out, "attempt to index local 't' (a nil value) in mods/logtest/init.lua:54: in function 'func'") ||
		strings.Count(out, "signature") != 9 || strings.Count(out, "ended 1 run") != 8 {
		t.Fatalf("crashes after the import: %q, %v", out, err)
	}
	out, err = run(t, data, "tail", "-n", "3", "--source", "debug.txt")
	if err != nil || !strings.Contains(out, "debug.txt/Main") {
		t.Fatalf("tail: %q, %v", out, err)
	}
}
