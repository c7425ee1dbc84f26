package bench_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/bench"
)

func TestRun_Small(t *testing.T) {
	dir := t.TempDir()
	var out, progress bytes.Buffer
	cfg := bench.Config{Dir: dir, Records: 3000, Runs: 1, PerConfig: 100 * time.Millisecond, Samples: 20, Progress: &progress}
	if err := bench.Run(context.Background(), cfg, &out); err != nil {
		t.Fatalf("Run: %v\nprogress:\n%s", err, progress.String())
	}
	report := out.String()
	for _, want := range []string{
		"# mcplogd benchmark", "- machine: ", "- command: `mcplogd bench --records=3000 --runs=1 --seconds=0.1 --samples=20`",
		"## Durable ingest in process", "| 1 | 1 | ", "| 8 | 100 | ", "| 64 | 1,000 | ", "| raw bbolt | 1,000 | ",
		"## A store of 3,000 records", "| tail: 200 records", "| list newest 10,", "| list newest 200,", "| reopen:",
		"VmRSS", "| file size ÷ raw payload | ",
		"## Ingest through POST /api/v1/logs", "| 1 | 1,000 | ", "| 64 | 1 | ",
		"## Against the targets", "(a store of 3,000 records, not 1,000,000)",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!", "| ? "} {
		if strings.Contains(report, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("Run left %d entries in its Dir, first %q", len(left), left[0].Name())
	}
}

// TestRun_Only measures one section and reports it alone.
func TestRun_Only(t *testing.T) {
	var out bytes.Buffer
	cfg := bench.Config{Dir: t.TempDir(), Records: 3000, Runs: 1, Samples: 20, Only: "memory"}
	if err := bench.Run(context.Background(), cfg, &out); err != nil {
		t.Fatalf("Run: %v", err)
	}
	report := out.String()
	for _, want := range []string{"# mcplogd benchmark", "--only=memory`", "## Memory and disk with the indexes, 3,000 records"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, other := range []string{"## Durable ingest", "## A store of", "## Ingest through", "## After a burst", "## Against the targets"} {
		if strings.Contains(report, other) {
			t.Errorf("report has %q, another section", other)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}

// TestRun_Words: the random-word workload fills the store the memory
// section measures, and the report says which workload it was.
func TestRun_Words(t *testing.T) {
	var out bytes.Buffer
	cfg := bench.Config{Dir: t.TempDir(), Records: 3000, Runs: 1, Samples: 20, Only: "memory", Workload: "words"}
	if err := bench.Run(context.Background(), cfg, &out); err != nil {
		t.Fatalf("Run: %v", err)
	}
	report := out.String()
	for _, want := range []string{"--workload=words`", "- workload: random words (", "## Memory and disk with the indexes, 3,000 records"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q\n%s", want, report)
		}
	}
}

func TestRun_TooFewRecords(t *testing.T) {
	err := bench.Run(context.Background(), bench.Config{Dir: t.TempDir(), Records: 10}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "Records") {
		t.Fatalf("Run with 10 records: %v, want an error naming Records", err)
	}
}

func TestRun_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := bench.Run(ctx, bench.Config{Dir: t.TempDir(), Records: 3000}, &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a canceled context: %v", err)
	}
}

func TestMain_Args(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"Help", []string{"-h"}, flag.ErrHelp.Error()},
		{"Extra", []string{"now"}, `unexpected argument "now"`},
		{"BadRuns", []string{"--runs=0"}, "must be positive"},
		{"BadFlag", []string{"--fast"}, "flag provided but not defined"},
		{"BadOnly", []string{"--only=reads"}, `--only: burst or memory, got "reads"`},
		{"BurstNoHTTP", []string{"--only=burst", "--no-http"}, "--only=burst and --no-http: the burst section is through HTTP"},
		{"BadWorkload", []string{"--workload=logs"}, `--workload: game or words, got "logs"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := bench.Main(context.Background(), tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Main(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}
