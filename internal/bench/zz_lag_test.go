package bench

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// Scratch: the lag searches after a burst, each with its time. Not committed.
func TestZZLag(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	r := &runner{cfg: Config{Seed: 1, Records: 1_000_000}, dir: t.TempDir()}
	d, err := r.burstData()
	if err != nil {
		t.Fatal(err)
	}
	shapes := burstShapes(d.name, d.level)
	dir := t.TempDir()
	s, err := startBurstServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	last, err := s.ingest(context.Background(), d.bodies, d.lines)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	done := make(chan struct{})
	go func() {
		_ = s.waitIndexed(context.Background(), last, s.segLag)
		close(done)
	}()
	out, err := s.searchWhile(context.Background(), shapes, last, done)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Duration(0)
	var all []time.Duration
	for i, q := range out {
		at += q.took
		all = append(all, q.took)
		if i < 14 || q.took > 100*time.Millisecond {
			t.Logf("#%d at ~%5dms shape %d took %6.1fms lag %d seglag %d", i, at.Milliseconds(), q.shape, float64(q.took.Microseconds())/1000, q.lag, q.segLag)
		}
	}
	slices.Sort(all)
	t.Logf("segments %.1fs after; %d searches; p50 %v p90 %v p99 %v max %v", time.Since(end).Seconds(), len(out), all[len(all)/2], all[len(all)*9/10], all[len(all)*99/100], all[len(all)-1])
}
