package follow

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// The B-cubed precision and recall crash grouping must reach on the corpus.
const (
	corpusMinPrecision = 0.95
	corpusMinRecall    = 0.95
)

// corpusRule is one line of testdata/crashes.tsv: the crash candidates of
// file (read by parser) whose Text or Stack holds sub are the crash label,
// "-" for a record that is no crash or error at all.
type corpusRule struct {
	file, parser, sub, label string
	line                     int // in crashes.tsv
	used                     int // candidates it labelled
}

// readCorpus reads testdata/crashes.tsv: the files in the order they first
// appear, and each file's rules in order. Blank lines and lines starting
// with # are comments.
func readCorpus(tb testing.TB) (files []string, rules map[string][]*corpusRule) {
	tb.Helper()
	rules = map[string][]*corpusRule{}
	for i, line := range strings.Split(string(readSample(tb, "crashes.tsv")), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" || f[1] == "" || f[2] == "" || f[3] == "" {
			tb.Fatalf("crashes.tsv:%d: want file, parser, substring and label separated by tabs, got %q", i+1, line)
		}
		r := &corpusRule{file: f[0], parser: f[1], sub: f[2], label: f[3], line: i + 1}
		prev := rules[r.file]
		if len(prev) == 0 {
			files = append(files, r.file)
		} else if prev[0].parser != r.parser {
			tb.Fatalf("crashes.tsv:%d: %s read by %s, but by %s on line %d", r.line, r.file, r.parser, prev[0].parser, prev[0].line)
		}
		rules[r.file] = append(prev, r)
	}
	if len(files) == 0 {
		tb.Fatal("crashes.tsv has no rules")
	}
	return files, rules
}

// crashCandidate reports whether grouping must account for r: an error or
// fatal record with a stack, any fatal record, or one the crash index takes.
func crashCandidate(r *oplog.Record) bool {
	if r.Level == oplog.LevelFatal || r.Level >= oplog.LevelError && r.Stack != "" {
		return true
	}
	_, ok := crash.RecordSignature(r)
	return ok
}

// corpusRec is a crash candidate of the corpus: where it is, what it truly
// is, and the group the index put it in.
type corpusRec struct {
	file  string
	entry int // its index among the entries of the file's parse
	id    uint64
	level oplog.Level
	text  string // Text's first line, clipped
	label string // the truth; "-": no crash
	group string // the index's group signature; "": not grouped
}

func (r corpusRec) String() string {
	return fmt.Sprintf("%s#%d (%s %q)", r.file, r.entry, r.level, r.text)
}

// firstLine returns s's first line, clipped to n bytes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// TestCrashGrouping_Corpus measures crash grouping against the labelled
// fixtures of testdata/crashes.tsv: every fixture's records appended to one
// log with a crash index, the index's groups compared with the labels by
// B-cubed precision (how much of a record's group is its crash) and recall
// (how much of its crash is in its group), averaged over the records that
// are a crash or that the index grouped.
func TestCrashGrouping_Corpus(t *testing.T) {
	files, rules := readCorpus(t)
	l, _ := logtest.MustOpenLog(t, nil)
	x := crash.New(l, nil)
	l.SetCrashes(x)

	var recs []corpusRec
	sources := map[string]string{}
	for _, file := range files {
		src := filepath.Base(file)
		if other, ok := sources[src]; ok {
			t.Fatalf("%s and %s share the source name %q", other, file, src)
		}
		sources[src] = file
		fileRules := rules[file]
		es := feed(withMarkers(mustParser(t, fileRules[0].parser)), readSample(t, file)) // as a follower reads it: runs too
		batch := make([]oplog.Record, len(es))
		for i, e := range es {
			batch[i] = e.Record
			batch[i].Source = src
		}
		batch = logtest.MustAppend(t, l, batch...)
		for i := range batch {
			r := &batch[i]
			if r.ID == 0 {
				t.Fatalf("%s#%d: no ID after append", file, i)
			}
			if !crashCandidate(r) {
				continue
			}
			c := corpusRec{file: file, entry: i, id: r.ID, level: r.Level, text: firstLine(r.Text, 90)}
			for _, rule := range fileRules {
				if strings.Contains(r.Text, rule.sub) || strings.Contains(r.Stack, rule.sub) {
					c.label = rule.label
					rule.used++
					break
				}
			}
			if c.label == "" {
				t.Errorf("%v matches no rule of crashes.tsv; stack starts %q", c, firstLine(r.Stack, 120))
				continue
			}
			recs = append(recs, c)
		}
	}
	for _, file := range files {
		for _, rule := range rules[file] {
			if rule.used == 0 {
				t.Errorf("crashes.tsv:%d: %q matches no crash candidate of %s", rule.line, rule.sub, file)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	if _, err := l.FindCrashes(context.Background(), oplog.CrashQuery{Classes: oplog.CrashClasses}); err != nil {
		t.Fatal(err) // the index has read everything
	}
	for i := range recs {
		recs[i].group, _ = x.Occurrence(recs[i].id)
	}
	groups := indexGroups(t, l, recs)
	m := bcubed(recs)
	logCorpusTable(t, files, recs, m)
	logCorpusMismatches(t, recs, m, groups)
	if m.precision < corpusMinPrecision || m.recall < corpusMinRecall {
		t.Errorf("crash grouping: precision %.3f, recall %.3f; want at least %.2f and %.2f",
			m.precision, m.recall, corpusMinPrecision, corpusMinRecall)
	}
}

// indexGroups returns the index's groups by signature, after checking that
// they are the partition the records' signatures (crash.RecordSignature)
// make: the same groups with the same occurrences.
func indexGroups(t *testing.T, l *oplog.Log, recs []corpusRec) map[string]oplog.CrashGroup {
	t.Helper()
	page, err := l.FindCrashes(context.Background(), oplog.CrashQuery{Limit: oplog.MaxCrashLimit, Classes: oplog.CrashClasses})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total > len(page.Groups) {
		t.Fatalf("%d crash groups, over the %d one query returns", page.Total, len(page.Groups))
	}
	bySig := map[string][]corpusRec{}
	ids := map[uint64]corpusRec{}
	for _, r := range recs {
		ids[r.id] = r
		if r.group != "" {
			bySig[r.group] = append(bySig[r.group], r)
		}
	}
	groups := map[string]oplog.CrashGroup{}
	for _, g := range page.Groups {
		groups[g.Signature] = g
		members := bySig[g.Signature]
		if len(members) < g.Count { // more: lines of a crash's dump belong to it without being occurrences
			t.Errorf("group %s %q: %d occurrences, but %d candidates belong to it", g.Signature, g.Title, g.Count, len(members))
		}
		for _, id := range []uint64{g.ExampleID, g.LastID} {
			if r, ok := ids[id]; !ok || r.group != g.Signature {
				t.Errorf("group %s %q: occurrence %d is not a candidate with its signature", g.Signature, g.Title, id)
			}
		}
	}
	for sig, members := range bySig {
		if _, ok := groups[sig]; !ok {
			t.Errorf("signature %s of %v is in no group of the index", sig, members[0])
		}
	}
	if t.Failed() {
		t.Fatal("the index's occurrences and its groups disagree: the measure would not be the index's")
	}
	return groups
}

// corpusMeasure is the B-cubed measure of a partition against the truth.
type corpusMeasure struct {
	p, r                  []float64 // per record of recs; -1 outside the universe
	precision, recall     float64   // averages over the universe
	universe, labels, grp int
}

// bcubed measures the index's groups against the labels. The universe is
// every record that is a crash (label not "-") or that the index grouped.
// For record x with group G and crash T: P = |G∩T|/|G|, R = |G∩T|/|T|. An
// ungrouped crash has R = 0 and P = 1 (it was merged with nothing); a
// grouped record that is no crash has P = 0 and R = 1 (there was nothing
// to recall).
func bcubed(recs []corpusRec) corpusMeasure {
	labelN, groupN, both := map[string]int{}, map[string]int{}, map[[2]string]int{}
	for _, r := range recs {
		if r.label != "-" {
			labelN[r.label]++
		}
		if r.group != "" {
			groupN[r.group]++
		}
		if r.label != "-" && r.group != "" {
			both[[2]string{r.label, r.group}]++
		}
	}
	m := corpusMeasure{p: make([]float64, len(recs)), r: make([]float64, len(recs)), labels: len(labelN), grp: len(groupN)}
	var sp, sr float64
	for i, x := range recs {
		var p, r float64
		switch {
		case x.label == "-" && x.group == "":
			m.p[i], m.r[i] = -1, -1 // outside the universe
			continue
		case x.group == "":
			p, r = 1, 0
		case x.label == "-":
			p, r = 0, 1
		default:
			n := float64(both[[2]string{x.label, x.group}])
			p, r = n/float64(groupN[x.group]), n/float64(labelN[x.label])
		}
		m.p[i], m.r[i] = p, r
		sp += p
		sr += r
		m.universe++
	}
	if m.universe > 0 {
		m.precision, m.recall = sp/float64(m.universe), sr/float64(m.universe)
	}
	return m
}

// logCorpusTable logs the measure per file and overall.
func logCorpusTable(t *testing.T, files []string, recs []corpusRec, m corpusMeasure) {
	t.Helper()
	t.Logf("%-48s %7s %6s %9s %6s", "file", "records", "groups", "precision", "recall")
	for _, file := range files {
		var n int
		var sp, sr float64
		groups := map[string]bool{}
		for i, r := range recs {
			if r.file != file || m.p[i] < 0 {
				continue
			}
			n++
			sp += m.p[i]
			sr += m.r[i]
			if r.group != "" {
				groups[r.group] = true
			}
		}
		if n == 0 {
			t.Logf("%-48s %7d %6d %9s %6s", file, 0, 0, "-", "-")
			continue
		}
		t.Logf("%-48s %7d %6d %9.3f %6.3f", file, n, len(groups), sp/float64(n), sr/float64(n))
	}
	t.Logf("overall: %d files, %d records (%d candidates), %d crashes labelled, %d groups: precision %.3f, recall %.3f",
		len(files), m.universe, len(recs), m.labels, m.grp, m.precision, m.recall)
}

// corpusIssue is a crash the index split, or a group that mixes crashes,
// with what it costs the measure.
type corpusIssue struct {
	what  string
	cost  float64 // summed loss of recall (split) or precision (mixed)
	parts []string
}

// logCorpusMismatches logs the crashes the index split over several groups
// (or left ungrouped) and the groups that mix crashes, costliest first.
func logCorpusMismatches(t *testing.T, recs []corpusRec, m corpusMeasure, groups map[string]oplog.CrashGroup) {
	t.Helper()
	title := func(sig string) string {
		if sig == "" {
			return "not grouped"
		}
		return fmt.Sprintf("group %.8s %q", sig, firstLine(groups[sig].Title, 70))
	}
	byLabel, byGroup := map[string][]int{}, map[string][]int{}
	for i, r := range recs {
		if m.p[i] < 0 {
			continue
		}
		if r.label != "-" {
			byLabel[r.label] = append(byLabel[r.label], i)
		}
		if r.group != "" {
			byGroup[r.group] = append(byGroup[r.group], i)
		}
	}
	// parts lists the records of idx by key (a group or a label), a line
	// per key with its count and first record.
	parts := func(idx []int, key func(corpusRec) string, name func(string) string) []string {
		var keys []string
		first, count := map[string]corpusRec{}, map[string]int{}
		for _, i := range idx {
			k := key(recs[i])
			if _, ok := first[k]; !ok {
				keys = append(keys, k)
				first[k] = recs[i]
			}
			count[k]++
		}
		var out []string
		for _, k := range keys {
			out = append(out, fmt.Sprintf("%s: %d, e.g. %v", name(k), count[k], first[k]))
		}
		return out
	}
	var split, mixed []corpusIssue
	for label, idx := range byLabel {
		var cost float64
		for _, i := range idx {
			cost += 1 - m.r[i]
		}
		if cost > 0 {
			split = append(split, corpusIssue{"crash " + label, cost,
				parts(idx, func(r corpusRec) string { return r.group }, title)})
		}
	}
	for sig, idx := range byGroup {
		var cost float64
		for _, i := range idx {
			cost += 1 - m.p[i]
		}
		if cost > 0 {
			mixed = append(mixed, corpusIssue{title(sig), cost,
				parts(idx, func(r corpusRec) string { return r.label }, func(s string) string { return "crash " + s })})
		}
	}
	const worst = 15
	for _, list := range []struct {
		name   string
		issues []corpusIssue
	}{{"crashes split over groups (recall lost)", split}, {"groups mixing crashes (precision lost)", mixed}} {
		slices.SortFunc(list.issues, func(a, b corpusIssue) int {
			return cmp.Or(cmp.Compare(b.cost, a.cost), cmp.Compare(a.what, b.what))
		})
		t.Logf("%s: %d", list.name, len(list.issues))
		for _, is := range list.issues[:min(len(list.issues), worst)] {
			t.Logf("  %s (%.2f records' worth):", is.what, is.cost)
			for _, p := range is.parts {
				t.Logf("    %s", p)
			}
		}
	}
}
