package oplog

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// What got louder: a message template, of any level, new in a run or
// heard ElevationFactor times as often per minute as in the run it is
// compared with (compare_runs: the previous run; log_stats: the run before
// each run it reads). Per minute, not per run: a run twice as long says
// everything twice as often. Peers that answer agents do the same: Grafana's
// Sift flags Loki patterns elevated against a baseline.
const (
	// ElevationFactor is how many times as often per minute a template
	// must be heard to be called louder.
	ElevationFactor = 3
	// ElevatedTop is how many louder templates an answer lists.
	ElevatedTop = 5
	// elevatedMin is the fewest records a template needs in the later run
	// to be called louder: two lines where there was one is chance, not a
	// change. (A new warning or error heard once is in the new templates
	// both answers list.)
	elevatedMin = 3
)

// Elevation is a template louder in a run than in the run compared with.
type Elevation struct {
	Key    string `json:"key"` // TemplateID
	Source string `json:"source"`
	Text   string `json:"text"`  // the template
	Level  Level  `json:"level"` // the highest level seen
	// Before and After count it in the earlier and the later run;
	// BeforePerMin and AfterPerMin are those counts per minute of each
	// run's records read.
	Before       int     `json:"before"`
	After        int     `json:"after"`
	BeforePerMin float64 `json:"beforePerMin"`
	AfterPerMin  float64 `json:"afterPerMin"`
	// ExampleID is its newest record in the later run.
	ExampleID uint64 `json:"exampleId"`
}

// New says it was not heard at all in the earlier run.
func (e *Elevation) New() bool { return e.Before == 0 }

// Rates says both rates: "2.0/min → 21/min", or "new, 21/min".
func (e *Elevation) Rates() string {
	if e.New() {
		return "new, " + perMin(e.AfterPerMin)
	}
	return perMin(e.BeforePerMin) + " → " + perMin(e.AfterPerMin)
}

// perMin says a rate with two or three significant digits.
func perMin(f float64) string {
	switch {
	case f >= 10:
		return fmt.Sprintf("%.0f/min", f)
	case f >= 1:
		return fmt.Sprintf("%.1f/min", f)
	}
	return fmt.Sprintf("%.2f/min", f)
}

// span is the time a source's records counted cover: its first to its
// last, at least a second.
type span struct{ first, last time.Time }

func (s span) minutes() float64 { return max(s.last.Sub(s.first), time.Second).Minutes() }

// elevated compares the templates counted in before and after (by source
// and template ID, as counter keeps them) and returns those louder in
// after, the most first (a new one as if heard once before), at most
// ElevatedTop.
func elevated(before, after *counter) []Elevation {
	var out []Elevation
	var scores []float64
	for k, a := range after.templates {
		bs, as := before.spans[a.Source], after.spans[a.Source]
		e := Elevation{Key: a.ID, Source: a.Source, Text: a.Template, Level: a.Level, After: a.Count, ExampleID: a.ExampleID,
			AfterPerMin: float64(a.Count) / as.minutes()}
		if b := before.templates[k]; b != nil {
			e.Before, e.BeforePerMin = b.Count, float64(b.Count)/bs.minutes()
		}
		if e.After < elevatedMin || e.AfterPerMin < ElevationFactor*e.BeforePerMin || bs.first.IsZero() {
			continue // not louder; or nothing of the source in the earlier run: everything would be new
		}
		out = append(out, e)
		scores = append(scores, e.AfterPerMin/max(e.BeforePerMin, 1/bs.minutes()))
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		return cmp.Or(cmp.Compare(scores[j], scores[i]), cmp.Compare(out[j].After, out[i].After), cmp.Compare(out[i].Key, out[j].Key))
	})
	sorted := make([]Elevation, 0, min(len(idx), ElevatedTop))
	for _, i := range idx[:min(len(idx), ElevatedTop)] {
		sorted = append(sorted, out[i])
	}
	return sorted
}
