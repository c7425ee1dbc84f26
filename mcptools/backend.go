package mcptools

import (
	"context"

	"github.com/mcplogd/mcplogd/oplog"
)

// Backend is what the MCP tools need of the log. *oplog.Log is one; Remote
// gives another over a running server's HTTP API, for `mcplogd stdio` when a
// server already holds the data directory (bbolt allows one process per file).
type Backend interface {
	Append(ctx context.Context, recs []oplog.Record) error
	Get(ctx context.Context, id uint64) (oplog.Record, error)
	List(ctx context.Context, q oplog.Query) (oplog.Page, error)
	Tail(ctx context.Context, q oplog.TailQuery) (oplog.Tail, error)
	Stats() oplog.Stats
	Names(ctx context.Context, source string) ([]oplog.NameInfo, error)
	Neighbors(ctx context.Context, id uint64) (prev, next uint64, err error)
	Clear(ctx context.Context) (oplog.Stats, error)
	AwaitComplete(ctx context.Context, id uint64) (oplog.Record, error)
	Changed() <-chan struct{}
	FindCrashes(ctx context.Context, q oplog.CrashQuery) (oplog.CrashPage, error)
	Search(ctx context.Context, q oplog.SearchQuery) (oplog.SearchPage, error)
	Runs(ctx context.Context, source string) ([]oplog.RunInfo, error)
	Digest(ctx context.Context, q oplog.DigestQuery) (oplog.Digest, error)
	CompareRuns(ctx context.Context, q oplog.CompareQuery) (oplog.Comparison, error)
	oplog.RunSource
}

var _ Backend = (*oplog.Log)(nil)
