package search

import (
	"testing"
	"time"
)

func TestSpanCover(t *testing.T) {
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	sp := newSpan()
	for _, s := range []int{10, 5, 20, 7} { // out of order
		sp.add(at(s))
	}
	for _, tc := range []struct {
		since, until time.Time
		want         coverage
	}{
		{time.Time{}, time.Time{}, inside},
		{at(5), at(21), inside},         // since inclusive
		{at(5), at(20), partly},         // until exclusive: 20 is out
		{at(6), time.Time{}, partly},    // 5 is out
		{time.Time{}, at(5), outside},   // every time >= until
		{at(21), time.Time{}, outside},  // every time < since
		{at(20), at(30), partly},        // 20 is in
		{time.Time{}, at(100), inside},  // open start
		{at(0), at(1), outside},         // before
		{at(7), at(8), partly},          // a window inside the span
		{at(-100), time.Time{}, inside}, // open end
		{at(20), at(21), partly},        // the max alone
		{at(-1), at(5), outside},        // up to the min, exclusive
		{at(5).Add(-1), at(5).Add(1), partly},
	} {
		if got := sp.cover(timeRange{tc.since, tc.until}); got != tc.want {
			t.Errorf("cover(%v, %v) = %d, want %d", tc.since, tc.until, got, tc.want)
		}
	}
	r := timeRange{at(0), at(100)}
	if got := newSpan().cover(r); got != outside {
		t.Errorf("empty span: %d, want outside", got)
	}
	if got := (span{}).cover(r); got != partly {
		t.Errorf("unknown span (older meta.json): %d, want partly", got)
	}
	wild := sp
	wild.add(time.Time{})
	if got := wild.cover(r); got != partly {
		t.Errorf("span with an unindexable time: %d, want partly", got)
	}
	merged := newSpan()
	merged.merge(sp)
	merged.merge(newSpan())
	if merged != sp {
		t.Errorf("merge: %+v, want %+v", merged, sp)
	}
}
