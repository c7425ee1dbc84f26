package workload

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Epoch is the time of every stream's first record; each record is 0–2 ms
// after the previous one.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Shares of the mix, in percent: the proportions the benchmarks assume of a
// game's log (the levels: debug 30%, info 55%, warn 10%, error 5%).
const (
	OpPercent    = 1  // records that are operations
	StackPercent = 10 // records with a stack trace, every error among them
	DataPercent  = 15 // lines with a JSON data object
)

var (
	sources = []string{"unity-editor", "lua-ecs", "mc-client", "game-server"}
	// sourceShare is each source's percentage, summing to 100.
	sourceShare = []int{40, 30, 20, 10}
	names       = []string{
		"Main", "Render", "Render.Shadows", "Render.PostFX", "Physics", "Physics.Collision", "Audio", "Audio.Mixer",
		"AI", "AI.Pathfinding", "AI.Behaviour", "Net", "Net.Session", "Net.Replication", "Net.Transport", "UI",
		"UI.Inventory", "UI.Dialog", "UI.HUD", "Input", "Assets", "Assets.Bundles", "Assets.Import", "Scene",
		"Scene.Streaming", "World", "World.Chunks", "World.Generation", "Entities", "Entities.Spawner", "Combat",
		"Combat.Damage", "Quests", "Save", "Save.Cloud", "Scripting", "Scripting.Lua", "Mods", "Shaders",
		"Animation", "Particles", "Camera", "Localization", "Analytics", "Editor", "Editor.Build", "Editor.Compile",
		"GC", "Jobs", "Profiler",
	}
	tools  = []string{"run_lua", "execute_code", "query", "get_scene"}
	scenes = []string{"MainMenu", "Arena_01", "Arena_02", "Forest", "Dungeon_B2", "Overworld", "Sandbox", "Loading"}
	// opFails are the errors each tool fails with.
	opFails = map[string][]string{
		"run_lua":      {"[string \"chunk\"]:1: attempt to index a nil value (global 'player')", "timeout after 5000 ms"},
		"execute_code": {"CompilationException: (1,12): error CS1002: ; expected", "NullReferenceException: Object reference not set to an instance of an object"},
		"query":        {"unknown component 'Healthh'", "limit: must be at most 100"},
		"get_scene":    {"scene is still loading", "no scene named 'Arena_3'"},
	}
	luaCode = []string{
		"return world:query('Enemy'):count()",
		"player.health = 100",
		"for _, e in ipairs(world:query('Projectile')) do e:destroy() end",
		"return #scene:entities()",
		"spawn('Goblin', {x = 10, y = 0, z = 4})",
	}
	csCode = []string{
		"Debug.Log(GameObject.Find(\"Player\").transform.position);",
		"return FindObjectsOfType<Enemy>().Length;",
		"Time.timeScale = 0.5f;",
		"SceneManager.LoadScene(\"Arena_02\");",
	}
	components = []string{"Health", "Transform", "Velocity", "Inventory", "AIState", "Collider"}
)

// Sources returns the four sources records come from.
func Sources() []string { return append([]string(nil), sources...) }

// Names returns the 50 log names lines are logged under.
func Names() []string { return append([]string(nil), names...) }

// Tools returns the tools that operations call.
func Tools() []string { return append([]string(nil), tools...) }

// Generator makes the workload's records. It is not safe for concurrent use;
// give each writer its own, with its own seed.
type Generator struct {
	words  bool // NewWords': random words, not the benchmark's game records
	rng    *rand.Rand
	clock  int64        // the last record's time, Unix nanoseconds
	stacks [][]string   // stacksPerSource traces per source
	text   []byte       // the strings of the current Fill
	raw    []byte       // the JSON values of the current Fill
	spans  []recordSpan // where each record's fields are in text and raw
}

// span is a field's [start, end) in an arena.
type span struct{ i, j int32 }

type recordSpan struct {
	text, data, args, result span
}

// New returns a Generator whose stream is fixed by seed.
func New(seed int64) *Generator {
	g := &Generator{
		rng:   rand.New(rand.NewPCG(uint64(seed), 0x6d63706c6f6764)),
		clock: Epoch.UnixNano(),
	}
	sg := &stackGen{rng: g.rng}
	g.stacks = make([][]string, len(sources))
	for s := range sources {
		for range stacksPerSource {
			g.stacks[s] = append(g.stacks[s], sg.build(stackShape(s), 750+g.rng.IntN(500)))
		}
	}
	return g
}

// The random-word workload, beside the benchmark's: lines of WordsPerLine
// words drawn from the vocabulary, every third from its first
// WordsCommon, the rest from all of it, under one of 50 names and 4
// sources drawn evenly, at levels debug, info, warn and error 30, 55, 10
// and 5 % of the time; no numbers, stacks, data or operations. Text
// without templates, a hard case for storage and search alike: what
// VictoriaLogs' own benchmarks use.
const (
	WordsPerLine = 18
	WordsCommon  = 500
)

// NewWords returns a Generator of the random-word workload whose stream
// is fixed by seed.
func NewWords(seed int64) *Generator {
	return &Generator{words: true, rng: rand.New(rand.NewPCG(uint64(seed), 0x776f726473)), clock: Epoch.UnixNano()}
}

// skew draws an index below n favouring small ones, as word and logger
// frequencies do: P(index < k) = (k/n)^(1/p).
func (g *Generator) skew(n int, p int) int {
	u := g.rng.Float64()
	x := u
	for range p - 1 {
		x *= u
	}
	return int(x * float64(n))
}

// Fill overwrites every element of recs with the stream's next records. The
// records' strings and JSON values are new on every call (those of one call
// share an allocation), so recs may be reused once the previous records are
// no longer needed; what they pointed to is left alone.
func (g *Generator) Fill(recs []oplog.Record) {
	g.text, g.raw = g.text[:0], g.raw[:0]
	if cap(g.spans) < len(recs) {
		g.spans = make([]recordSpan, len(recs))
	}
	g.spans = g.spans[:len(recs)]
	clear(g.spans)
	for i := range recs {
		g.next(&recs[i], &g.spans[i])
	}
	text := string(g.text)
	raw := append([]byte(nil), g.raw...)
	for i := range recs {
		r, sp := &recs[i], &g.spans[i]
		r.Text = text[sp.text.i:sp.text.j]
		r.Data = rawSlice(raw, sp.data)
		r.Arguments = rawSlice(raw, sp.args)
		r.Result = rawSlice(raw, sp.result)
	}
}

// rawSlice returns the JSON value at sp, capped so that appending to it
// cannot overwrite its neighbour; nil for an empty span.
func rawSlice(raw []byte, sp span) []byte {
	if sp.i == sp.j {
		return nil
	}
	return raw[sp.i:sp.j:sp.j]
}

// next makes one record; its text and JSON values go to the arenas, located by sp.
func (g *Generator) next(r *oplog.Record, sp *recordSpan) {
	rng := g.rng
	g.clock += rng.Int64N(2_000_001)
	t := time.Unix(0, g.clock).UTC()

	if g.words {
		g.wordLine(r, sp, t)
		return
	}
	src, u := 0, rng.IntN(100)
	for u >= sourceShare[src] {
		u -= sourceShare[src]
		src++
	}
	*r = oplog.Record{Kind: oplog.KindLine, Time: t, Source: sources[src]}

	if rng.IntN(100) < OpPercent {
		g.op(r, sp)
	} else {
		r.Level = g.level()
		r.Name = names[g.skew(len(names), 2)]
		start := len(g.text)
		g.message(85 + rng.IntN(61))
		sp.text = span{int32(start), int32(len(g.text))}
		if rng.IntN(100) < DataPercent {
			sp.data = g.data()
		}
	}
	// Errors are 5.05% of records and all carry a trace; the other 94.95%
	// carry one with the probability that brings the total to StackPercent.
	const otherStack = (StackPercent - 5.05) / 94.95
	if r.Level == oplog.LevelError || rng.Float64() < otherStack {
		r.Stack = g.stacks[src][g.skew(stacksPerSource, 2)]
	}
}

// level draws a line's level: debug, info, warn or error 30, 55, 10 and
// 5 % of the time.
func (g *Generator) level() oplog.Level {
	switch u := g.rng.IntN(100); {
	case u < 30:
		return oplog.LevelDebug
	case u < 85:
		return oplog.LevelInfo
	case u < 95:
		return oplog.LevelWarn
	}
	return oplog.LevelError
}

// wordLine makes r a line of the random-word workload (see NewWords).
func (g *Generator) wordLine(r *oplog.Record, sp *recordSpan, t time.Time) {
	rng, w := g.rng, words()
	*r = oplog.Record{Kind: oplog.KindLine, Time: t, Source: sources[rng.IntN(len(sources))], Name: names[rng.IntN(len(names))]}
	r.Level = g.level()
	start := len(g.text)
	for i := range WordsPerLine {
		if i > 0 {
			g.text = append(g.text, ' ')
		}
		n := len(w)
		if i%3 == 0 {
			n = WordsCommon
		}
		g.text = append(g.text, w[rng.IntN(n)]...)
	}
	sp.text = span{int32(start), int32(len(g.text))}
}

// message appends words (and now and then a number) until the text is at
// least n bytes long.
func (g *Generator) message(n int) {
	rng, w := g.rng, words()
	start := len(g.text)
	for len(g.text)-start < n {
		if len(g.text) > start {
			g.text = append(g.text, ' ')
		}
		// One draw per token: the low 4 bits choose a number (1 in 8),
		// the top 53 bits the word.
		x := rng.Uint64()
		switch x & 15 {
		case 0:
			g.text = strconv.AppendUint(append(g.text, "id="...), x>>8&0xffff, 10)
		case 1:
			g.text = strconv.AppendUint(g.text, x>>8&0x3ff, 10)
			g.text = append(g.text, "ms"...)
		default:
			u := float64(x>>11) / (1 << 53)
			g.text = append(g.text, w[int(u*u*u*float64(len(w)))]...)
		}
	}
}

// data appends a small JSON object to raw.
func (g *Generator) data() span {
	start := len(g.raw)
	g.raw = strconv.AppendInt(append(g.raw, `{"frame":`...), g.rng.Int64N(1_000_000), 10)
	g.raw = append(append(append(g.raw, `,"scene":"`...), scenes[g.rng.IntN(len(scenes))]...), '"')
	if g.rng.IntN(2) == 0 {
		g.raw = strconv.AppendInt(append(g.raw, `,"entityId":`...), g.rng.Int64N(10_000), 10)
	}
	g.raw = append(g.raw, '}')
	return span{int32(start), int32(len(g.raw))}
}

// op makes r a finished operation: tool, arguments, a summary like the one
// oplog.Log would write, and a result (90%) or an error.
func (g *Generator) op(r *oplog.Record, sp *recordSpan) {
	rng := g.rng
	r.Kind = oplog.KindOp
	r.Tool = tools[rng.IntN(len(tools))]
	r.Name = r.Tool
	r.StartTime = r.Time
	r.EndTime = r.Time.Add(time.Duration(1+rng.IntN(250)) * time.Millisecond)

	start := len(g.raw)
	switch r.Tool {
	case "run_lua":
		g.raw = strconv.AppendQuote(append(g.raw, `{"code":`...), luaCode[rng.IntN(len(luaCode))])
	case "execute_code":
		g.raw = strconv.AppendQuote(append(g.raw, `{"code":`...), csCode[rng.IntN(len(csCode))])
		g.raw = strconv.AppendInt(append(g.raw, `,"timeout":`...), int64(1000*(1+rng.IntN(10))), 10)
	case "query":
		g.raw = strconv.AppendQuote(append(g.raw, `{"component":`...), components[rng.IntN(len(components))])
		g.raw = strconv.AppendInt(append(g.raw, `,"limit":`...), int64(10*(1+rng.IntN(10))), 10)
	default:
		g.raw = strconv.AppendQuote(append(g.raw, `{"scene":`...), scenes[rng.IntN(len(scenes))])
	}
	g.raw = append(g.raw, '}')
	sp.args = span{int32(start), int32(len(g.raw))}

	ts := len(g.text)
	g.text = append(append(append(g.text, r.Tool...), ' '), g.raw[start:]...)
	sp.text = span{int32(ts), int32(len(g.text))}

	if rng.IntN(10) == 0 {
		r.Status, r.Level = oplog.StatusError, oplog.StatusError.Level()
		fails := opFails[r.Tool]
		r.Error = fails[rng.IntN(len(fails))]
		return
	}
	r.Status, r.Level = oplog.StatusSuccess, oplog.StatusSuccess.Level()
	start = len(g.raw)
	g.raw = strconv.AppendInt(append(g.raw, `{"value":`...), int64(rng.IntN(10_000)), 10)
	g.raw = strconv.AppendInt(append(g.raw, `,"elapsedMs":`...), int64(rng.IntN(250)), 10)
	g.raw = append(g.raw, '}')
	sp.result = span{int32(start), int32(len(g.raw))}
}

// Payload returns the raw size of r's content: the bytes of its source,
// name, text, stack, data, tool, arguments, result and error, plus 8 for
// each timestamp it carries (time, and an operation's start and end). It is
// what a record costs before any encoding, the base of the "bytes on disk per
// byte of payload" figure.
func Payload(r *oplog.Record) int {
	n := len(r.Source) + len(r.Name) + len(r.Text) + len(r.Stack) + len(r.Data) +
		len(r.Tool) + len(r.Arguments) + len(r.Result) + len(r.Error)
	for _, t := range [...]time.Time{r.Time, r.StartTime, r.EndTime} {
		if !t.IsZero() {
			n += 8
		}
	}
	return n
}
