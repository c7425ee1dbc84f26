package oplog

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// Limits of digests and run comparisons. Counting reads records, so both
// are bounded: a digest reads at most MaxRecords records of its range (the
// newest; the answer says Capped), and the templates it calls new are
// looked up in at most DigestHistory records before its runs.
const (
	// DefaultDigestRecords is how many records a digest or a run of a
	// comparison reads at most, the newest kept, when the query names no
	// number; MaxDigestRecords caps what a query may ask for.
	DefaultDigestRecords = 200_000
	MaxDigestRecords     = 1_000_000
	// DigestHistory is how many records before a digest's runs it reads
	// to tell which templates are new in them.
	DigestHistory = 100_000
	// DigestTop is how many templates, names and crash groups a digest
	// lists, the most frequent first.
	DigestTop = 8
	// DigestBuckets is how many equal slices of time a digest counts
	// errors in.
	DigestBuckets = 12
)

// DigestQuery asks for a digest of the records Filter keeps.
type DigestQuery struct {
	// Filter picks the records. Without Runs and without Since or Until,
	// the digest reads each source's current run (of Source when given).
	Filter
	// MaxRecords caps the records read (the newest of the range kept);
	// DefaultDigestRecords when zero, at most MaxDigestRecords.
	MaxRecords int
}

// Digest is what happened in a range of records, counted: a run in one
// answer. Read from Log.Digest.
type Digest struct {
	// Runs are the runs read, when the query picked runs (by source).
	Runs []RunInfo `json:"runs,omitempty"`
	// Records counts the records the filter kept; Read the records read
	// to find them (every record in the range of IDs, of every source).
	Records int `json:"records"`
	Read    int `json:"read"`
	// Capped says the range held more than MaxRecords records: only the
	// newest were read, from FirstID on.
	Capped  bool   `json:"capped,omitempty"`
	FirstID uint64 `json:"firstId,omitempty"`
	LastID  uint64 `json:"lastId,omitempty"`
	// From and Until are the times of the first and the last record counted.
	From  time.Time `json:"from,omitzero"`
	Until time.Time `json:"until,omitzero"`

	Levels map[string]int `json:"levels"` // records by level name
	Names  []NameCount    `json:"names"`  // records by source and name, the most first (DigestTop)

	// Templates are the most frequent message templates (DigestTop);
	// TemplateCount counts the distinct ones.
	Templates     []TemplateCount `json:"templates"`
	TemplateCount int             `json:"templateCount"`
	// Untemplated counts the studio's rows forwarded before rows carried
	// a template; their templates are counted in the newest
	// UntemplatedRead of them (Studio.Digest only).
	Untemplated     int `json:"untemplated,omitempty"`
	UntemplatedRead int `json:"untemplatedRead,omitempty"`
	// NewTemplates are templates of the runs not seen in the History
	// records before them (of the same source), errors first, then the
	// most frequent; nil when the query picked no runs.
	NewTemplates []TemplateCount `json:"newTemplates,omitempty"`
	History      int             `json:"history,omitempty"`
	// Louder are the templates of the runs louder than in the run of
	// their source before each (as RunComparison.Louder; that run counted
	// within the History records); nil when the query picked no runs.
	Louder []Elevation `json:"louder,omitempty"`

	// Crashes are the crash groups of the range (crashes and errors with
	// stacks), those new in it marked, as FindCrashes orders them.
	Crashes []DigestCrash `json:"crashes,omitempty"`

	// Errors counts records at level error or above in DigestBuckets equal
	// slices of [From, Until], oldest first.
	Errors []int `json:"errors,omitempty"`
}

// NameCount is how many records a source's log name wrote.
type NameCount struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Count  int    `json:"count"`
}

// TemplateCount is one message template (see Template) and the records
// that have it.
type TemplateCount struct {
	ID       string `json:"id"`       // TemplateID
	Template string `json:"template"` // as Template gives it
	Source   string `json:"source"`   // the source of its first record
	Level    Level  `json:"level"`    // the highest level among them
	Count    int    `json:"count"`
	// ExampleID is its newest record.
	ExampleID uint64 `json:"exampleId"`
}

// DigestCrash is a crash group of a digest.
type DigestCrash struct {
	Signature string `json:"signature"`
	Title     string `json:"title"`
	Class     string `json:"class"`
	Count     int    `json:"count"`
	ExampleID uint64 `json:"exampleId"` // its oldest occurrence in the range
	// New says no earlier occurrence of its sources exists.
	New bool `json:"new,omitempty"`
}

// Digest counts the records q keeps: by level, by source and name, by
// message template, with the crash groups and the errors over time. It
// reads every record in the range of IDs the query spans (the runs' first
// to last record, or the whole log for a time range), at most
// q.MaxRecords of them, the newest: one pass through the store, decoding
// and templating each record (11-17 µs a record on two shared cores:
// agentload's 20,000 in 0.23-0.34 s, so the default cap costs a few
// seconds), and DigestHistory records more before the runs.
// EINVALID for a bad MaxRecords; errors of the store pass through.
func (l *Log) Digest(ctx context.Context, q DigestQuery) (Digest, error) {
	maxRecords, err := CheckLimit("maxRecords", q.MaxRecords, DefaultDigestRecords, MaxDigestRecords)
	if err != nil {
		return Digest{}, err
	}
	f := q.Filter
	f.Source, f.Runs = l.Game(f.Source), l.gameRuns(f.Runs)
	if f.Runs == nil && f.Since.IsZero() && f.Until.IsZero() {
		if f.Runs, err = l.ResolveRun(ctx, f.Source, "current"); ErrorCode(err) == ENOTFOUND {
			f.Runs, err = map[string]uint64{}, nil
		} else if err != nil {
			return Digest{}, err
		}
	}
	runs, from, to, err := l.span(ctx, &f)
	if err != nil {
		return Digest{}, err
	}
	t := newTally()
	capped := false
	if to-from+1 > uint64(maxRecords) {
		from, capped = to-uint64(maxRecords)+1, true
	}
	read, err := l.scan(ctx, from, to, func(r *Record) {
		if f.Match(r) {
			t.add(r)
		}
	})
	if err != nil {
		return Digest{}, err
	}
	d := t.digest()
	d.Runs, d.Read, d.Capped = runs, read, capped
	c := t.c
	if len(runs) > 0 && d.Records > 0 {
		if d.NewTemplates, d.Louder, d.History, err = l.newTemplates(ctx, runs, c); err != nil {
			return Digest{}, err
		}
	}
	d.Crashes, err = l.digestCrashes(ctx, &f, runs)
	return d, err
}

// span returns the runs f picks and the IDs to read: the runs' first to
// last record, or the whole log without runs.
func (l *Log) span(ctx context.Context, f *Filter) ([]RunInfo, uint64, uint64, error) {
	if f.Runs == nil {
		st := l.Stats()
		return nil, max(st.GenStart, 1), st.LastID, nil
	}
	all, err := l.Runs(ctx, f.Source)
	if err != nil {
		return nil, 0, 0, err
	}
	var runs []RunInfo
	var from, to uint64
	for _, r := range all {
		if n, ok := f.Runs[r.Source]; !ok || n != r.Run {
			continue
		}
		runs = append(runs, r)
		if from == 0 || r.FirstID < from {
			from = r.FirstID
		}
		to = max(to, r.LastID)
	}
	if len(runs) == 0 {
		return nil, 1, 0, nil
	}
	return runs, from, to, nil
}

// scan calls fn with every record from ID from to ID to, oldest first, and
// returns how many it read. It reads whole pages without a filter so that
// it never reads past to.
func (l *Log) scan(ctx context.Context, from, to uint64, fn func(*Record)) (int, error) {
	read := 0
	since := from - 1
	for since < to {
		t, err := l.Tail(ctx, TailQuery{SinceID: since, HasSince: true, Limit: MaxTailLimit})
		if err != nil || t.Reset {
			return read, err // a cleared log: what was read stands
		}
		for i := range t.Lines {
			if t.Lines[i].ID > to {
				return read, nil
			}
			read++
			fn(&t.Lines[i])
		}
		if !t.More || t.LastID <= since {
			break
		}
		since = t.LastID
	}
	return read, nil
}

// newTemplates returns the templates of c not seen in the DigestHistory
// records before the runs (of the runs' sources, in earlier runs), those
// louder than in the run of their source before each (counted in the same
// records), and how many records it read to tell.
func (l *Log) newTemplates(ctx context.Context, runs []RunInfo, c *counter) ([]TemplateCount, []Elevation, int, error) {
	var first uint64
	cur, prev := map[string]uint64{}, map[string]uint64{}
	for _, r := range runs {
		if first == 0 || r.FirstID < first {
			first = r.FirstID
		}
		cur[r.Source] = r.Run
		all, err := l.Runs(ctx, r.Source)
		if err != nil {
			return nil, nil, 0, err
		}
		if p, ok := earlierRun(all, r); ok {
			prev[r.Source] = p.Run
		}
	}
	seen := map[string]bool{}
	before := newCounter()
	read := 0
	if first > 1 {
		from := max(l.Stats().GenStart, 1)
		if first-from > DigestHistory {
			from = first - DigestHistory
		}
		var err error
		read, err = l.scan(ctx, from, first-1, func(r *Record) {
			if n, ok := cur[r.Source]; !ok || n == r.Run {
				return
			}
			if n, ok := prev[r.Source]; ok && n == r.Run {
				before.add(r) // its templates are seen too
			} else if r.Kind != KindMarker {
				seen[r.Source+"\x00"+TemplateID(RecordTemplate(r))] = true
			}
		})
		if err != nil {
			return nil, nil, read, err
		}
	}
	var out []TemplateCount
	for k, t := range c.templates {
		if !seen[k] && before.templates[k] == nil {
			out = append(out, *t)
		}
	}
	slices.SortFunc(out, func(a, b TemplateCount) int {
		return cmp.Or(cmp.Compare(b.Level, a.Level), cmp.Compare(b.Count, a.Count), cmp.Compare(a.ExampleID, b.ExampleID))
	})
	return out[:min(len(out), DigestTop)], elevated(before, c), read, nil
}

// digestCrashes returns the crash groups f keeps, marking those whose
// sources show no occurrence before the runs began; none without a crash
// index.
func (l *Log) digestCrashes(ctx context.Context, f *Filter, runs []RunInfo) ([]DigestCrash, error) {
	p, err := l.FindCrashes(ctx, CrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Runs: f.Runs, Limit: DigestTop})
	if ErrorCode(err) == EUNAVAILABLE || err == nil && len(p.Groups) == 0 {
		return nil, nil // no crash index: no groups to tell
	} else if err != nil {
		return nil, err
	}
	old := map[string]bool{}
	for _, r := range runs {
		before, err := l.FindCrashes(ctx, CrashQuery{Source: r.Source, Until: r.Start, Limit: MaxCrashLimit})
		if err != nil {
			return nil, err
		}
		for _, g := range before.Groups {
			if g.ExampleID < r.FirstID {
				old[g.Signature] = true
			}
		}
	}
	out := make([]DigestCrash, len(p.Groups))
	for i, g := range p.Groups {
		out[i] = DigestCrash{Signature: g.Signature, Title: g.Title, Class: g.Class, Count: g.Count, ExampleID: g.ExampleID,
			New: runs != nil && !old[g.Signature]}
	}
	return out, nil
}

// buckets counts times in n equal slices of [from, until], oldest first;
// nil when there are none.
func buckets(times []time.Time, from, until time.Time, n int) []int {
	if len(times) == 0 {
		return nil
	}
	out := make([]int, n)
	span := until.Sub(from)
	for _, t := range times {
		i := 0
		if span > 0 {
			i = min(int(int64(t.Sub(from))*int64(n)/int64(span)), n-1)
		}
		out[max(i, 0)]++
	}
	return out
}

// DigestOf counts recs, oldest first, as Digest counts a range: levels,
// names, templates and errors over time. It reads nothing else: Runs,
// NewTemplates and Crashes stay empty, Read is len(recs).
func DigestOf(recs []Record) Digest {
	t := newTally()
	for i := range recs {
		t.add(&recs[i])
	}
	d := t.digest()
	d.Read = len(recs)
	return d
}

// tally counts the records of a digest as they come, oldest first.
type tally struct {
	d        Digest
	c        *counter
	errTimes []time.Time
}

func newTally() *tally { return &tally{d: Digest{Levels: map[string]int{}}, c: newCounter()} }

func (t *tally) add(r *Record) {
	d := &t.d
	if d.Records == 0 {
		d.FirstID, d.From = r.ID, r.Time
	}
	d.Records++
	d.LastID, d.Until = r.ID, r.Time
	d.Levels[r.Level.String()]++
	t.c.add(r)
	if r.Level >= LevelError {
		t.errTimes = append(t.errTimes, r.Time)
	}
}

// digest is what was counted: the top names and templates, errors over
// time.
func (t *tally) digest() Digest {
	d := t.d
	d.Names, d.Templates, d.TemplateCount = t.c.topNames(DigestTop), t.c.top(DigestTop), len(t.c.templates)
	d.Errors = buckets(t.errTimes, d.From, d.Until, DigestBuckets)
	return d
}

// counter counts records by source and name and by template.
type counter struct {
	names     map[[2]string]int
	templates map[string]*TemplateCount // by source and template ID
	spans     map[string]span           // by source: the times of its first and last record counted
}

func newCounter() *counter {
	return &counter{names: map[[2]string]int{}, templates: map[string]*TemplateCount{}, spans: map[string]span{}}
}

// add counts r, oldest first; a marker counts by name only, having no
// message of its own.
func (c *counter) add(r *Record) {
	c.names[[2]string{r.Source, r.Name}]++
	sp, ok := c.spans[r.Source]
	if !ok {
		sp.first = r.Time
	}
	sp.last = r.Time
	c.spans[r.Source] = sp
	if r.Kind == KindMarker {
		return
	}
	tmpl := RecordTemplate(r) // an operation's is its call shape
	id := TemplateID(tmpl)
	key := r.Source + "\x00" + id
	t := c.templates[key]
	if t == nil {
		t = &TemplateCount{ID: id, Template: tmpl, Source: r.Source}
		c.templates[key] = t
	}
	t.Count++
	t.Level = max(t.Level, r.Level)
	t.ExampleID = r.ID
}

// top returns the n most frequent templates.
func (c *counter) top(n int) []TemplateCount {
	out := make([]TemplateCount, 0, len(c.templates))
	for _, t := range c.templates {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b TemplateCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(b.Level, a.Level), cmp.Compare(a.ExampleID, b.ExampleID))
	})
	return out[:min(len(out), n)]
}

// topNames returns the n source and name pairs with the most records.
func (c *counter) topNames(n int) []NameCount {
	out := make([]NameCount, 0, len(c.names))
	for k, v := range c.names {
		out = append(out, NameCount{Source: k[0], Name: k[1], Count: v})
	}
	slices.SortFunc(out, func(a, b NameCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Name, b.Name))
	})
	return out[:min(len(out), n)]
}
