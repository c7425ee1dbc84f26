package mcptools

import (
	"context"

	"github.com/mcplogd/mcplogd/oplog"
)

// source is where a tool reads records: this machine's log (localSource)
// or the project's studio, every machine (studioSource); the resolved
// request's scope picks it. Both give their records in the local shapes,
// with the machine of each beside them (nil in the local log), so that
// each tool is one path: only its answer's shape differs, since a studio
// answer names machines and pages with cursors where a local one counts
// totals and pages with offsets.
type source interface {
	// studio is the studio read; nil for this machine's log.
	studio() oplog.Studio
	search(ctx context.Context, q oplog.Request) (hitPage, error)
	list(ctx context.Context, q oplog.Request, count, offset int, cursor string) (recordPage, error)
	names(ctx context.Context, source, machine string) ([]oplog.NameInfo, []string, error)
	// crashes reads q's crash groups; the studio takes no Runs (Resolve
	// refuses them) and narrows to machine when given.
	crashes(ctx context.Context, q oplog.CrashQuery, machine string) (crashPage, error)
}

// hitPage is a page of search hits, newest first. The studio counts no
// totals and has no index: it leaves Total, TotalExact and IndexedThrough
// zero.
type hitPage struct {
	oplog.SearchPage
	machines []string           // studio: the machine of each hit
	resume   func(i int) string // the cursor that reads on from Hits[i] (i > 0), for an answer cut short
}

// recordPage is a page of records, newest first. The studio counts no
// total and pages with cursors: it leaves Total and More zero.
type recordPage struct {
	oplog.Page
	machines   []string // studio: the machine of each record
	nextCursor string   // studio: the cursor of the next page; "" on the last
	cursors    []string // studio: cursors[i] reads on from Records[i]
}

// crashPage is a page of crash groups, newest first; the studio's groups
// are in studio, with the machines they were seen on, and Groups is nil.
type crashPage struct {
	oplog.CrashPage
	studio []oplog.StudioCrashGroup
}

// localSource reads this machine's log.
type localSource struct{ log Backend }

func (localSource) studio() oplog.Studio { return nil }

func (s localSource) search(ctx context.Context, q oplog.Request) (hitPage, error) {
	q.Hint = true // an empty answer says what to send instead
	p, err := s.log.Search(ctx, q.SearchQuery)
	return hitPage{SearchPage: p, resume: func(i int) string {
		// The generation now: were the log cleared since the search, the
		// hits left out are gone, and the cursor finds nothing below them.
		return oplog.EncodeCursor(s.log.Stats().Revision, p.Hits[i-1].Record.ID)
	}}, err
}

func (s localSource) list(ctx context.Context, q oplog.Request, count, offset int, _ string) (recordPage, error) {
	p, err := s.log.List(ctx, oplog.Query{Filter: q.Filter, Count: count, Offset: offset})
	return recordPage{Page: p}, err
}

func (s localSource) names(ctx context.Context, source, _ string) ([]oplog.NameInfo, []string, error) {
	names, err := s.log.Names(ctx, source)
	return names, nil, err
}

func (s localSource) crashes(ctx context.Context, q oplog.CrashQuery, _ string) (crashPage, error) {
	p, err := s.log.FindCrashes(ctx, q)
	return crashPage{CrashPage: p}, err
}

// studioSource reads every machine of the project; local, this machine's
// log, suggests the words of a hint.
type studioSource struct {
	s     oplog.Studio
	local oplog.Searcher
}

func (s studioSource) studio() oplog.Studio { return s.s }

func (s studioSource) search(ctx context.Context, q oplog.Request) (hitPage, error) {
	sq := oplog.StudioSearchQuery{SearchQuery: q.SearchQuery, Machine: q.Machine}
	p, err := s.s.Search(ctx, sq)
	if err != nil {
		return hitPage{}, err
	}
	out := hitPage{SearchPage: oplog.SearchPage{Hits: make([]oplog.SearchHit, len(p.Hits)), NextCursor: p.NextCursor},
		machines: make([]string, len(p.Hits)), resume: func(i int) string { return p.Cursors[i] }}
	if len(p.Hits) == 0 && q.Cursor == "" { // an empty answer says what to send instead
		out.Hint = oplog.StudioHint(ctx, s.s, s.local, sq)
	}
	for i := range p.Hits {
		out.Hits[i] = oplog.SearchHit{Record: p.Hits[i].Record, Fragment: p.Hits[i].Fragment}
		out.machines[i] = p.Hits[i].Machine
	}
	return out, nil
}

func (s studioSource) list(ctx context.Context, q oplog.Request, count, _ int, cursor string) (recordPage, error) {
	p, err := s.s.List(ctx, oplog.StudioListQuery{Filter: q.Filter, Machine: q.Machine, Count: count, Cursor: cursor})
	if err != nil {
		return recordPage{}, err
	}
	out := recordPage{Page: oplog.Page{Records: make([]oplog.Record, len(p.Records))}, machines: make([]string, len(p.Records)),
		nextCursor: p.NextCursor, cursors: p.Cursors}
	for i := range p.Records {
		out.Records[i], out.machines[i] = p.Records[i].Record, p.Records[i].Machine
	}
	return out, nil
}

func (s studioSource) names(ctx context.Context, source, machine string) ([]oplog.NameInfo, []string, error) {
	names, err := s.s.Names(ctx, source, machine)
	if err != nil {
		return nil, nil, err
	}
	out, machines := make([]oplog.NameInfo, len(names)), make([]string, len(names))
	for i := range names {
		out[i], machines[i] = names[i].NameInfo, names[i].Machine
	}
	return out, machines, nil
}

func (s studioSource) crashes(ctx context.Context, q oplog.CrashQuery, machine string) (crashPage, error) {
	p, err := s.s.FindCrashes(ctx, oplog.StudioCrashQuery{Since: q.Since, Until: q.Until, Source: q.Source, Machine: machine, Limit: q.Limit,
		Classes: q.Classes, MinLevel: q.MinLevel})
	return crashPage{CrashPage: oplog.CrashPage{Total: p.Total}, studio: p.Groups}, err
}
