package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestSalvage_CopiesARecordOnceAfterItWasSealed: salvage finds some
// records twice (on the trees' pages, then on stale or orphan pages), and
// the new file's sealer may have moved the first copies into blocks in
// between: the second copies are not written, nor counted.
func TestSalvage_CopiesARecordOnceAfterItWasSealed(t *testing.T) {
	out, err := Open(filepath.Join(t.TempDir(), "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var rep SalvageReport
	s := &salvager{out: out, rep: &rep, seen: map[uint64]bool{}, copied: roaring64.New()}
	recs := make([]oplog.Record, 9000) // several blocks' worth
	for i := range recs {
		recs[i] = oplog.Record{ID: uint64(i + 1), Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "game", Name: "Render",
			Text: fmt.Sprintf("frame %d rendered in %d ms", i, i%17), Time: time.Unix(1_800_000_000+int64(i), 0).UTC()}
	}
	s.batch = slices.Clone(recs)
	s.flush()
	out.sealAll(false)
	loose := 0
	if err := out.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		loose = tx.Bucket(codec.RecordsBucket).Stats().KeyN
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if loose >= len(recs) {
		t.Fatalf("%d of %d records still loose: nothing was sealed", loose, len(recs))
	}
	s.batch = slices.Clone(recs[len(recs)/2:]) // found again
	s.flush()
	if s.err != nil {
		t.Fatal(s.err)
	}
	got, err := out.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Copied != uint64(len(recs)) || len(got.Lines) != len(recs) || out.Stats().Records != uint64(len(recs)) {
		t.Fatalf("copied %d, the new file holds %d (counters %d); want %d each", rep.Copied, len(got.Lines), out.Stats().Records, len(recs))
	}
}
