package logtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// Block is a sealed block of a data file, for tests that damage one: its
// run of IDs, its records and where its value lies in the file.
type Block struct {
	First, Last uint64
	Records     int
	At, Size    int64
}

// Blocks lists the blocks of the data file at path, oldest first, each
// with where its value lies in the file: its address in bbolt's map of the
// file less the map's start. (Searching the file for the value's bytes is
// not enough: a page that held the block before a later write copied it
// can still hold the same bytes, free, earlier in the file.)
func Blocks(path string) ([]Block, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	base := db.Info().Data
	var blocks []Block
	err = db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(codec.BlocksBucket).ForEach(func(k, v []byte) error {
			last, _ := codec.ID(k)
			_, first, n, err := codec.BlockRev(v)
			if err != nil || len(v) == 0 {
				return fmt.Errorf("block %d: %v", last, err)
			}
			at := int64(uintptr(unsafe.Pointer(&v[0])) - base)
			blocks = append(blocks, Block{First: first, Last: last, Records: int(n), At: at, Size: int64(len(v))})
			return nil
		})
	})
	return blocks, err
}

// FlipBit flips bit bit of byte off of the file at path, as a failing
// disk or a cosmic ray would.
func FlipBit(path string, off int64, bit uint) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	b[0] ^= 1 << bit
	if _, err := f.WriteAt(b, off); err != nil {
		return err
	}
	return f.Close()
}

var gameEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// GameLines returns n lines of a game's log, the first the from-th: ~100
// bytes of text each, as a game prints them (frame times, draw calls, a
// few names), so that a block holds ~2,500 of them, as it does in use;
// every 7th (from the 0th) says "found the needle". They are normalised
// (kind, time), for a store's Append.
func GameLines(from, n int) []oplog.Record {
	names := []string{"Render", "Physics", "AI", "Net", "Audio"}
	recs := make([]oplog.Record, n)
	for k := range recs {
		i := from + k
		text := fmt.Sprintf("frame %d rendered: %d draw calls, %d triangles, %d.%02d ms on the render thread, scene level_%02d",
			i, 800+i*37%400, 120_000+i*7919%90_000, 5+i%11, i*13%100, i/5000)
		if i%7 == 0 {
			text = fmt.Sprintf("found the needle %d while streaming chunk %d of level_%02d (%d KB)", i, i*31%977, i/5000, 64+i%512)
		}
		recs[k] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Time: gameEpoch.Add(time.Duration(i) * time.Millisecond),
			Source: "game", Name: names[i%len(names)], Text: text}
	}
	return recs
}

// MustSealedStore writes n lines (GameLines) into a new
// data file, waits until the sealer has sealed every whole block's worth
// (three blocks at least), closes it and returns its path and blocks.
func MustSealedStore(tb testing.TB, n int) (string, []Block) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		if err := db.Append(context.Background(), GameLines(i, min(1000, n-i))); err != nil {
			tb.Fatal(err)
		}
	}
	Eventually(tb, time.Minute, "every whole block's worth sealed", func() bool {
		l, err := db.Layout()
		return err == nil && l.Blocks >= 3 && l.LooseBytes < codec.BlockTarget
	})
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	blocks, err := Blocks(path)
	if err != nil {
		tb.Fatal(err)
	}
	return path, blocks
}

// LostRuns reads block b of the data file at path in part, as the store
// does once a bit in it flipped (codec.SalvageBlock), and returns the runs
// of IDs (from, to) it loses: what the store's readers must skip and name.
func LostRuns(path string, b Block) ([][2]uint64, error) {
	file, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if b.At < 0 || b.At+b.Size > int64(len(file)) {
		return nil, fmt.Errorf("block %d..%d at %d+%d lies outside %s", b.First, b.Last, b.At, b.Size, path)
	}
	pb, lost, err := codec.SalvageBlock(file[b.At : b.At+b.Size])
	if err != nil {
		return nil, err
	}
	if len(lost) == 0 || pb.Len() == 0 {
		return nil, fmt.Errorf("block %d..%d reads in part as %d records, %d runs lost; want some of each", b.First, b.Last, pb.Len(), len(lost))
	}
	return lost, nil
}
