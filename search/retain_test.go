package search

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/mcplogd/mcplogd/oplog"
)

// A decoded record's labels are substrings of one string holding the whole
// record (codec.Decode). A chunk's term set keeps copies of them, not the record's bytes: a name kept for the index must
// not hold a megabyte of stack in memory.
func TestKeywords_KeepNoRecordBytes(t *testing.T) {
	whole := "Physics" + "game" + strings.Repeat("x", 1<<20)
	r := oplog.Record{ID: 1, Kind: oplog.KindLine, Level: oplog.LevelError, Name: whole[:7], Source: whole[7:11], Text: "boom"}
	inside := func(s string) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
		return p >= lo && p < lo+uintptr(len(whole))
	}

	an := newAnalyzers(newMapping())
	ch := &chunkTerms{words: [2]map[string]uint32{{}, {}}, kw: map[kwKey]uint32{}, span: newSpan()}
	ch.add(&r, an.words, nil)
	found := 0
	for k := range ch.kw {
		if k.v == r.Name || k.v == r.Source {
			found++
		}
		if inside(k.v) {
			t.Errorf("a chunk's term set keeps %s=%q in the record's bytes", k.field, k.v)
		}
	}
	if found != 2 {
		t.Errorf("the chunk's keywords %v lack the name or the source", ch.kw)
	}
}
