package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// BenchmarkCheckFile measures the check Open makes before bbolt maps the
// data file (checkFile), on a file of 500,000 records.
func BenchmarkCheckFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "log.db")
	db, err := Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 500_000; i += 10_000 {
		recs := make([]oplog.Record, 10_000)
		for j := range recs {
			recs[j] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "game", Name: "Render",
				Text: fmt.Sprintf("frame %d rendered %s", i+j, strings.Repeat("x", (i+j)%300))}
		}
		if err := db.Append(context.Background(), recs); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
	for b.Loop() {
		if err := checkFile(path); err != nil {
			b.Fatal(err)
		}
	}
}
