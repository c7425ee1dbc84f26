package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// The burst: a crash prints many lines at once, and that is
// when an agent searches. A server like `mcplogd serve` (store, search
// index, crash index, HTTP API) takes burstLines workload lines from
// burstClients clients in requests of burstBatch lines; then the figures
// are the searches while the index catches up and the time it takes to.
const (
	burstMaxLines = 200_000
	burstBatch    = 1000
	burstClients  = 4
	// burstWord is only in the burst's last (newest) line, followed by
	// "marks the end" for the phrase.
	burstWord   = "sentinelqxj"
	burstCommon = "player" // a common word of the workload
	// burstCatchUpLimit is how long the index may take to catch up before
	// the run fails.
	burstCatchUpLimit = 10 * time.Minute
	// burstPoll is how often the watermark is read while waiting (each
	// read of search.Index.Status walks the index's folder).
	burstPoll = 10 * time.Millisecond
)

// burstLines is the size of the burst: 200,000 in the full benchmark, a
// fifth of the filled store's records in smaller ones (--quick: 20,000).
func (r *runner) burstLines() int { return min(burstMaxLines, max(MinRecords, r.cfg.Records/5)) }

// burstShape is one query asked during the lag: a query and filters of
// GET /api/v1/search, newest 50.
type burstShape struct {
	name   string
	q      url.Values
	newest bool // the newest line is the first hit
}

func burstShapes(name, level string) []burstShape {
	q := func(kv ...string) url.Values {
		v := url.Values{"limit": {"50"}}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	return []burstShape{
		{"a word only in the newest record", q("query", burstWord), true},
		{"a common word (`" + burstCommon + "`)", q("query", burstCommon), false},
		{"two common words (`" + burstCommon + " " + burstOther + "`)", q("query", burstCommon+" "+burstOther), false},
		{"a phrase of the newest record", q("query", `"`+burstWord+` marks the end"`), true},
		{"a prefix (`sentinelq*`)", q("query", "sentinelq*"), true},
		{"a wildcard inside a word (`sent?nelqxj`)", q("query", "sent?nelqxj"), true},
		{"the newest record's word with `name` + `level` filters", q("query", burstWord, "name", name, "level", level), true},
		{"a rare word NOT a common one", q("query", burstWord+" NOT "+burstCommon), false},
		{"a common word OR a rare one", q("query", burstCommon+" OR "+burstWord), true},
	}
}

// burstData is the burst's lines, generated once and sent in every run.
type burstData struct {
	bodies      [][]byte // requests of burstBatch lines, the last one holding the newest line
	lines       int
	name, level string   // the commonest name among the warnings and errors, and its level
	ndjson      string   // the same lines, one per line, for the SQLite baseline
	vlBodies    [][]byte // the same requests as JSON lines for VictoriaLogs (victorialogs.go)
	bytes       int64    // the bodies' bytes, what mcplogd is sent
	vlBytes     int64    // the vlBodies' bytes, what VictoriaLogs is sent
}

// burstSearch is one query asked during the lag.
type burstSearch struct {
	shape  int
	took   time.Duration
	lag    uint64 // records in no index when it was asked
	segLag uint64 // records not yet on disk then
	hits   int
}

// burstRun is one burst into a new server.
type burstRun struct {
	ingest      time.Duration // from the first request to the last answer
	lagAtEnd    uint64        // records in no index when the last answer came
	segLagAtEnd uint64        // records not yet on disk then
	catchUp     time.Duration // from the last answer until every record was in a term set
	segCatchUp  time.Duration // and until every record was on disk (the sets file)
	searches    []burstSearch // asked in a loop from the last answer until every record was on disk (busy runs)
	others      float64
	// Once every record is on disk (quiet runs): the newest 50 of
	// each of newestShapes over HTTP, then the data directory's bytes
	// (log.db and the index folder among them) and the process's RSS, and
	// its RSS before the server started (the benchmark's own bodies).
	newest                       []latency
	samples                      int // the fewest reads of a shape
	dirBytes, logBytes, idxBytes int64
	freeBytes                    int64 // of logBytes, bbolt's free pages
	rss, rssBefore               int64
}

func (b burstRun) rate(lines int) float64 { return float64(lines) / b.ingest.Seconds() }

// burstResult is every run of the burst section and its baseline.
type burstResult struct {
	data   *burstData
	quiet  []burstRun // no searches while the index catches up
	busy   []burstRun // searches in a loop while it does
	sqlite []sqliteRun
	// sqliteSkipped says why there is no SQLite baseline, if there is none.
	sqliteSkipped string
	shapes        []burstShape
	newestShapes  []newestShape
	vl            []vlRun // victorialogs.go
	// vlSkipped says why there is no VictoriaLogs column, if there is none.
	vlSkipped string
	limit     int64 // the Go memory limit of the runs (limit.go)
}

// measureBurst runs the burst cfg.Runs times without searches and as many
// with, each in a new store, and the SQLite baseline on the same lines.
func (r *runner) measureBurst(ctx context.Context) error {
	d, err := r.burstData()
	if err != nil {
		return err
	}
	r.burst = burstResult{data: d, shapes: burstShapes(d.name, d.level), newestShapes: newestShapes(d.name, d.level)}
	for round := range r.cfg.Runs {
		for _, busy := range []bool{false, true} {
			var run burstRun
			limit, err := underServeLimit(func() (err error) {
				run, err = r.burstOnce(ctx, busy)
				return err
			})
			r.burst.limit = limit
			if err != nil {
				return err
			}
			what := "no searches"
			if busy {
				what = fmt.Sprintf("%d searches", len(run.searches))
				r.burst.busy = append(r.burst.busy, run)
			} else {
				r.burst.quiet = append(r.burst.quiet, run)
			}
			r.progress("burst of %d lines, run %d/%d (%s): ingest %.2fs (%.0f lines/s), lag at its end %d (%d not on disk), caught up %.2fs after (on disk %.2fs)",
				d.lines, round+1, r.cfg.Runs, what, run.ingest.Seconds(), run.rate(d.lines), run.lagAtEnd, run.segLagAtEnd,
				run.catchUp.Seconds(), run.segCatchUp.Seconds())
		}
		if err := r.measureSQLite(ctx); err != nil {
			return fmt.Errorf("SQLite baseline: %w", err)
		}
		if err := r.measureVL(ctx); err != nil {
			return fmt.Errorf("VictoriaLogs: %w", err)
		}
	}
	return nil
}

// burstData generates the burst's lines and encodes them.
func (r *runner) burstData() (*burstData, error) {
	n := r.burstLines()
	recs := make([]oplog.Record, n+n/20)
	r.generator(r.cfg.Seed).Fill(recs)
	lines := make([]wireLine, 0, n)
	counts := map[[2]string]int{}
	for i := range recs {
		rec := &recs[i]
		if rec.Kind != oplog.KindLine || len(lines) == n {
			continue
		}
		lines = append(lines, wireLine{Time: rec.Time.Format(time.RFC3339Nano), Level: rec.Level.String(),
			Name: rec.Name, Source: rec.Source, Text: rec.Text, Stack: rec.Stack, Data: rec.Data})
		if rec.Level >= oplog.LevelWarn && rec.Name != "" {
			counts[[2]string{rec.Name, rec.Level.String()}]++
		}
	}
	if len(lines) < n {
		return nil, fmt.Errorf("BUG: the workload gave %d lines, want %d", len(lines), n)
	}
	d := &burstData{lines: n}
	best := -1
	for k, c := range counts {
		if c > best || c == best && (k[0] < d.name || k[0] == d.name && k[1] < d.level) {
			best, d.name, d.level = c, k[0], k[1]
		}
	}
	last := &lines[n-1]
	last.Text += " " + burstWord + " marks the end"
	last.Name, last.Level = d.name, d.level
	for i := 0; i < n; i += burstBatch {
		b, err := json.Marshal(lines[i:min(i+burstBatch, n)])
		if err != nil {
			return nil, err
		}
		d.bodies = append(d.bodies, b)
		d.bytes += int64(len(b))
	}
	if err := d.encodeVL(lines); err != nil {
		return nil, err
	}
	var nd bytes.Buffer
	enc := json.NewEncoder(&nd)
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			return nil, err
		}
	}
	d.ndjson = nd.String()
	return d, nil
}

// burstServer is a server as `mcplogd serve` runs one, on 127.0.0.1.
type burstServer struct {
	db     *store.DB
	log    *oplog.Log
	idx    *search.Index
	base   string
	client *http.Client
	stop   func()
}

func startBurstServer(dir string) (*burstServer, error) {
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		return nil, err
	}
	l := oplog.New(db, nil)
	l.SetCrashes(crash.New(l, &crash.Options{}))
	idx, err := search.Open(filepath.Join(dir, "index"), db, &search.Options{Changed: l.Changed, Completed: l.CompletedSince})
	if err != nil {
		l.Close()
		return nil, err
	}
	l.SetIndex(idx) // the log closes it
	srv, err := api.New(l, &api.Options{Token: benchToken})
	if err != nil {
		l.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l.Close()
		return nil, err
	}
	go func() { _ = srv.Serve(ln) }()
	s := &burstServer{db: db, log: l, idx: idx, base: "http://" + ln.Addr().String(),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burstClients + 1, DisableCompression: true}}}
	s.stop = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		s.client.CloseIdleConnections()
		_ = l.Close()
	}
	return s, nil
}

// do sends a request with the token and decodes a 200 answer into a.
func (s *burstServer) do(ctx context.Context, method, path string, body []byte, a any) error {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+benchToken)
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	return json.Unmarshal(b, a)
}

// ingest posts every body, burstClients at a time, the last one alone at
// the end so that it holds the newest line; it returns the last ID.
func (s *burstServer) ingest(ctx context.Context, bodies [][]byte, lines int) (uint64, error) {
	last := lines - (len(bodies)-1)*burstBatch // lines in the last body
	post := func(body []byte) (uint64, error) {
		var a client.AppendAnswer
		if err := s.do(ctx, http.MethodPost, "/api/v1/logs", body, &a); err != nil {
			return 0, err
		}
		if a.Count != burstBatch && a.Count != last {
			return 0, fmt.Errorf("POST /api/v1/logs: answered a count of %d", a.Count)
		}
		return a.LastID, nil
	}
	if err := sendConcurrently(bodies[:len(bodies)-1], func(body []byte) error { _, err := post(body); return err }); err != nil {
		return 0, err
	}
	return post(bodies[len(bodies)-1])
}

// sendConcurrently posts every body, burstClients at a time, and returns
// the first error.
func sendConcurrently(bodies [][]byte, post func(body []byte) error) error {
	work := make(chan []byte)
	errs := make(chan error, burstClients)
	var wg sync.WaitGroup
	for range burstClients {
		wg.Go(func() {
			for body := range work {
				if err := post(body); err != nil {
					errs <- err
					for range work { // drain
					}
					return
				}
			}
		})
	}
	for _, body := range bodies {
		work <- body
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
