package agentload

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Seed is the seed of the store docs/benchmarks.md's budgets were measured on.
const Seed = 12

// The store's shape.
const (
	Size      = 20000 // records, about (operations included)
	FloodLen  = 600   // identical shader warnings in a row
	LongLen   = 200   // lines of 3 KB text with 2 KB stacks, the newest but one
	shortTail = 300   // ordinary lines between the flood and the long lines
	crashPer  = 21    // crashes per 1,000 ordinary records: about 400
	opEvery   = 500   // about one operation per this many records
	batchSize = 1000  // records per Append
)

// Epoch is the time of the first record; each record comes 5–65 ms after the previous one.
var Epoch = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// Facts are what a test checks the store's answers against.
type Facts struct {
	LastID  uint64   // the newest record, NewestCrashID
	Lines   []uint64 // every console line's ID, ascending
	Crashes int      // error and fatal lines with a stack
	Ops     int      // operations

	FloodFirst, FloodLast uint64 // the shader warnings' IDs
	LongFirst, LongLast   uint64 // the long lines' IDs

	NewestCrashID    uint64 // the last record: a crash of its own group
	NewestCrashStack string
	HugeCrashID      uint64   // a crash with a 200 KB stack
	BossFight        []uint64 // the lines whose text has the word "BossFight"
	ShortSource      string   // a source whose lines are all short

	AroundCrashID uint64   // a crash in the middle of the store
	Before, After []uint64 // the 3 records of its source before it and after it, ascending

	OpID     uint64   // a completed operation that ran over several lines
	OpLines  []uint64 // the lines its source wrote while it ran, ascending
	OpOthers []uint64 // the lines other sources wrote meanwhile
}

// opSpan is an operation: the index of its record, the index after the
// last record written while it ran, and how it completes.
type opSpan struct {
	at, end int
	c       oplog.Completion
}

type builder struct {
	rng  *rand.Rand
	t    time.Time
	recs []oplog.Record
	ops  []opSpan
	huge int
}

// build returns the store's records (without IDs) and its operations'
// completions, for the seed.
func build(seed uint64) *builder {
	b := &builder{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), t: Epoch}
	main := Size - FloodLen - shortTail - LongLen - 1
	for len(b.recs) < main {
		switch {
		case len(b.recs) == main/2:
			b.huge = b.add(hugeCrash())
		case b.rng.IntN(opEvery) == 0:
			b.operation()
		case b.rng.IntN(1000) < crashPer:
			b.add(b.crash())
		default:
			b.add(b.line(""))
		}
	}
	for range FloodLen {
		b.add(oplog.Record{Source: Unity, Name: "Shaders", Level: oplog.LevelWarn, Text: ShaderWarning})
	}
	for range shortTail {
		b.add(b.line(""))
	}
	for i := range LongLen {
		b.add(longLine(b.rng, i))
	}
	b.add(newestCrash())
	return b
}

// add appends r a few milliseconds after the previous record and returns its index.
func (b *builder) add(r oplog.Record) int {
	b.t = b.t.Add(time.Duration(5+b.rng.IntN(60)) * time.Millisecond)
	r.Time = b.t
	b.recs = append(b.recs, r)
	return len(b.recs) - 1
}

// line is an ordinary line of source (any of the three when empty).
func (b *builder) line(source string) oplog.Record {
	if source == "" {
		source = []string{Unity, Unity, Lua, Minecraft}[b.rng.IntN(4)]
	}
	r := oplog.Record{Source: source}
	switch n := b.rng.IntN(100); {
	case n < 25:
		r.Level = oplog.LevelDebug
	case n < 80:
		r.Level = oplog.LevelInfo
	case n < 95:
		r.Level = oplog.LevelWarn
	default:
		r.Level = oplog.LevelError
	}
	switch source {
	case Unity:
		r.Name = pick(b.rng, unityNames)
		r.Text = unityText(b.rng, r.Name)
		if b.rng.IntN(10) == 0 {
			r.Data = json.RawMessage(fmt.Sprintf(`{"scene":%q,"frame":%d}`, pick(b.rng, scenes), b.rng.IntN(100000)))
		}
	case Lua:
		r.Name = pick(b.rng, luaNames)
		r.Text = luaText(b.rng, r.Name)
	default:
		r.Name = pick(b.rng, mcNames)
		r.Text = minecraftText(b.rng)
	}
	return r
}

// crash is a crash of one of the groups, drawn by weight.
func (b *builder) crash() oplog.Record {
	total := 0
	for _, g := range groups {
		total += g.weight
	}
	n := b.rng.IntN(total)
	g := groups[0]
	for _, g = range groups {
		if n < g.weight {
			break
		}
		n -= g.weight
	}
	return oplog.Record{Source: g.source, Name: g.name, Level: oplog.LevelError, Text: g.text, Stack: g.stack(b.rng)}
}

// operation adds an operation of the Lua engine or the Unity editor and
// the records written while it runs: lines of its source and of others.
func (b *builder) operation() {
	op := oplog.Record{Kind: oplog.KindOp, Source: Lua, Tool: "run_lua", Status: oplog.StatusPending,
		Arguments: json.RawMessage(fmt.Sprintf(`{"code":"for i = 1, %d do spawn('%s', {x = i, y = 0, z = 4}) end"}`, 3+b.rng.IntN(5), pick(b.rng, enemies)))}
	if b.rng.IntN(3) == 0 {
		op.Source, op.Tool = Unity, "execute_code"
		op.Arguments = json.RawMessage(`{"code":"Debug.Log(GameObject.FindObjectsOfType<Enemy>().Length);"}`)
	}
	s := opSpan{at: b.add(op)}
	own := 0
	for range 6 + b.rng.IntN(9) {
		if b.rng.IntN(10) < 6 {
			r := b.line(op.Source)
			r.Text = fmt.Sprintf("[%s] %s", op.Tool, r.Text)
			b.add(r)
			own++
		} else {
			other := Minecraft
			if op.Source == Minecraft {
				other = Unity
			}
			b.add(b.line(other))
		}
	}
	s.end = len(b.recs)
	b.t = b.t.Add(time.Millisecond)
	s.c = oplog.Completion{Status: oplog.StatusSuccess, EndTime: b.t,
		Result: json.RawMessage(fmt.Sprintf(`{"value":%d,"printed":%d}`, b.rng.IntN(100), own))}
	b.ops = append(b.ops, s)
}

// Fill appends the store of seed to l (a fresh log: the facts' IDs assume
// it was empty) and completes its operations.
func Fill(ctx context.Context, l *oplog.Log, seed uint64) (*Facts, error) {
	b := build(seed)
	for i := 0; i < len(b.recs); i += batchSize {
		if err := l.Append(ctx, b.recs[i:min(i+batchSize, len(b.recs))]); err != nil {
			return nil, err
		}
	}
	for _, s := range b.ops {
		if _, err := l.Complete(ctx, b.recs[s.at].ID, s.c); err != nil {
			return nil, err
		}
	}
	return b.facts()
}

// facts reads the facts off the appended records.
func (b *builder) facts() (*Facts, error) {
	f := &Facts{ShortSource: Lua, Ops: len(b.ops), HugeCrashID: b.recs[b.huge].ID}
	for i := range b.recs {
		r := &b.recs[i]
		if r.Kind == oplog.KindLine {
			f.Lines = append(f.Lines, r.ID)
		}
		if r.Level >= oplog.LevelError && r.Stack != "" {
			f.Crashes++
		}
		if strings.Contains(r.Text, "BossFight") {
			f.BossFight = append(f.BossFight, r.ID)
		}
	}
	n := len(b.recs)
	last := &b.recs[n-1]
	f.LastID, f.NewestCrashID, f.NewestCrashStack = last.ID, last.ID, last.Stack
	f.LongFirst, f.LongLast = b.recs[n-1-LongLen].ID, b.recs[n-2].ID
	flood := n - 1 - LongLen - shortTail - FloodLen
	f.FloodFirst, f.FloodLast = b.recs[flood].ID, b.recs[flood+FloodLen-1].ID
	if !b.around(f) {
		return nil, fmt.Errorf("agentload: no crash with 3 lines of its source on each side")
	}
	if !b.operationFacts(f) {
		return nil, fmt.Errorf("agentload: no operation with 5 lines of its own and 2 of others")
	}
	return f, nil
}

// around picks a Unity crash past the middle with three lines of its
// source on each side.
func (b *builder) around(f *Facts) bool {
	for i := b.huge + 1; i < len(b.recs); i++ {
		r := &b.recs[i]
		if r.Source != Unity || r.Text != NullReference {
			continue
		}
		before, after := b.neighbours(i, -1), b.neighbours(i, 1)
		if len(before) == 3 && len(after) == 3 {
			f.AroundCrashID, f.Before, f.After = r.ID, []uint64{before[2], before[1], before[0]}, after
			return true
		}
	}
	return false
}

// neighbours are the IDs of the next 3 records of recs[i]'s source in
// direction dir, nearest first; fewer when one of them is not a line.
func (b *builder) neighbours(i, dir int) []uint64 {
	var ids []uint64
	for j := i + dir; j >= 0 && j < len(b.recs) && len(ids) < 3; j += dir {
		r := &b.recs[j]
		if r.Source != b.recs[i].Source {
			continue
		}
		if r.Kind != oplog.KindLine {
			return nil
		}
		ids = append(ids, r.ID)
	}
	return ids
}

// operationFacts picks an operation past the first quarter with at least 5
// lines of its own and 2 of other sources.
func (b *builder) operationFacts(f *Facts) bool {
	for _, s := range b.ops {
		if s.at < len(b.recs)/4 {
			continue
		}
		var own, others []uint64
		for j := s.at + 1; j < s.end; j++ {
			if b.recs[j].Source == b.recs[s.at].Source {
				own = append(own, b.recs[j].ID)
			} else {
				others = append(others, b.recs[j].ID)
			}
		}
		if len(own) >= 5 && len(others) >= 2 {
			f.OpID, f.OpLines, f.OpOthers = b.recs[s.at].ID, own, others
			return true
		}
	}
	return false
}
