package studiotest

import (
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
	"github.com/mcplogd/mcplogd/studio"
)

// Impl is an implementation of oplog.Studio that the studio-scope tests
// run over.
type Impl struct {
	Name string // "memory" or "victorialogs", the subtest's name

	// Open returns a studio of project holding rows, as the forwarder
	// sends them; the one of VictoriaLogs skips tb where none can run.
	Open func(tb testing.TB, project string, rows []oplogtest.StudioRow) oplog.Studio
}

// Impls are the implementations every studio-scope test runs over, each
// with the same rows: in memory (OpenMemory), on every run, and in a real
// VictoriaLogs (OpenVictoriaLogs) where one can run.
var Impls = []Impl{{Name: "memory", Open: OpenMemory}, {Name: "victorialogs", Open: OpenVictoriaLogs}}

// OpenMemory returns an oplogtest.Studio of project holding rows, its
// crash groups titled and classed by package crash, as studio.Client's.
func OpenMemory(tb testing.TB, project string, rows []oplogtest.StudioRow) oplog.Studio {
	tb.Helper()
	s := oplogtest.NewStudio(project, &oplogtest.StudioOptions{Describe: crash.Describe, IsCompile: crash.IsCompile})
	s.Add(rows...)
	return s
}

// OpenVictoriaLogs starts a VictoriaLogs (Start: it skips tb without
// victoria-logs), writes rows to it (Row, Ingest) and returns a
// studio.Client of project over it.
func OpenVictoriaLogs(tb testing.TB, project string, rows []oplogtest.StudioRow) oplog.Studio {
	tb.Helper()
	url := Start(tb)
	out := make([]map[string]any, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = Row(project, r.Machine, r.Revision, r.Seq, &r.Record, r.Signature)
	}
	Ingest(tb, url, out)
	c, err := studio.NewClient(studio.ClientOptions{URL: url, Project: project})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
