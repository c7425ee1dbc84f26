package store_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/store"
)

func TestDB_Retention_Hold(t *testing.T) {
	t.Run("RecordsWaitForTheHold", func(t *testing.T) {
		var hold atomic.Uint64
		hold.Store(310)
		l, db := logtest.MustOpenLog(t, &store.Options{MaxRecords: 100, TrimBatch: 30, Hold: hold.Load})
		for range 10 {
			logtest.MustAppend(t, l, logtest.Lines(100, "h")...)
		}
		logtest.Eventually(t, 10*time.Second, "retention to trim through the hold", func() bool { return db.Stats().TrimmedThrough == 310 }) // 310: not a multiple of TrimBatch
		hold.Store(700)
		logtest.MustAppend(t, l, logtest.Lines(1, "kick")...) // a commit over the limit wakes retention
		logtest.Eventually(t, 10*time.Second, "retention to follow the hold", func() bool { return db.Stats().TrimmedThrough == 700 })
		if s := db.Stats(); s.FirstID != 701 || s.Records != 301 {
			t.Fatalf("stats with the hold at 700: %+v; want records 701..1001 kept", s)
		}
	})
	t.Run("MaxBytesForcesThem", func(t *testing.T) {
		l, db := logtest.MustOpenLog(t, &store.Options{MaxBytes: 10_000, Hold: func() uint64 { return 0 }})
		for range 20 {
			logtest.MustAppend(t, l, logtest.Lines(50, "bytes")...)
		}
		logtest.Eventually(t, 10*time.Second, "the disk limit to trim held records", func() bool { return db.Stats().Bytes <= 10_000 })
		if db.Stats().Trimmed == 0 {
			t.Fatal("nothing trimmed")
		}
	})
}
