package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/store"
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
	runtime.GC()
	rssBefore := readProcStatus().rss
	s, err := startBurstServer(dir)
	if err != nil {
		return burstRun{}, err
	}
	defer s.stop()
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
	// is on disk.
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
		// Settled first, as VictoriaLogs is asked once its merges end.
		layout, err := s.settled(ctx, filepath.Join(dir, "index"))
		if err != nil {
			return burstRun{}, err
		}
		if run.newest, run.samples, err = r.newest50(ctx, s); err != nil {
			return burstRun{}, err
		}
		run.freeBytes = layout.FreeBytes
		run.dirBytes, run.logBytes, run.idxBytes = fileBytes(dir), fileBytes(filepath.Join(dir, "log.db")), fileBytes(filepath.Join(dir, "index"))
		run.rss, run.rssBefore = readProcStatus().rss, rssBefore
	}
	return run, nil
}

// lag is how many records up to lastID are in no index yet (neither in
// in a chunk's term set).
func (s *burstServer) lag(lastID uint64) uint64 {
	if wm := s.idx.Status().IndexedThrough; wm < lastID {
		return lastID - wm
	}
	return 0
}

// segLag is how many records up to lastID are not yet on disk (the sets file).
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
// closed (every record is on disk) and every shape was asked once;
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

// newestShape is one of the newest-50 queries asked of mcplogd and of
// VictoriaLogs once each has caught up: the arguments of GET
// /api/v1/search, and the LogsQL filter that VictoriaLogs is asked, newest
// first (vlQuery).
type newestShape struct {
	name   string
	q      url.Values
	logsql string
}

// The newestShapes that the SQLite baseline times too.
const (
	newestWord      = 0
	newestNameLevel = 2
)

// burstOther is a second common word of the workload, for two words.
const burstOther = "entity"

// newestShapes are a word, two words, a name at a level, and a level. In
// LogsQL a bare word is a word filter over _msg (exact case), words side
// by side are ANDed, as in mcplogd's language (which matches text and stack,
// any case, and a word's inflections).
func newestShapes(name, level string) []newestShape {
	q := func(kv ...string) url.Values {
		v := url.Values{"limit": {"50"}}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	two := burstCommon + " " + burstOther
	return []newestShape{
		{"a word (`" + burstCommon + "`)", q("query", burstCommon), burstCommon},
		{"two words (`" + two + "`)", q("query", two), two},
		{"`name=" + name + "` + `level=" + level + "`", q("name", name, "level", level), "name:=" + strconv.Quote(name) + " level:=" + level},
		{"`level=" + level + "`", q("level", level), "level:=" + level},
	}
}

// newest50 times the newest 50 of each of newestShapes through GET
// /api/v1/search with the index caught up.
func (r *runner) newest50(ctx context.Context, s *burstServer) ([]latency, int, error) {
	return timeNewest(r.burst.newestShapes, min(r.cfg.Samples, 500), func(sh *newestShape) (time.Duration, int, error) {
		body, took, err := timedGet(ctx, s.client, s.base+"/api/v1/search?"+sh.q.Encode(), benchToken)
		if err != nil {
			return 0, 0, err
		}
		var a client.SearchAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			return 0, 0, fmt.Errorf("search %s: %w", sh.q.Encode(), err)
		}
		return took, len(a.Hits), nil
	})
}

// A shape's series of newest-50 reads stops after newestBudget once it
// has newestMinSamples (VictoriaLogs takes a fifth of a second or more for
// some on two busy cores, and 500 of those would take minutes).
const (
	newestBudget     = 10 * time.Second
	newestMinSamples = 5
)

// timeNewest asks each shape n times through ask (fewer past
// newestBudget), which returns the time to the answer's last byte and the
// hits in it; an answer without hits is an error. It returns the fewest
// reads a shape got.
func timeNewest(shapes []newestShape, n int, ask func(sh *newestShape) (time.Duration, int, error)) ([]latency, int, error) {
	out := make([]latency, len(shapes))
	fewest := n
	for i := range shapes {
		var took []time.Duration
		start := time.Now()
		for len(took) < n && (len(took) < newestMinSamples || time.Since(start) < newestBudget) {
			t, hits, err := ask(&shapes[i])
			if err != nil {
				return nil, 0, err
			}
			if hits == 0 {
				return nil, 0, fmt.Errorf("newest 50 of %s: no hits", shapes[i].name)
			}
			took = append(took, t)
		}
		out[i], fewest = percentiles(took), min(fewest, len(took))
	}
	return out, fewest, nil
}

// timedGet sends a GET (with token as the bearer, unless empty) and times
// it from the request to the answer's last byte, which is all read before
// anything is decoded; an answer other than 200 is an error.
func timedGet(ctx context.Context, hc *http.Client, u, token string) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	t0 := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	took := time.Since(t0)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("GET %s: %s: %.300s", u, resp.Status, bytes.TrimSpace(b))
	}
	return b, took, nil
}

// settled waits until the store has sealed its records into blocks (fewer
// than a block's worth loose, none in an older format left to seal
// again) and the data folder kept its size for settleQuiet (the data file
// compacted: VictoriaLogs is measured once its merges end too), and
// returns the store's layout.
func (s *burstServer) settled(ctx context.Context, dir string) (store.Layout, error) {
	const settleQuiet = 3 * time.Second
	deadline := time.Now().Add(burstCatchUpLimit)
	var size int64
	var since time.Time
	for {
		l, err := s.db.Layout()
		if err != nil {
			return l, err
		}
		if n := fileBytes(dir); l.LooseBytes >= codec.BlockTarget || l.OutdatedBlocks > 0 || n != size {
			size, since = n, time.Now()
		} else if time.Since(since) >= settleQuiet {
			return l, nil
		}
		if time.Now().After(deadline) {
			return l, fmt.Errorf("not settled %s after the burst: %d bytes of records loose", burstCatchUpLimit, l.LooseBytes)
		}
		select {
		case <-ctx.Done():
			return l, ctx.Err()
		case <-time.After(burstPoll):
		}
	}
}
