// Package bench measures mcplogd on the benchmark workload (internal/workload) and
// prints the figures as a Markdown table: durable ingest from 1, 8 and 64
// writers in batches of 1, 100 and 1,000, against raw bbolt measured in the
// same run; tail and list latency, reopen time, memory and bytes on disk of
// a store filled with the workload; ingest through the HTTP API; and search
// right after a burst through HTTP, beside SQLite+FTS5 and VictoriaLogs on
// the same lines in the same run.
//
// Absolute figures drift on shared machines, so every ingest figure is the
// median of several runs, each in a fresh store, and the table quotes the
// machine, the date and the ratio to the raw bbolt baseline.
//
//	err := bench.Run(ctx, bench.Config{Records: 100_000, Runs: 1}, os.Stdout)
//
// `mcplogd bench` calls Main.
package bench
