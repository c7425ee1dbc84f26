package studio_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

// BenchmarkStudioScope measures studio-scope search and find_crashes over
// MCPLOGD_STUDIO_BENCH_RECORDS records (default 1,000,000) of the workload
// mix, half from each of two machines, in a real single-node VictoriaLogs,
// beside the same LogsQL asked of VictoriaLogs directly over all time
// (Direct/...: the newest 100 rows, read whole). Setup (generating and
// ingesting the rows) is not timed; with -v it prints its rate.
//
//	go test ./studio -run '^$' -bench BenchmarkStudioScope -benchtime 20x
func BenchmarkStudioScope(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("MCPLOGD_STUDIO_BENCH_RECORDS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 2 {
			b.Fatalf("MCPLOGD_STUDIO_BENCH_RECORDS=%q: want a number of records", s)
		}
	}
	vl := studiotest.Start(b)
	start := time.Now()
	for _, m := range []string{"alice-pc", "ci-7"} {
		benchIngest(b, vl, m, n/2)
	}
	b.Logf("ingested %d records (2 machines) in %s: %.0f records/s", n, time.Since(start).Round(time.Millisecond),
		float64(n)/time.Since(start).Seconds())
	c, err := studio.NewClient(studio.ClientOptions{URL: vl, Project: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []struct{ name, query, machine string }{
		{"Word", "timeout", ""},
		{"Phrase", `"attempt to index"`, ""},
		{"Fields", "level:error AND name:Physics", ""},
		{"Prefix", "Spawn*", ""},
		{"WordOneMachine", "timeout", "ci-7"},
	} {
		b.Run("Studio/Search/"+q.name, func(b *testing.B) {
			for b.Loop() {
				p, err := c.Search(ctx, oplog.StudioSearchQuery{SearchQuery: oplog.SearchQuery{Query: q.query, Limit: 50}, Machine: q.machine})
				if err != nil || len(p.Hits) == 0 {
					b.Fatalf("%q: %d hits, %v", q.query, len(p.Hits), err)
				}
			}
		})
		lq, err := studio.LogsQL(q.query)
		if err != nil {
			b.Fatal(err)
		}
		stream := `{project="bench"}`
		if q.machine != "" {
			stream = `{project="bench",machine="` + q.machine + `"}`
		}
		direct := stream + " (" + lq + ") | sort by (_time desc, machine desc, revision desc, id desc, seq desc) | offset 0 | limit 100"
		b.Run("Direct/Search/"+q.name, func(b *testing.B) {
			for b.Loop() {
				benchQuery(b, vl, direct)
			}
		})
	}
	b.Run("Studio/FindCrashes", func(b *testing.B) {
		for b.Loop() {
			p, err := c.FindCrashes(ctx, oplog.StudioCrashQuery{})
			if err != nil || len(p.Groups) == 0 {
				b.Fatalf("%d groups, %v", len(p.Groups), err)
			}
		}
	})
	b.Run("Direct/FindCrashes", func(b *testing.B) {
		for b.Loop() {
			benchQuery(b, vl, `{project="bench"} signature:* | stats by (signature, machine) count() as n, min(_time) as first, max(_time) as last,`+
				` uniq_values(source) as sources, row_min(_time, id) as oldest, row_max(_time, id, _msg, stack) as newest`)
		}
	})
}

// benchIngest sends n workload records of machine, in batches, their times
// stretched a hundredfold (0 to 200 ms apart) and moved so that the newest
// is now: 500,000 records over about 14 hours.
func benchIngest(b *testing.B, url, machine string, n int) {
	b.Helper()
	g := workload.New(int64(len(machine)))
	shift := time.Now().Add(-time.Duration(n) * 100 * time.Millisecond)
	recs := make([]oplog.Record, 20_000)
	for done := 0; done < n; {
		recs = recs[:min(len(recs), n-done)]
		g.Fill(recs)
		rows := make([]map[string]any, len(recs))
		for i := range recs {
			r := &recs[i]
			r.ID = uint64(done + i + 1)
			r.Time = shift.Add(r.Time.Sub(workload.Epoch) * 100)
			if r.Kind == oplog.KindOp && r.Status == 0 {
				r.Status = oplog.StatusSuccess
			}
			sig, _ := crash.RecordSignature(r)
			rows[i] = studiotest.Row("bench", machine, 1, r.ID, r, sig)
		}
		studiotest.Ingest(b, url, rows)
		done += len(recs)
	}
}

// benchQuery asks VictoriaLogs q and reads the whole answer.
func benchQuery(b *testing.B, vl, q string) {
	resp, err := http.PostForm(vl+"/select/logsql/query", url.Values{"query": {q}})
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "{") {
		b.Fatal(fmt.Errorf("%s: %s %.200s %v", q, resp.Status, body, err))
	}
}
