package mcptools_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
	"github.com/mcplogd/mcplogd/search"
)

var update = flag.Bool("update", false, "rewrite the server sections of testdata/*.txtar with what the server answers now")

// TestGolden replays the client messages of each testdata/*.txtar against
// the MCP server over stdio-style JSON lines and compares the server's
// answers with the archive's "server" section, byte for byte: nothing is
// masked. The exchanges run after initialize against the same seeded log
// (goldenLog) on a clock that stands still (goldenNow, the log's and the
// tools'), so the server's start, its uptime and each crash's age are the
// same in every run; the in-memory store has a fixed revision, so cursors
// are too. `go test -update` rewrites the server sections.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.txtar: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var client []byte
			var want []byte
			for _, f := range ar.Files {
				switch f.Name {
				case "client":
					client = f.Data
				case "server":
					want = f.Data
				}
			}
			if len(bytes.TrimSpace(client)) == 0 {
				t.Fatalf("%s: no client section", file)
			}
			got := exchange(t, goldenLog(t), client)
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "server" {
						ar.Files = slices.Delete(ar.Files, i, i+1)
						break
					}
				}
				ar.Files = append(ar.Files, txtar.File{Name: "server", Data: got})
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("%s: the server's answers differ from the archive (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", file, got, want)
			}
		})
	}
}

// goldenT0 is the time of the first seeded record; the exchanges run an
// hour later, when goldenNow stands.
var goldenT0 = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

func goldenNow() time.Time { return goldenT0.Add(time.Hour) }

// goldenRevision is the seeded store's revision, which cursors carry.
const goldenRevision = 0x1_2345_6789_abcd

// goldenLog opens a log with a search and crash index over a fixed set of
// records (Unity lines, a repeated crash, an operation) in the in-memory
// store, indexed.
func goldenLog(t *testing.T) *oplog.Log {
	t.Helper()
	db := oplogtest.NewMemoryRevision(goldenRevision)
	l := oplog.New(db, &oplog.LogOptions{Now: goldenNow})
	t.Cleanup(func() { l.Close() })
	at := func(s int) time.Time { return goldenT0.Add(time.Duration(s) * time.Second) }
	stack := "NullReferenceException: Object reference not set to an instance of an object\n  at Spawner.Update () [0x00012] in Assets/Scripts/Spawner.cs:42\n  at UnityEngine.Internal.$MethodUtility.Invoke ()"
	recs := []oplog.Record{
		{Time: at(0), Level: oplog.LevelInfo, Name: "Player", Source: "unity", Text: "spawned at (3, 4)"},
		{Time: at(1), Level: oplog.LevelWarn, Name: "Physics", Source: "unity", Text: "Rigidbody moved while kinematic"},
		{Time: at(2), Level: oplog.LevelError, Name: "Spawner", Source: "unity", Text: "NullReferenceException: Object reference not set to an instance of an object", Stack: stack},
		{Time: at(3), Level: oplog.LevelDebug, Name: "Net", Source: "lua-ecs", Text: "tick 1200", Data: json.RawMessage(`{"frame":1200}`)},
		{Time: at(4), Level: oplog.LevelError, Name: "Spawner", Source: "unity", Text: "NullReferenceException: Object reference not set to an instance of an object", Stack: strings.Replace(stack, ":42", ":43", 1)},
		{Time: at(5), Kind: oplog.KindOp, Tool: "run_code", Source: "agent", Arguments: json.RawMessage(`{"code":"print(1)"}`), Status: oplog.StatusPending},
		{Time: at(6), Level: oplog.LevelInfo, Name: "Player", Source: "unity", Text: strings.Repeat("long line ", 60)},
	}
	logtest.MustAppend(t, l, recs...)
	if _, err := l.Complete(context.Background(), recs[5].ID, oplog.Completion{Result: json.RawMessage(`{"out":"1"}`), EndTime: at(7)}); err != nil {
		t.Fatal(err)
	}
	// Answers are exact either way; the index is built, closed and opened
	// again so that store_info's index state (idle, no progress) and its
	// size on disk (which a live index's background merges change) are
	// the same from run to run.
	dir := t.TempDir()
	open := func() *search.Index {
		idx, err := search.Open(dir, db, &search.Options{Changed: l.Changed})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := idx.WaitIndexed(ctx, l.Stats().LastID, nil); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	if err := open().Close(); err != nil {
		t.Fatal(err)
	}
	idx := open()
	t.Cleanup(func() { idx.Close() })
	l.SetIndex(idx)
	// The reopened index may still write (its snapshot, a merge) for a
	// moment: its size is read once it has held for 200 ms.
	logtest.Eventually(t, 10*time.Second, "the index's size settled", func() bool {
		size := idx.Status().Bytes
		for range 10 {
			time.Sleep(20 * time.Millisecond)
			if idx.Status().Bytes != size {
				return false
			}
		}
		return true
	})
	cr := crash.New(l, nil)
	t.Cleanup(func() { cr.Close() })
	l.SetCrashes(cr)
	return l
}

// exchange runs the server on l over JSON lines, initializes a session,
// sends client's messages one by one and returns the server's answers to
// them (notifications it sends on its own are left out), normalised.
func exchange(t *testing.T, l *oplog.Log, client []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcptools.New(l, &mcptools.Options{Version: "golden", Now: goldenNow})
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
	})
	answers := bufio.NewScanner(outR)
	answers.Buffer(nil, 16<<20)
	send := func(msg string) (json.RawMessage, bool) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(msg), &m); err != nil {
			// Not JSON: the server answers with a parse error (id null).
			m.ID = json.RawMessage("null")
		}
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatalf("send %s: %v", msg, err)
		}
		if len(m.ID) == 0 {
			return nil, false // a notification: no answer
		}
		for answers.Scan() {
			var a struct {
				ID json.RawMessage `json:"id"`
			}
			line := answers.Bytes()
			if json.Unmarshal(line, &a) == nil && bytes.Equal(a.ID, m.ID) {
				return slices.Clone(line), true
			}
		}
		t.Fatalf("no answer to %s: %v", msg, answers.Err())
		return nil, false
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var out bytes.Buffer
	for _, msg := range strings.Split(string(client), "\n") {
		if msg = strings.TrimSpace(msg); msg == "" || strings.HasPrefix(msg, "#") {
			continue
		}
		if a, ok := send(msg); ok {
			out.Write(normalize(t, a))
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// normalize indents an answer.
func normalize(t *testing.T, b []byte) []byte {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("server sent non-JSON %q: %v", b, err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}
