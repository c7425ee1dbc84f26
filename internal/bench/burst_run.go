package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"time"

	"github.com/mcplogd/mcplogd/client"
)

// burstOnce sends the burst to a new server and measures what follows:
// with busy, searches of every shape in turn until the index has caught
// up; without, nothing until it has, then newest-50 reads over HTTP.
func (r *runner) burstOnce(ctx context.Context, busy bool) (burstRun, error) {
	dir, remove, err := r.runDir("burst")
	if err != nil {
		return burstRun{}, err
	}
	defer remove()
	s, err := startBurstServer(dir)
	if err != nil {
		return burstRun{}, err
	}
	defer s.stop()
	runtime.GC()
	before := sampleCPU()
	d := r.burst.data
	start := time.Now()
	lastID, err := s.ingest(ctx, d.bodies, d.lines)
	if err != nil {
		return burstRun{}, err
	}
	end := time.Now()
	run := burstRun{ingest: end.Sub(start), lagAtEnd: s.lag(lastID), segLagAtEnd: s.segLag(lastID)}
	// The watermarks are watched on their own, so that a slow search does
	// not hide when the index caught up; searches go on until every record
	// is in a segment.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	caught := make(chan error, 1)
	done := make(chan struct{})
	var caughtAt, segAt time.Time
	go func() {
		defer close(done)
		err := s.waitIndexed(wctx, lastID, s.lag)
		caughtAt = time.Now()
		if err == nil {
			err = s.waitIndexed(wctx, lastID, s.segLag)
		}
		segAt = time.Now()
		caught <- err
	}()
	if busy {
		if run.searches, err = s.searchWhile(ctx, r.burst.shapes, lastID, done); err != nil {
			cancel()
			<-done // before the server stops
			return burstRun{}, err
		}
	}
	if err := <-caught; err != nil {
		return burstRun{}, err
	}
	run.catchUp, run.segCatchUp = caughtAt.Sub(end), segAt.Sub(end)
	run.others = othersShare(before, sampleCPU())
	if !busy {
		if run.nameLevel, run.word, err = r.newest50(ctx, s); err != nil {
			return burstRun{}, err
		}
	}
	return run, nil
}

// lag is how many records up to lastID are in no index yet (neither in
// a segment nor in a chunk's term set).
func (s *burstServer) lag(lastID uint64) uint64 {
	if wm := s.idx.Status().IndexedThrough; wm < lastID {
		return lastID - wm
	}
	return 0
}

// segLag is how many records up to lastID are not yet in a segment.
func (s *burstServer) segLag(lastID uint64) uint64 {
	if wm := s.idx.Status().SegmentsThrough; wm < lastID {
		return lastID - wm
	}
	return 0
}

// waitIndexed waits until lag(lastID) is 0.
func (s *burstServer) waitIndexed(ctx context.Context, lastID uint64, lag func(uint64) uint64) error {
	deadline := time.Now().Add(burstCatchUpLimit)
	for lag(lastID) > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("the index is still %d records behind %s after the burst", lag(lastID), burstCatchUpLimit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(burstPoll):
		}
	}
	return nil
}

// searchWhile asks each shape in turn, one query at a time, until done is
// closed (every record is in a segment) and every shape was asked once;
// the answer must hold the newest line first when the shape asks for it.
func (s *burstServer) searchWhile(ctx context.Context, shapes []burstShape, lastID uint64, done <-chan struct{}) ([]burstSearch, error) {
	var out []burstSearch
	for i := 0; ; i++ {
		if i >= len(shapes) {
			select {
			case <-done:
				return out, nil
			default:
			}
		}
		lag, segLag := s.lag(lastID), s.segLag(lastID)
		sh := i % len(shapes)
		var a client.SearchAnswer
		t0 := time.Now()
		if err := s.do(ctx, http.MethodGet, "/api/v1/search?"+shapes[sh].q.Encode(), nil, &a); err != nil {
			return nil, fmt.Errorf("%s: %w", shapes[sh].name, err)
		}
		took := time.Since(t0)
		if shapes[sh].newest && (len(a.Hits) == 0 || a.Hits[0].Record.ID != lastID) {
			return nil, fmt.Errorf("%s: the newest hit is not the burst's last line (%d hits)", shapes[sh].name, len(a.Hits))
		}
		out = append(out, burstSearch{shape: sh, took: took, lag: lag, segLag: segLag, hits: len(a.Hits)})
	}
}

// newest50 times the newest 50 records of a name at a level, and of a
// word, through GET /api/v1/search with the index caught up.
func (r *runner) newest50(ctx context.Context, s *burstServer) (nameLevel, word latency, err error) {
	d := r.burst.data
	n := min(r.cfg.Samples, 500)
	for q, out := range map[string]*latency{
		url.Values{"name": {d.name}, "level": {d.level}, "limit": {"50"}}.Encode(): &nameLevel,
		url.Values{"query": {burstCommon}, "limit": {"50"}}.Encode():               &word,
	} {
		took := make([]time.Duration, n)
		for i := range took {
			var a client.SearchAnswer
			t0 := time.Now()
			if err := s.do(ctx, http.MethodGet, "/api/v1/search?"+q, nil, &a); err != nil {
				return latency{}, latency{}, err
			}
			took[i] = time.Since(t0)
			if len(a.Hits) == 0 {
				return latency{}, latency{}, fmt.Errorf("search %s: no hits", q)
			}
		}
		*out = percentiles(took)
	}
	return nameLevel, word, nil
}
