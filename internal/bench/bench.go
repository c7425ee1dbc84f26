package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/mcplogd/mcplogd/internal/workload"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Defaults of Config's zero fields.
const (
	DefaultRecords   = 1_000_000
	DefaultRuns      = 3
	DefaultSeed      = 1
	DefaultPerConfig = 5 * time.Second
	DefaultSamples   = 2000

	// MinRecords is the smallest store the reads can be measured on.
	MinRecords = 1000
)

// Config says what to measure. The zero Config measures every section at
// full size: 1,000,000 records of the benchmark workload (internal/workload).
type Config struct {
	// Dir is where stores are created (each run in its own folder, removed
	// when the run ends). Empty means a new temporary directory, removed at
	// the end.
	Dir string

	// Records is the size of the filled store the read figures are measured
	// on, and the most records one ingest run writes. Default 1,000,000; at
	// least MinRecords.
	Records int

	// Seed fixes the workload. Default 1.
	Seed int64

	// Workload names the records written: "game" (the default, the
	// benchmark's game records: workload.New) or "words" (random words:
	// workload.NewWords).
	Workload string

	// PerConfig caps the time of one ingest run: a run stops after Records
	// records or PerConfig, whichever comes first, because a single writer
	// of single records is bound by the disk's fsync rate (a few thousand
	// per second). The table says how many records each run wrote.
	// Default 5s.
	PerConfig time.Duration

	// Runs is how many times each ingest configuration and each latency
	// series is measured; the table shows the median. Default 3.
	Runs int

	// Samples is how many reads one latency series times. Default 2,000.
	Samples int

	// NoHTTP leaves out ingest through the HTTP API.
	NoHTTP bool

	// Only names the one section to measure and report: "burst" (search
	// right after a burst through HTTP) or "memory" (memory and disk with
	// the indexes running). Empty measures every section.
	Only string

	// Progress receives a line per finished step (the full benchmark takes
	// minutes); nil discards them.
	Progress io.Writer
}

func (c Config) withDefaults() Config {
	if c.Records <= 0 {
		c.Records = DefaultRecords
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.PerConfig <= 0 {
		c.PerConfig = DefaultPerConfig
	}
	if c.Runs <= 0 {
		c.Runs = DefaultRuns
	}
	if c.Samples <= 0 {
		c.Samples = DefaultSamples
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Workload == "" {
		c.Workload = "game"
	}
	return c
}

// workloads are the records a run may write, by Config.Workload.
var workloads = map[string]func(seed int64) *workload.Generator{"game": workload.New, "words": workload.NewWords}

// generator returns a generator of the configured workload's stream seed.
func (r *runner) generator(seed int64) *workload.Generator { return workloads[r.cfg.Workload](seed) }

// Run measures everything cfg asks for and writes the Markdown report to
// out. It stops early with ctx's error when ctx ends.
func Run(ctx context.Context, cfg Config, out io.Writer) error {
	cfg = cfg.withDefaults()
	if cfg.Only != "" && cfg.Only != "burst" && cfg.Only != "memory" {
		return fmt.Errorf("bench: Config.Only: burst or memory, got %q", cfg.Only)
	}
	if cfg.Only == "burst" && cfg.NoHTTP {
		return errors.New("bench: the burst section is through HTTP: Config.Only burst with NoHTTP")
	}
	if workloads[cfg.Workload] == nil {
		return fmt.Errorf("bench: Config.Workload: game or words, got %q", cfg.Workload)
	}
	if cfg.Records < MinRecords {
		return fmt.Errorf("bench: Config.Records: at least %d, got %d", MinRecords, cfg.Records)
	}
	dir := cfg.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "mcplogd-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r := &runner{cfg: cfg, dir: dir, started: time.Now(), cpu: sampleCPU()}
	switch cfg.Only {
	case "burst":
		if err := r.measureBurst(ctx); err != nil {
			return fmt.Errorf("burst: %w", err)
		}
		return r.report(out)
	case "memory":
		if err := r.measureMemory(ctx); err != nil {
			return fmt.Errorf("memory with indexes: %w", err)
		}
		return r.report(out)
	}
	// The store is filled first, so that memory after the fill is that of
	// a process that has done nothing else.
	if err := r.measureFill(ctx); err != nil {
		return fmt.Errorf("filled store: %w", err)
	}
	if err := r.measureIngest(ctx); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if err := r.measureMemory(ctx); err != nil {
		return fmt.Errorf("memory with indexes: %w", err)
	}
	if !cfg.NoHTTP {
		if err := r.measureHTTP(ctx); err != nil {
			return fmt.Errorf("HTTP ingest: %w", err)
		}
		if err := r.measureBurst(ctx); err != nil { // burst.go
			return fmt.Errorf("burst: %w", err)
		}
	}
	return r.report(out)
}

// runner holds one benchmark's results until the report.
type runner struct {
	cfg     Config
	dir     string
	started time.Time
	cpu     cpuSample // at the start
	seq     int       // names run folders

	fill   fillResult
	ingest []ingestRow
	raw    ingestRow
	http   []ingestRow
	burst  burstResult // burst.go
	memory memoryResult

	// vlBinary, when not nil, stands for vlnode.Binary (a test's "not
	// installed").
	vlBinary func() string
}

func (r *runner) progress(format string, args ...any) {
	fmt.Fprintf(r.cfg.Progress, "[%6.1fs] ", time.Since(r.started).Seconds())
	fmt.Fprintf(r.cfg.Progress, format+"\n", args...)
}

// runDir returns a new empty folder for one run and a function that removes it.
func (r *runner) runDir(name string) (string, func(), error) {
	r.seq++
	d, err := os.MkdirTemp(r.dir, fmt.Sprintf("%03d-%s-", r.seq, name))
	if err != nil {
		return "", nil, err
	}
	return d, func() { _ = os.RemoveAll(d) }, nil
}

// Main runs the benchmark as `mcplogd bench` does: it parses args (without
// the program or subcommand name), prints the report to standard output and
// progress to standard error, and stops when ctx ends (mcplogd's ctx ends
// on an interrupt). -h gives flag.ErrHelp after printing the usage.
func Main(ctx context.Context, args []string) error {
	return Command(ctx, args, os.Stdout, os.Stderr, nil)
}

// Summary is what `mcplogd bench --help` says the command does.
const Summary = "Measures durable ingest, reads, reopen, HTTP ingest, search right after a\n" +
	"burst (beside SQLite+FTS5 through python3 and VictoriaLogs through\n" +
	"scripts/need-victoria-logs's binary when they are installed), memory and\n" +
	"disk with the indexes running, on the benchmark workload, and prints\n" +
	"Markdown tables. The full run takes about five minutes."

// Command is Main with the standard streams given: the report and -h's
// usage go to stdout, progress and flag errors to stderr. parse, when not
// nil, parses the flags in place of the flag package's own usage and
// errors (mcplogd's, which list them as --records).
func Command(ctx context.Context, args []string, stdout, stderr io.Writer, parse func(fs *flag.FlagSet, args []string) error) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var cfg Config
	var quick bool
	fs.IntVar(&cfg.Records, "records", DefaultRecords, "records in the filled store, and the most one ingest run writes")
	fs.IntVar(&cfg.Runs, "runs", DefaultRuns, "runs of each measurement; the table shows the median")
	fs.StringVar(&cfg.Dir, "dir", "", "work directory (default: a temporary directory, removed after)")
	seconds := fs.Float64("seconds", DefaultPerConfig.Seconds(), "time cap of one ingest run, in seconds")
	fs.Int64Var(&cfg.Seed, "seed", DefaultSeed, "workload seed")
	fs.StringVar(&cfg.Workload, "workload", "game", "the records written: game (the benchmark's game console) or words (18 random words a line)")
	fs.IntVar(&cfg.Samples, "samples", DefaultSamples, "reads timed per latency series")
	fs.BoolVar(&cfg.NoHTTP, "no-http", false, "leave out ingest through the HTTP API")
	fs.StringVar(&cfg.Only, "only", "", "measure one section only: burst (search right after a burst) or memory (memory and disk with the indexes)")
	fs.BoolVar(&quick, "quick", false, "a quick look: 100,000 records, 1 run, 2s per ingest run")
	if parse == nil {
		parse = func(fs *flag.FlagSet, args []string) error {
			fs.Usage = func() {
				fmt.Fprintf(fs.Output(), "Usage: mcplogd bench [flags]\n\n%s\n\n", Summary)
				fs.PrintDefaults()
			}
			var msg bytes.Buffer
			fs.SetOutput(&msg)
			err := fs.Parse(args)
			out := stderr
			if errors.Is(err, flag.ErrHelp) {
				out = stdout
			}
			_, _ = out.Write(msg.Bytes())
			return err
		}
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg.PerConfig = time.Duration(*seconds * float64(time.Second))
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected argument %q", fs.Arg(0))
	}
	if quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["records"] {
			cfg.Records = 100_000
		}
		if !set["runs"] {
			cfg.Runs = 1
		}
		if !set["seconds"] {
			cfg.PerConfig = 2 * time.Second
		}
	}
	switch {
	case cfg.Only != "" && cfg.Only != "burst" && cfg.Only != "memory":
		return fmt.Errorf("bench: --only: burst or memory, got %q", cfg.Only)
	case cfg.Only == "burst" && cfg.NoHTTP:
		return errors.New("bench: --only=burst and --no-http: the burst section is through HTTP")
	case workloads[cfg.Workload] == nil:
		return fmt.Errorf("bench: --workload: game or words, got %q", cfg.Workload)
	}
	if cfg.Records <= 0 || cfg.Runs <= 0 || cfg.PerConfig <= 0 || cfg.Samples <= 0 {
		return errors.New("bench: --records, --runs, --seconds and --samples must be positive")
	}
	cfg.Progress = stderr
	return Run(ctx, cfg, stdout)
}

// machine describes where the figures were measured.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", kernel " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s/%s, %d CPUs (GOMAXPROCS %d), %s%s; %s",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), model, kernel, runtime.Version())
}
