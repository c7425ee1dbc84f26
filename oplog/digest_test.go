package oplog_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// mustOpenTwoRuns opens a store with a crash index and logtest's two runs.
func mustOpenTwoRuns(t *testing.T) (*oplog.Log, logtest.TwoRuns) {
	t.Helper()
	l, _ := logtest.MustOpenLog(t, nil)
	x := crash.New(l, nil)
	t.Cleanup(func() { _ = x.Close() })
	l.SetCrashes(x)
	return l, logtest.AppendTwoRuns(t, l)
}

func TestLog_Digest_CurrentRun(t *testing.T) {
	l, want := mustOpenTwoRuns(t)
	d, err := l.Digest(context.Background(), oplog.DigestQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 1 || d.Runs[0].Run != 2 || d.Records != 26 || d.Capped {
		t.Fatalf("digest of %v: %d records, capped %v; want run 2's 26", d.Runs, d.Records, d.Capped)
	}
	if d.Levels["info"] != 21 || d.Levels["error"] != 3 || d.Levels["warn"] != 2 {
		t.Errorf("levels = %v", d.Levels)
	}
	if len(d.Templates) == 0 || d.Templates[0].Template != want.Noisy || d.Templates[0].Count != 20 || d.Templates[0].ExampleID == 0 {
		t.Errorf("noisiest = %+v, want %q ×20", d.Templates, want.Noisy)
	}
	// B is new; the loading line and the shader warning were in run 1.
	if len(d.NewTemplates) == 0 || d.NewTemplates[0].Template != want.B || d.NewTemplates[0].ExampleID != want.BID {
		t.Errorf("new templates = %+v, want %q first (#%d)", d.NewTemplates, want.B, want.BID)
	}
	if slices.ContainsFunc(d.NewTemplates, func(c oplog.TemplateCount) bool { return c.Template == want.Noisy }) {
		t.Errorf("new templates name %q, which run 1 printed: %+v", want.Noisy, d.NewTemplates)
	}
	if len(d.Crashes) != 1 || !d.Crashes[0].New || d.Crashes[0].Count != 3 {
		t.Errorf("crashes = %+v, want B's group, new, 3 times", d.Crashes)
	}
	if len(d.Errors) != oplog.DigestBuckets || sum(d.Errors) != 3 {
		t.Errorf("error buckets = %v", d.Errors)
	}
}

func TestLog_Digest_Capped(t *testing.T) {
	l, _ := mustOpenTwoRuns(t)
	d, err := l.Digest(context.Background(), oplog.DigestQuery{Filter: oplog.Filter{Runs: map[string]uint64{"game": 1}}, MaxRecords: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Capped || d.Read != 5 || d.Records != 5 || d.LastID != d.Runs[0].LastID {
		t.Fatalf("capped digest: read %d, counted %d, capped %v, last %d; want the newest 5 of run 1", d.Read, d.Records, d.Capped, d.LastID)
	}
}

func TestLog_CompareRuns_FixWorked(t *testing.T) {
	l, want := mustOpenTwoRuns(t)
	c, err := l.CompareRuns(context.Background(), oplog.CompareQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 1 {
		t.Fatalf("sources = %+v", c.Sources)
	}
	s := c.Sources[0]
	if s.Previous.Run != 1 || s.Current.Run != 2 {
		t.Fatalf("compared %d with %d", s.Previous.Run, s.Current.Run)
	}
	has := func(list []oplog.Delta, text string, id uint64) bool {
		return slices.ContainsFunc(list, func(d oplog.Delta) bool { return d.Class == "" && d.Text == text && d.ExampleID == id })
	}
	if !has(s.Gone, want.A, want.AID) {
		t.Errorf("gone = %+v, want %q (#%d)", s.Gone, want.A, want.AID)
	}
	if !has(s.New, want.B, want.BID) {
		t.Errorf("new = %+v, want %q (#%d)", s.New, want.B, want.BID)
	}
	gone := func(d oplog.Delta) bool { return d.Class == oplog.ClassCrash && d.Before == 1 && d.After == 0 }
	if !slices.ContainsFunc(s.Gone, gone) {
		t.Errorf("gone = %+v, want run 1's crash group", s.Gone)
	}
	if s.FailedRecords != 12 || s.FailedAfter.Seconds() != 10 || s.NotYet {
		t.Errorf("failed after %s and %d records, not yet %v; want 10s, 12, false", s.FailedAfter, s.FailedRecords, s.NotYet)
	}
}

func TestLog_CompareRuns_NotYet(t *testing.T) {
	l, want := mustOpenTwoRuns(t)
	// Run 3, 2 s and 3 records in: shorter than run 1 when it crashed.
	last := logtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: want.Source, Text: "run", Time: want.End.Add(time.Minute)},
		oplog.Record{Source: want.Source, Level: oplog.LevelInfo, Text: "Loaded scene Main in 3 ms", Time: want.End.Add(time.Minute + time.Second)},
		oplog.Record{Source: want.Source, Level: oplog.LevelInfo, Text: "Loaded scene Main in 4 ms", Time: want.End.Add(time.Minute + 2*time.Second)})
	c, err := l.CompareRuns(context.Background(), oplog.CompareQuery{Source: want.Source, Previous: map[string]uint64{want.Source: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Sources[0]; s.Current.LastID != last[2].ID || !s.NotYet || !strings.Contains(s.Verdict, "too soon") {
		t.Errorf("run 3 against run 1: not yet %v, verdict %q", s.NotYet, s.Verdict)
	}
	if _, err := l.CompareRuns(context.Background(), oplog.CompareQuery{Source: "nope"}); oplog.ErrorCode(err) != oplog.ENOTFOUND {
		t.Errorf("unknown source: %v, want ENOTFOUND", err)
	}
}

func sum(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}
