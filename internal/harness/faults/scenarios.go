package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// Scenarios is the suite, in the order the table lists it. A new scenario
// is one more entry and one function.
var Scenarios = []Scenario{
	{"ingest", ScenarioIngest},
	{"completion", ScenarioCompletion},
	{"retention", ScenarioRetention},
	{"reindex", ScenarioReindex},
	{"follow", ScenarioFollow},
	{"rewrite", ScenarioRewrite},
	{"disk full", ScenarioDiskFull},
	{"damaged index", ScenarioDamagedIndex},
	{"damaged log.db", ScenarioDamagedLog},
	{"studio", ScenarioStudio},
	{"studio stall", ScenarioStudioStall},
	{"studio stall+kill", ScenarioStudioStallKill},
	{"studio 429", ScenarioStudio429},
}

// ingestRounds kills a server during an 8-writer ingest, Rounds times,
// with serve's extra args, after a random number of acknowledged batches
// from lo up to lo+span; after each kill it checks the data file against
// everything acknowledged so far. first gives the oldest ID that must still
// be there (retention trims the rest).
func (e *Env) ingestRounds(name string, lo, span int, args ...string) (Result, error) {
	r := Result{Scenario: name}
	data := filepath.Join(e.Dir, name)
	a := newAcks()
	for round := range e.Rounds {
		s, err := e.Start(data, args...)
		if err != nil {
			return r, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); e.Ingest(ctx, s, fmt.Sprintf("fault-%s r%d", name, round), a) }()
		target := a.batches.Load() + int64(lo+e.Rand.IntN(span))
		KillWhen(s, time.Minute, func() bool { return a.batches.Load() >= target })
		cancel()
		wg.Wait()
		recs, err := Records(data)
		if err != nil {
			return r, fmt.Errorf("round %d: after the kill: %w", round, err)
		}
		first := uint64(0)
		if len(recs) > 0 {
			first = recs[0].ID
			if holes := int(recs[len(recs)-1].ID-first+1) - len(recs); holes != 0 {
				r.Lost += holes // a record between the oldest and the newest went missing
			}
		}
		lost, dup := a.Verify(recs, "fault-"+name, first)
		r.Lost, r.Dup, r.Rounds = r.Lost+lost, dup, round+1
		e.logf("%s round %d: %d acknowledged so far, %d records in the file, %d lost, %d duplicated", name, round, a.Len(), len(recs), r.Lost, dup)
	}
	r.Acked = a.Len()
	return r, nil
}

// ScenarioIngest: kill -9 during an 8-writer ingest.
func ScenarioIngest(e *Env) (Result, error) { return e.ingestRounds("ingest", 5, 2000) }

// ScenarioRetention: kill -9 during an ingest that keeps retention busy
// (at most 3,000 records kept, trimmed in batches).
func ScenarioRetention(e *Env) (Result, error) {
	r, err := e.ingestRounds("retention", 150, 1000, "--max-records", "3000")
	r.Note = "--max-records 3000; no hole between the oldest and newest record"
	return r, err
}

// ScenarioCompletion: kill -9 while 8 writers start operations and
// complete them; a completion acknowledged must be stored as completed.
func ScenarioCompletion(e *Env) (Result, error) {
	r := Result{Scenario: "completion"}
	data := filepath.Join(e.Dir, "completion")
	starts, done := newAcks(), newAcks()
	for round := range e.Rounds {
		s, err := e.Start(data)
		if err != nil {
			return r, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() { defer wg.Done(); e.operate(ctx, s, fmt.Sprintf("op-r%d-w%d", round, w), starts, done) }()
		}
		target := done.batches.Load() + int64(10+e.Rand.IntN(1000))
		KillWhen(s, time.Minute, func() bool { return done.batches.Load() >= target })
		cancel()
		wg.Wait()
		recs, err := Records(data)
		if err != nil {
			return r, fmt.Errorf("round %d: after the kill: %w", round, err)
		}
		lostStarts, dup := starts.Verify(recs, "op-", 0)
		lostDone, _ := done.Verify(recs, "op-", 0)
		r.Lost, r.Dup, r.Rounds = lostStarts+lostDone, dup, round+1
		e.logf("completion round %d: %d completions acknowledged, %d lost, %d duplicated", round, done.Len(), r.Lost, dup)
	}
	r.Acked = done.Len()
	r.Note = fmt.Sprintf("%d operations started", starts.Len())
	return r, nil
}

// operate starts an operation and completes it, again and again; what the
// data file must then hold is recorded in starts (the operation) and done
// (the operation, completed with success).
func (e *Env) operate(ctx context.Context, s *Server, tag string, starts, done *Acks) {
	for i := 0; ctx.Err() == nil; i++ {
		text := fmt.Sprintf("%s-%d", tag, i)
		body, _ := json.Marshal(map[string]any{"tool": "run_lua", "arguments": map[string]int{"i": i}, "text": text})
		var rec struct {
			ID uint64 `json:"id"`
		}
		if code, err := s.Post(ctx, "/api/v1/operations", body, &rec); err != nil {
			if code == 0 {
				return
			}
			continue
		}
		starts.add(rec.ID, text)
		var comp struct {
			ID     uint64 `json:"id"`
			Text   string `json:"text"`
			Status string `json:"status"`
		}
		path := fmt.Sprintf("/api/v1/operations/%d/complete", rec.ID)
		if code, err := s.Post(ctx, path, []byte(`{"status":"success","result":{"ok":true}}`), &comp); err != nil {
			if code == 0 {
				return
			}
			continue
		}
		done.addCompleted(rec.ID, text)
		done.batches.Add(1)
	}
}
