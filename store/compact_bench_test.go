package store_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/store"
)

// BenchmarkCompact measures a compaction of a store holding 200,000
// workload records sealed into blocks (what a burst of that many leaves),
// and as the baseline a plain copy of the compacted file's bytes with one
// fsync. Appends wait for the compaction: its time is their delay.
//
//	go test ./store -run '^$' -bench Compact -benchtime 10x
func BenchmarkCompact(b *testing.B) {
	if !store.CompactOnline() {
		b.Skip("the data file is compacted at Open on Windows")
	}
	path := filepath.Join(b.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(b, path, nil)
	recs := pool(1, 1000, 200_000)
	for i := 0; i < len(recs); i += 1000 {
		if err := db.Append(b.Context(), recs[i:i+1000]); err != nil {
			b.Fatal(err)
		}
	}
	logtest.Eventually(b, 5*time.Minute, "the records sealed", func() bool {
		l, err := db.Layout()
		return err == nil && l.LooseBytes < codec.BlockTarget
	})
	if err := db.Compact(); err != nil {
		b.Fatal(err)
	}
	size := db.Size()
	b.Run("compact", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if err := db.Compact(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline=copy", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if err := copyFile(path, path+".copy"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
