package search_test

import (
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// damageZaps writes over every *.zap under dir with damage (which gets the
// file's contents and returns the new ones), keeping their sizes, and
// returns how many it damaged.
func damageZaps(t *testing.T, dir string, damage func([]byte) []byte) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".zap") {
			return err
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil // merged away meanwhile
		} else if err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if errors.Is(err, os.ErrNotExist) {
			return nil // merged away between the read and now
		} else if err != nil {
			return err
		}
		n++
		defer f.Close()
		_, err = f.WriteAt(damage(b), 0)
		return err
	})
	if err != nil || n == 0 {
		t.Fatalf("damaging %s: %d files, %v", dir, n, err)
	}
	return n
}

// randomBytes puts 64 random bytes somewhere in the middle of b.
func randomBytes(b []byte) []byte {
	at := len(b)/4 + rand.IntN(len(b)/2)
	for i := at; i < min(at+64, len(b)); i++ {
		b[i] = byte(rand.Uint32())
	}
	return b
}

func TestIndex_Open_RebuildsWhenEveryZapIsDamaged(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 4000)...)
	e.waitIndexed()
	e.close()
	n := damageZaps(t, filepath.Join(e.dir, "index"), randomBytes)
	var logs syncBuffer
	e.opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e = e.reopen()
	if !strings.Contains(logs.String(), "segment is corrupt") {
		t.Fatalf("%d damaged zap files were not found at open: %s", n, logs.String())
	}
	// Exact meanwhile: the records are evaluated from the store.
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.waitIndexed()
	if s := e.idx.Status(); s.Segments != 4 || s.SegmentLag != 0 {
		t.Fatalf("status after rebuild: %+v", s)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.check(oplog.SearchQuery{Query: "physics", Limit: 500}, func(r *oplog.Record) bool { return r.Stack != "" })
}

func TestIndex_Search_DamagedWhileOpenRebuilds(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 4000)...)
	e.waitIndexed()
	// Reopened: the segments are on disk and their fields not yet read.
	var logs syncBuffer
	e.opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e = e.reopen()
	e.waitIndexed()
	// The disk goes bad under the open index: every zap file zeroed.
	damageZaps(t, filepath.Join(e.dir, "index"), func(b []byte) []byte { return make([]byte, len(b)) })
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	if !strings.Contains(logs.String(), "segment is damaged") {
		t.Fatalf("the damage was not reported: %s", logs.String())
	}
	e.waitIndexed()
	if s := e.idx.Status(); s.Segments != 4 || s.SegmentLag != 0 {
		t.Fatalf("status after rebuild: %+v", s)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
}
