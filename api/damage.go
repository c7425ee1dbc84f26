package api

import (
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// An answer that skipped damaged runs of the data file (oplog.Damaged)
// carries "damaged": one marker each, "#a..#b unreadable: log.db is
// damaged there; run mcplogd salvage …", beside the fields of its
// client shape, whose damagedRuns ({from, to, file}) the Go client reads.

type tailDamaged struct {
	client.TailAnswer
	Damaged []string `json:"damaged,omitempty"`
}

type pageDamaged struct {
	client.PageAnswer
	Damaged []string `json:"damaged,omitempty"`
}

type searchDamaged struct {
	client.SearchAnswer
	Damaged []string `json:"damaged,omitempty"`
}

type infoDamaged struct {
	client.InfoAnswer
	Damaged []string `json:"damaged,omitempty"`
}

// tailAnswer is t's JSON answer, markers and all.
func tailAnswer(t *oplog.Tail) tailDamaged {
	return tailDamaged{TailAnswer: client.NewTailAnswer(t), Damaged: oplog.DamageText(t.Damaged)}
}
