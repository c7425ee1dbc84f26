package crash

import (
	"cmp"
	"slices"

	"github.com/mcplogd/mcplogd/oplog"
)

// RecordSignature returns the crash signature of r as the crash index
// groups it (an error or fatal line with a stack, a fatal line without one,
// an operation that failed with a stack, an exit marker at level error or
// fatal), and false when r is not a crash. The studio forwarder sends it
// with each crash, so that VictoriaLogs groups crashes of several machines
// the way find_crashes groups one machine's. (The index also leaves out
// the later lines of one crash's dump and exit markers that did not end
// their run, which one record alone cannot tell.)
func RecordSignature(r *oplog.Record) (string, bool) {
	x := Index{replaced: -1}
	t, _, ok := x.trace(r)
	if !ok {
		return "", false
	}
	return t.Signature(), true
}

// Occurrence returns the signature of the group record id belongs to: the
// crash it is an occurrence of, or for a line of a crash's dump that is no
// occurrence itself, that crash's; false when it is none (not a crash, or
// not read yet: ask FindCrashes first).
func (x *Index) Occurrence(id uint64) (string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if g, ok := x.absorbed[id]; ok {
		return x.groups[g].sig, true
	}
	i, found := slices.BinarySearchFunc(x.entries, id, func(e entry, id uint64) int { return cmp.Compare(e.id, id) })
	if !found {
		return "", false
	}
	return x.groups[x.entries[i].group].sig, true
}
