package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

const ringSize = 1000

// gameConsole is a game's console as the Minecraft seed keeps it: a ring of the
// newest 1,000 lines whose IDs start at 1 and start again at 1 when the game
// restarts (a new revision).
type gameConsole struct {
	mu       sync.Mutex
	revision int
	next     uint64     // the ID of the next line
	ring     []gameLine // oldest first
	refuse   bool       // console_tail answers with a tool error
	refused  int        // tool errors answered
	sent     map[string]gameLine
}

type gameLine struct {
	ID    uint64 `json:"id"`
	Time  any    `json:"time"` // RFC 3339 for even IDs, Unix milliseconds for odd ones
	Level string `json:"level"`
	Text  string `json:"text"`

	at time.Time
}

var gameLevels = []string{"INFO", "WARN", "ERROR"}

func newGameConsole(revision int) *gameConsole {
	return &gameConsole{revision: revision, next: 1, sent: map[string]gameLine{}}
}

// write prints n lines prefix-1 ... prefix-n at once, as one burst between
// two polls.
func (g *gameConsole) write(prefix string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	base := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC).Add(time.Duration(g.revision) * time.Hour)
	for i := 1; i <= n; i++ {
		l := gameLine{ID: g.next, Level: gameLevels[g.next%3], Text: fmt.Sprintf("%s-%d", prefix, i)}
		l.at = base.Add(time.Duration(l.ID) * time.Millisecond)
		if l.ID%2 == 0 {
			l.Time = l.at.Format(time.RFC3339Nano)
		} else {
			l.Time = l.at.UnixMilli()
		}
		g.next++
		g.ring = append(g.ring, l)
		g.sent[l.Text] = l
	}
	if len(g.ring) > ringSize {
		g.ring = slices.Clone(g.ring[len(g.ring)-ringSize:])
	}
}

// restart empties the ring and starts the IDs again at 1, then prints
// prefix-1 ... prefix-n, all before anyone can poll.
func (g *gameConsole) restart(prefix string, n int) {
	g.mu.Lock()
	g.revision++
	g.next, g.ring = 1, nil
	g.mu.Unlock()
	g.write(prefix, n)
}

func (g *gameConsole) setRefuse(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refuse = on
}

func (g *gameConsole) refusals() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

type tailArgs struct {
	SinceID *uint64 `json:"sinceId,omitempty"`
	Limit   int     `json:"limit,omitempty"`
}

type tailAnswer struct {
	Lines    []gameLine `json:"lines"`
	LastID   uint64     `json:"lastId"`
	Revision int        `json:"revision"`
	Dropped  uint64     `json:"dropped"`
	Reset    bool       `json:"reset"`
}

// tail answers console_tail as the seed does: sinceId omitted gives the whole
// buffer; a sinceId past the newest ID gives the whole buffer with reset;
// dropped counts the lines after sinceId that left the ring unread.
func (g *gameConsole) tail(_ context.Context, _ *mcp.CallToolRequest, in tailArgs) (*mcp.CallToolResult, tailAnswer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refuse {
		g.refused++
		return nil, tailAnswer{}, errors.New("the client thread did not answer within 5 s")
	}
	limit := min(cmp.Or(in.Limit, 200), ringSize)
	a := tailAnswer{Revision: g.revision}
	lines := g.ring
	switch {
	case in.SinceID == nil:
	case *in.SinceID > g.next-1:
		a.Reset = true
	default:
		since := *in.SinceID
		oldest := g.next
		if len(g.ring) > 0 {
			oldest = g.ring[0].ID
		}
		if oldest > since+1 {
			a.Dropped = oldest - since - 1
		}
		i, _ := slices.BinarySearchFunc(g.ring, since+1, func(l gameLine, id uint64) int { return cmp.Compare(l.ID, id) })
		lines, a.LastID = g.ring[i:], since
	}
	a.Lines = lines[:min(len(lines), limit)]
	if len(a.Lines) > 0 {
		a.LastID = a.Lines[len(a.Lines)-1].ID
	}
	return nil, a, nil
}

// serveGame serves tools over Streamable HTTP on 127.0.0.1:0 until the
// returned stop, which drops every connection at once.
func serveGame(t *testing.T, add func(*mcp.Server)) (url string, stop func()) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "game", Version: "1"}, nil)
	add(srv)
	return serveMCP(t, srv)
}

// serveMCP serves srv over Streamable HTTP on 127.0.0.1 until the test
// ends or stop.
func serveMCP(t *testing.T, srv *mcp.Server) (url string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp", func() { _ = hs.Close() }
}

func serveConsole(t *testing.T, g *gameConsole) (url string, stop func()) {
	return serveGame(t, func(srv *mcp.Server) {
		mcp.AddTool(srv, &mcp.Tool{Name: "console_tail", Description: "console lines after sinceId"}, g.tail)
		mcp.AddTool(srv, &mcp.Tool{Name: "game_state", Description: "not a console"},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, map[string]bool, error) {
				return nil, map[string]bool{"inGame": true}, nil
			})
	})
}

// driver does what the gateway's upstream loop does: connect to url(), run
// the mirror, and connect again when run returns.
type driver struct {
	url      atomic.Pointer[string]
	failures atomic.Int32 // run calls that returned an error
	stop     func()
}

func drive(t *testing.T, m *mirror, url string) *driver {
	d := &driver{}
	d.url.Store(&url)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			c := mcp.NewClient(&mcp.Implementation{Name: "mcplogd-test", Version: "1"}, nil)
			s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: *d.url.Load(), MaxRetries: -1}, nil)
			if err != nil {
				select { // not up yet: try again
				case <-ctx.Done():
				case <-time.After(10 * time.Millisecond):
				}
				continue
			}
			var tools []*mcp.Tool
			for tool, err := range s.Tools(ctx, nil) {
				if err == nil {
					tools = append(tools, tool)
				}
			}
			if err := m.run(ctx, s, tools); err != nil {
				d.failures.Add(1)
			} else if ctx.Err() == nil {
				t.Errorf("run returned nil before its context ended")
			}
			_ = s.Close()
		}
	}()
	d.stop = func() { cancel(); <-done }
	t.Cleanup(d.stop)
	return d
}

// mirrored returns the lines of source in the log, oldest first.
func mirrored(t *testing.T, l *oplog.Log, source string) []oplog.Record {
	t.Helper()
	var out []oplog.Record
	q := oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindLine, Source: source}, HasSince: true, Limit: oplog.MaxTailLimit}
	for {
		tl, err := l.Tail(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tl.Lines...)
		if !tl.More || len(tl.Lines) == 0 {
			return out
		}
		q.SinceID = tl.LastID
	}
}

// waitLines waits until source has n lines in the log, and fails at once
// when it has more.
func waitLines(t *testing.T, l *oplog.Log, source string, n int) []oplog.Record {
	t.Helper()
	var recs []oplog.Record
	logtest.Eventually(t, 20*time.Second, fmt.Sprintf("%d lines of %s", n, source), func() bool {
		recs = mirrored(t, l, source)
		if len(recs) > n {
			t.Fatalf("%d lines of %s, want %d: %s", len(recs), source, n, texts(recs))
		}
		return len(recs) == n
	})
	return recs
}

func texts(recs []oplog.Record) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(r.Text[:min(len(r.Text), 40)] + "; ")
	}
	return b.String()
}

func seq(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

type mirrorData struct {
	UpstreamID  uint64 `json:"upstreamId"`
	UpstreamRun int    `json:"upstreamRun"`
	Dropped     uint64 `json:"dropped"`
}

func TestMirror_Run_RestartsBurstAndReconnects(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	m := newMirror("mc", l, nil)
	g := newGameConsole(1)
	g.write("a", 10)
	urlA, stopA := serveConsole(t, g)
	d := drive(t, m, urlA)
	waitLines(t, l, "mc", 10)

	// A burst bigger than the ring between two polls: the newest 1,000 are
	// read, the 1,500 before them are reported lost.
	g.write("b", 2500)
	waitLines(t, l, "mc", 10+1+1000)

	// Tool errors are retried, not a reason to reconnect.
	g.setRefuse(true)
	logtest.Eventually(t, 20*time.Second, "two refused polls", func() bool { return g.refusals() >= 2 })
	g.write("c", 2)
	g.setRefuse(false)
	waitLines(t, l, "mc", 1011+2)
	if n := d.failures.Load(); n != 0 {
		t.Fatalf("run returned %d errors on tool errors, want 0", n)
	}

	// Restart one: the IDs start again below sinceId, the game answers reset.
	g.restart("d", 5)
	waitLines(t, l, "mc", 1013+5)

	// A reconnect to the same run of the game goes on from sinceId.
	urlB, stopB := serveConsole(t, g)
	d.url.Store(&urlB)
	stopA()
	logtest.Eventually(t, 20*time.Second, "run to fail when the upstream closes", func() bool { return d.failures.Load() == 1 })
	g.write("e", 3)
	waitLines(t, l, "mc", 1018+3)

	// Restart two while mcplogd is away, and the new IDs passed sinceId: the
	// revision tells; the new run is read from its start, its own losses reported.
	g2 := newGameConsole(3)
	g2.write("f", 3000)
	urlC, _ := serveConsole(t, g2)
	d.url.Store(&urlC)
	stopB()
	logtest.Eventually(t, 20*time.Second, "run to fail when the upstream closes", func() bool { return d.failures.Load() == 2 })
	waitLines(t, l, "mc", 1021+1+1000)
	g2.write("g", 1)
	recs := waitLines(t, l, "mc", 2022+1)

	want := slices.Concat(seq("a", 1, 10), []string{"lost 1500"}, seq("b", 1501, 2500), seq("c", 1, 2), seq("d", 1, 5),
		seq("e", 1, 3), []string{"lost 2000"}, seq("f", 2001, 3000), seq("g", 1, 1))
	runs := map[byte]int{'a': 1, 'b': 1, 'c': 1, 'd': 2, 'e': 2, 'f': 3, 'g': 3}
	for i, r := range recs {
		var data mirrorData
		if err := json.Unmarshal(r.Data, &data); err != nil {
			t.Fatalf("line %d (%q): data %s: %v", i, r.Text, r.Data, err)
		}
		if n, ok := strings.CutPrefix(want[i], "lost "); ok {
			if r.Level != oplog.LevelWarn || r.Name != mirrorName || fmt.Sprint(data.Dropped) != n ||
				!strings.Contains(r.Text, "mc: "+n+" console lines were lost") {
				t.Errorf("line %d: got %s %s %q data %s, want the warning that %s lines were lost", i, r.Level, r.Name, r.Text, r.Data, n)
			}
			continue
		}
		if r.Text != want[i] {
			t.Fatalf("line %d is %q, want %q; all: %s", i, r.Text, want[i], texts(recs))
		}
		sent := g.sent[r.Text]
		if r.Text[0] >= 'f' {
			sent = g2.sent[r.Text]
		}
		wantLevel, _ := oplog.ParseLevel(sent.Level)
		if r.Level != wantLevel || !r.Time.Equal(sent.at) || r.Source != "mc" || r.Name != "" ||
			data.UpstreamID != sent.ID || data.UpstreamRun != runs[r.Text[0]] {
			t.Errorf("line %q: level %s time %s data %s; want level %s time %s upstreamId %d upstreamRun %d",
				r.Text, r.Level, r.Time, r.Data, wantLevel, sent.at, sent.ID, runs[r.Text[0]])
		}
		// Each upstream restart is a run of the source: mcplogd's run numbers follow the game's.
		if r.Run != uint64(runs[r.Text[0]]) {
			t.Errorf("line %q: run %d, want %d", r.Text, r.Run, runs[r.Text[0]])
		}
	}
	checkRunMarkers(t, l, recs)
}

// checkRunMarkers checks that each restart of the upstream is one run
// marker, placed after the last line of the run before it and before the
// first line of its own run (the lines' texts start with their run's letter).
func checkRunMarkers(t *testing.T, l *oplog.Log, lines []oplog.Record) {
	t.Helper()
	p, err := l.List(context.Background(), oplog.Query{Filter: oplog.Filter{Kind: oplog.KindMarker, Source: "mc"}, Count: 100})
	if err != nil {
		t.Fatal(err)
	}
	markers := p.Records
	slices.Reverse(markers) // oldest first
	if len(markers) != 2 {
		t.Fatalf("%d markers of mc, want 2 (one per restart): %s", len(markers), texts(markers))
	}
	ids := func(letter byte) (first, last uint64) {
		for _, r := range lines {
			if r.Text[0] == letter && r.Name != mirrorName {
				last = r.ID
				if first == 0 {
					first = r.ID
				}
			}
		}
		if first == 0 {
			t.Fatalf("no line of run %c", letter)
		}
		return first, last
	}
	for i, m := range []struct {
		before, after byte
		run           uint64
	}{{'c', 'd', 2}, {'e', 'f', 3}} {
		r := markers[i]
		_, lastOld := ids(m.before)
		firstNew, _ := ids(m.after)
		if r.Name != oplog.MarkerRun || r.Run != m.run || r.ID <= lastOld || r.ID >= firstNew {
			t.Errorf("marker %d: %s %s run %d id %d; want a run marker of run %d after #%d (run %c's last line) and before #%d (run %c's first)",
				i, r.Kind, r.Name, r.Run, r.ID, m.run, lastOld, m.before, firstNew, m.after)
		}
	}
}

func TestMirror_Run_ResumesAfterMcplogdRestart(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	g := newGameConsole(7)
	g.write("a", 20)
	url, _ := serveConsole(t, g)
	d := drive(t, newMirror("mc", l, nil), url)
	waitLines(t, l, "mc", 20)
	d.stop()

	// A new mirror (mcplogd restarted) over the same log: it picks up where
	// the first stopped rather than storing the game's buffer again.
	g.write("b", 5)
	drive(t, newMirror("mc", l, nil), url)
	waitLines(t, l, "mc", 25)
	g.write("c", 1) // once c-1 is in, an early duplicate would be too
	recs := waitLines(t, l, "mc", 26)
	want := slices.Concat(seq("a", 1, 20), seq("b", 1, 5), seq("c", 1, 1))
	for i, r := range recs {
		var data mirrorData
		_ = json.Unmarshal(r.Data, &data)
		if r.Text != want[i] || data.UpstreamRun != 1 {
			t.Fatalf("line %d is %q run %d, want %q run 1", i, r.Text, data.UpstreamRun, want[i])
		}
	}
}

// logsGame is a console behind get_logs in the Unity and Lua ECS shape:
// newest first, count and offset, records with id, timestamp (Unix ms),
// Unity level names and message, answered as text only, wrapped in result.
type logsGame struct {
	mu   sync.Mutex
	next uint64
	ring []map[string]any // oldest first
}

func (g *logsGame) write(prefix string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := 1; i <= n; i++ {
		g.next++
		g.ring = append(g.ring, map[string]any{"id": g.next, "timestamp": int64(1767366245000 + g.next),
			"level": []string{"Log", "Warning", "Exception"}[g.next%3], "message": fmt.Sprintf("%s-%d", prefix, i), "logName": "game"})
	}
	g.ring = g.ring[max(0, len(g.ring)-ringSize):]
}

func (g *logsGame) restart() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next, g.ring = 0, nil
}

type logsArgs struct {
	Count  int `json:"count,omitempty"`
	Offset int `json:"offset,omitempty"`
}

func (g *logsGame) getLogs(_ context.Context, _ *mcp.CallToolRequest, in logsArgs) (*mcp.CallToolResult, any, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var page []map[string]any
	for i := len(g.ring) - 1 - in.Offset; i >= 0 && len(page) < cmp.Or(in.Count, 10); i-- {
		page = append(page, g.ring[i])
	}
	b, err := json.Marshal(map[string]any{"status": "success", "result": map[string]any{"logs": page}})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, err
}

func TestMirror_Run_GetLogs(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	g := &logsGame{}
	g.write("a", 30)
	url, _ := serveGame(t, func(srv *mcp.Server) {
		mcp.AddTool(srv, &mcp.Tool{Name: "get_logs", Description: "newest first"}, g.getLogs)
	})
	drive(t, newMirror("lua", l, nil), url)
	waitLines(t, l, "lua", 30)

	g.write("b", 250) // more than a page: read back through offset
	waitLines(t, l, "lua", 280)
	g.restart() // IDs go back: a new run
	g.write("c", 5)
	recs := waitLines(t, l, "lua", 285)

	want := slices.Concat(seq("a", 1, 30), seq("b", 1, 250), seq("c", 1, 5))
	for i, r := range recs {
		var data mirrorData
		_ = json.Unmarshal(r.Data, &data)
		wantRun, wantID := 1, uint64(i+1)
		if i >= 280 {
			wantRun, wantID = 2, uint64(i-279)
		}
		wantLevel := []oplog.Level{oplog.LevelInfo, oplog.LevelWarn, oplog.LevelError}[wantID%3]
		if r.Text != want[i] || r.Name != "game" || r.Level != wantLevel || data.UpstreamID != wantID || data.UpstreamRun != wantRun ||
			!r.Time.Equal(time.UnixMilli(int64(1767366245000+wantID))) {
			t.Fatalf("line %d: %q name %q level %s time %s data %s; want %q level %s upstreamId %d run %d",
				i, r.Text, r.Name, r.Level, r.Time, r.Data, want[i], wantLevel, wantID, wantRun)
		}
	}
}

func TestMirror_Console(t *testing.T) {
	tools := func(names ...string) []*mcp.Tool {
		var out []*mcp.Tool
		for _, n := range names {
			out = append(out, &mcp.Tool{Name: n})
		}
		return out
	}
	for _, tc := range []struct {
		tools []*mcp.Tool
		want  string
	}{
		{tools("get_logs", "run_lua", "console_tail"), "console_tail"},
		{tools("run_lua", "get_logs"), "get_logs"},
		{tools("execute_code", "get_log_details"), ""},
		{nil, ""},
	} {
		if got := console(tc.tools); got != tc.want {
			t.Errorf("console(%v) = %q, want %q", tc.tools, got, tc.want)
		}
	}
}

func TestMirror_Record(t *testing.T) {
	m := newMirror("game", nil, nil)
	p := position{run: 2, revision: `"r9"`}
	rec := func(js string) oplog.Record {
		var e entry
		if err := json.Unmarshal([]byte(js), &e); err != nil {
			t.Fatal(err)
		}
		return m.record(e, p)
	}
	at := time.Date(2026, 1, 2, 15, 4, 5, 123e6, time.UTC)
	for _, tc := range []struct {
		line  string
		check func(r oplog.Record) bool
	}{
		{`{"id":7,"time":"2026-01-02T15:04:05.123Z","level":"WARN","text":"hi","name":"chat","source":"client"}`, func(r oplog.Record) bool {
			return r.Time.Equal(at) && r.Level == oplog.LevelWarn && r.Text == "hi" && r.Name == "chat" &&
				string(r.Data) == `{"upstreamId":7,"upstreamRevision":"r9","upstreamRun":2,"upstreamSource":"client"}`
		}},
		{`{"id":"8","timestamp":1767366245123,"type":"Exception","message":"boom","stackTrace":"at X()"}`, func(r oplog.Record) bool {
			return r.Time.Equal(time.UnixMilli(1767366245123)) && r.Level == oplog.LevelError && r.Text == "boom" && r.Stack == "at X()"
		}},
		{`{"id":9,"time":1767366245,"level":"chatty","text":"x"}`, func(r oplog.Record) bool {
			return r.Time.Equal(time.Unix(1767366245, 0)) && r.Level == oplog.LevelInfo
		}},
		{`{"id":10,"time":"15:04:05","text":"x","name":"a\nb"}`, func(r oplog.Record) bool {
			return r.Time.IsZero() && r.Name == "a b" && strings.Contains(string(r.Data), `"upstreamTime":"15:04:05"`)
		}},
		{`{"logId":"bfc2","status":"error","startTime":1744058995054}`, func(r oplog.Record) bool {
			return r.Text == `{"logId":"bfc2","startTime":1744058995054,"status":"error"}` && strings.Contains(string(r.Data), `"upstreamId":"bfc2"`)
		}},
		// A text too long for a record is cut, marked with its length.
		{`{"id":11,"text":"` + strings.Repeat("x", 300_000) + `"}`, func(r oplog.Record) bool {
			return len(r.Text) <= oplog.MaxTextBytes && strings.HasSuffix(r.Text, fmt.Sprintf("[line cut: 300000 bytes, %d dropped]", 300_000-strings.Count(r.Text, "x")))
		}},
	} {
		if r := rec(tc.line); !tc.check(r) {
			t.Errorf("%s gave %+v data %s", tc.line, r, r.Data)
		}
	}
}

type syncBuffer = logtest.Buffer

func TestMirror_Run_ProtocolErrorIsNotTransport(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	var logged syncBuffer
	m := newMirror("mc", l, slog.New(slog.NewTextHandler(&logged, nil)))
	url, stop := serveGame(t, func(*mcp.Server) {}) // no console_tail: calling it is a JSON-RPC error
	s, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.run(ctx, s, []*mcp.Tool{{Name: "console_tail"}}) }()
	logtest.Eventually(t, 20*time.Second, "the refused call to be logged", func() bool {
		return strings.Contains(logged.String(), "upstream console not mirrored")
	})
	select {
	case err := <-done:
		t.Fatalf("run returned %v on a JSON-RPC error answer; want it to keep polling", err)
	default:
	}

	// The upstream goes away: a transport failure ends run with an error.
	stop()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("run returned nil when the upstream went away; want the transport error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after the upstream went away")
	}
	cancel()
}

// TestMirror_Run_McplogdUpstream: an upstream that is mcplogd itself,
// whose console_tail by default sends its lines in the text block alone
// and collapses lines of one template, is mirrored record by record: the
// mirror asks it for format json and collapse false.
func TestMirror_Run_McplogdUpstream(t *testing.T) {
	up, _ := logtest.MustOpenLog(t, nil)
	var recs []oplog.Record
	for i := range 30 {
		recs = append(recs, oplog.Record{Level: oplog.LevelInfo, Source: "game", Name: "Net", Text: fmt.Sprintf("Snapshot %d sent to peer 10.0.0.%d:7777", i, i%5)})
	}
	logtest.MustAppend(t, up, recs...)
	url, _ := serveMCP(t, mcptools.New(up, nil))
	l, _ := logtest.MustOpenLog(t, nil)
	drive(t, newMirror("up", l, nil), url)
	got := waitLines(t, l, "up", 30)
	for i, r := range got {
		if r.Text != recs[i].Text {
			t.Fatalf("line %d: %q, want %q", i, r.Text, recs[i].Text)
		}
	}
}
