package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
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

// TestImport_LeavesTheRecordsSealed: a log imported with no server running
// leaves its records sealed into blocks, as a server would once appends
// pause, not loose (about three times their text's bytes) until the next
// Open; every line is there to read.
func TestImport_LeavesTheRecordsSealed(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "debug.txt")
	var b strings.Builder
	const lines = 20000
	for i := range lines {
		fmt.Fprintf(&b, "2026-12-02 16:%02d:%02d: ACTION[Server]: player%d digs node at (%d,%d,%d)\n", i/3600%60, i/60%60, i%17, i, -i, i%97)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, "import", file)
	if err != nil || !strings.Contains(out, fmt.Sprintf("imported %d records", lines+1)) { // and the import's end marker
		t.Fatalf("import: %q, %v", out, err)
	}
	db, err := bbolt.Open(filepath.Join(data, "log.db"), 0, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var loose, blocks int
	err = db.View(func(tx *bbolt.Tx) error {
		if err := tx.Bucket(codec.RecordsBucket).ForEach(func(_, v []byte) error { loose += len(v); return nil }); err != nil {
			return err
		}
		return tx.Bucket(codec.BlocksBucket).ForEach(func(_, _ []byte) error { blocks++; return nil })
	})
	if err != nil || blocks == 0 || loose >= codec.BlockTarget {
		t.Fatalf("after the import: %d blocks, %d bytes of records loose (%v); want the records sealed but for less than a block's worth", blocks, loose, err)
	}
	_ = db.Close()
	out, err = run(t, data, "search", "digs", "--limit", "1")
	if err != nil || !strings.Contains(out, fmt.Sprintf("player%d digs node at (%d,%d,%d)", (lines-1)%17, lines-1, 1-lines, (lines-1)%97)) {
		t.Fatalf("search after the import: %q, %v", out, err)
	}
}
