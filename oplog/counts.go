package oplog

// Kinds lists the kinds of record, in order.
var Kinds = []Kind{KindLine, KindOp, KindMarker}

// Counts are record counters by [Kind][Level]; index 0 of each is unused
// (the zero Kind and Level mean "any" elsewhere).
type Counts [4][6]uint64

// Count returns the sum over kind k (zero: any) at or above level min
// (zero: any).
func (c *Counts) Count(k Kind, min Level) uint64 {
	var n uint64
	for _, kind := range Kinds {
		if k != 0 && kind != k {
			continue
		}
		for l := max(min, LevelDebug); l <= LevelFatal; l++ {
			n += c[kind][l]
		}
	}
	return n
}

// Map spells the counters out by name, as the JSON answers carry them:
// {"line": {"debug": 3, ...}, "op": {...}, "marker": {...}}, every kind and
// level present.
func (c *Counts) Map() map[string]map[string]uint64 {
	m := make(map[string]map[string]uint64, len(Kinds))
	for _, k := range Kinds {
		m[k.String()] = make(map[string]uint64, len(Levels))
		for _, l := range Levels {
			m[k.String()][l.String()] = c[k][l]
		}
	}
	return m
}

// ByLevel sums the kinds: {"debug": n, ...}, every level present.
func (c *Counts) ByLevel() map[string]uint64 {
	m := make(map[string]uint64, len(Levels))
	for _, l := range Levels {
		m[l.String()] = c.Count(0, l) - c.Count(0, l+1)
	}
	return m
}

// CountsFromMap reads what Map wrote; unknown kinds and levels are ignored.
func CountsFromMap(m map[string]map[string]uint64) Counts {
	var c Counts
	for _, k := range Kinds {
		for _, l := range Levels {
			c[k][l] = m[k.String()][l.String()]
		}
	}
	return c
}
