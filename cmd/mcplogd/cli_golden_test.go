package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

var update = flag.Bool("update", false, "rewrite the transcripts of testdata/cli/*.txtar with what the commands print now")

// cliGoldenChild marks the process TestCLIGolden starts to run the commands
// in UTC.
const cliGoldenChild = "MCPLOGD_CLI_GOLDEN_CHILD"

// TestCLIGolden runs the command lines of each testdata/cli/*.txtar in
// this process, with no server, on a data directory holding
// cliGoldenRecords, and compares each transcript (standard output, then
// standard error and the exit status main gives) with its section. A
// section is named by its command line ("mcplogd tail -n 3", split at
// spaces); `go test ./cmd/mcplogd -run TestCLIGolden -update` rewrites the
// sections, and fills one added empty.
//
// The commands print times in the local zone, which Go reads once per
// process: the test runs again in a child process that runs only it and
// sets time.Local to UTC before any goroutine of the commands starts, so
// that the transcripts are the same in every zone.
func TestCLIGolden(t *testing.T) {
	if os.Getenv(cliGoldenChild) == "" {
		rerunInUTC(t)
		return
	}
	time.Local = time.UTC
	files, err := filepath.Glob(filepath.Join("testdata", "cli", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/cli/*.txtar: %v", err)
	}
	data := cliGoldenData(t)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) { checkTranscripts(t, file, data) })
	}
}

// rerunInUTC runs TestCLIGolden in a child process of this test binary
// (with -update when given) and fails with its output when it fails.
func rerunInUTC(t *testing.T) {
	t.Parallel()
	args := []string{"-test.run=^TestCLIGolden$", "-test.count=1"}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	if *update {
		args = append(args, "-update")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), cliGoldenChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("TestCLIGolden in a child process in UTC: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("the child process in UTC:\n%s", out)
	}
}

// checkTranscripts runs the command line of each section of the archive
// file on data and compares, or with -update rewrites, its transcript.
func checkTranscripts(t *testing.T, file, data string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(ar.Files) == 0 {
		t.Fatalf("%s: no command lines", file)
	}
	changed := false
	for i := range ar.Files {
		f := &ar.Files[i]
		args := strings.Fields(f.Name)
		if len(args) < 2 || args[0] != "mcplogd" {
			t.Fatalf("%s: section %q is not a command line (mcplogd COMMAND ...)", file, f.Name)
		}
		got := transcript(t, data, args[1:])
		switch {
		case bytes.Equal(got, f.Data):
		case *update:
			f.Data, changed = got, true
		default:
			t.Errorf("%s: %s: the transcript differs (-want +got; -update rewrites it):\n%s", file, f.Name, lineDiff(string(f.Data), string(got)))
		}
	}
	if changed {
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// transcript runs one command as main would and returns what it printed:
// standard output as it came, then "[stderr]" and standard error when it
// wrote any, then "[exit N]".
func transcript(t *testing.T, data string, args []string) []byte {
	t.Helper()
	var stdout, stderr syncBuffer
	err := newMain(&stdout, &stderr, data).Run(context.Background(), args)
	code, line := exitOf(err)
	var b strings.Builder
	b.WriteString(endLine(stdout.String()))
	if e := stderr.String() + line; e != "" {
		b.WriteString("[stderr]\n" + endLine(e))
	}
	fmt.Fprintf(&b, "[exit %d]\n", code)
	for l := range strings.SplitSeq(b.String(), "\n") {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") {
			t.Fatalf("mcplogd %s printed %q, which a txtar archive reads as a section name", strings.Join(args, " "), l)
		}
	}
	return []byte(b.String())
}

// endLine marks output that does not end with a newline, and adds it.
func endLine(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n[no newline at the end]\n"
}

// exitOf is what main makes of a command's error: the exit status, and the
// line it prints to standard error ("" when it prints none).
func exitOf(err error) (code int, line string) {
	var status exitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0, ""
	case errors.Is(err, errUsage):
		return 2, ""
	case errors.As(err, &status):
		return int(status), ""
	}
	return 1, "mcplogd: " + err.Error() + "\n"
}

// lineDiff is a line diff of want and got: "-" lines only in want, "+"
// lines only in got, "  " lines in both (a longest common subsequence).
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var d strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			d.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			d.WriteString("- " + a[i] + "\n")
			i++
		default:
			d.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return d.String()
}

// cliGoldenT0 is the time of the golden log's first record.
var cliGoldenT0 = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// cliGoldenData makes a data directory holding cliGoldenRecords, appended
// through the log the commands open and indexed for search, and closes it.
func cliGoldenData(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	dir, err := datadir.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	o, err := openLog(dir, openOptions{Search: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	recs := logtest.MustAppend(t, o.log, cliGoldenRecords()...)
	// Search is exact either way; an index that has caught up keeps the
	// first search's work the same as the next ones'.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := o.idx.WaitIndexed(ctx, recs[len(recs)-1].ID, nil); err != nil {
		t.Fatal(err)
	}
	logtest.MustCheck(t, o.db)
	return data
}

// cliGoldenRecords are a game's two runs, every time fixed, and an editor
// beside them: run 1 logs a managed exception and crashes (a fatal line
// with a native stack); run 2 records two operations, logs the exception
// again and exits cleanly. The editor compiles once and runs on.
func cliGoldenRecords() []oplog.Record {
	at := func(ms int) time.Time { return cliGoldenT0.Add(time.Duration(ms) * time.Millisecond) }
	line := func(ms int, level oplog.Level, source, name, text string) oplog.Record {
		return oplog.Record{Time: at(ms), Level: level, Source: source, Name: name, Text: text}
	}
	marker := func(ms int, source, name, text string) oplog.Record {
		return oplog.Record{Time: at(ms), Kind: oplog.KindMarker, Level: oplog.LevelInfo, Source: source, Name: name, Text: text}
	}
	op := func(ms, took int, tool, args string, status oplog.Status, result, errText string) oplog.Record {
		r := oplog.Record{Time: at(ms), Kind: oplog.KindOp, Source: "game", Tool: tool, Arguments: json.RawMessage(args),
			Status: status, Error: errText, EndTime: at(ms + took)}
		if result != "" {
			r.Result = json.RawMessage(result)
		}
		return r
	}
	nre := line(3000, oplog.LevelError, "game", "Spawner", "NullReferenceException: Object reference not set to an instance of an object")
	nre.Stack = "  at Spawner.Update () [0x00012] in Assets/Scripts/Spawner.cs:42\n  at UnityEngine.Internal.$MethodUtility.Invoke ()"
	again := nre
	again.Time = at(63000)
	segv := line(5000, oplog.LevelFatal, "game", "Engine", "Segmentation fault (signal 11)")
	segv.Stack = "#0 0x00007f3a10 in PhysicsWorld::Step (Physics.cpp:210)\n#1 0x00007f3a88 in Engine::Tick (Engine.cpp:88)\n#2 0x00007f3b02 in main (main.cpp:12)"
	exit := marker(70000, "game", oplog.MarkerExit, "exited with status 0")
	exit.Data = json.RawMessage(`{"status":0}`)
	return []oplog.Record{
		marker(0, "game", oplog.MarkerRun, "game started (pid 4100)"),
		line(1000, oplog.LevelInfo, "game", "Player", "spawned at (3, 4)"),
		marker(2000, "editor", oplog.MarkerCompileStart, "compiling 12 scripts"),
		line(2250, oplog.LevelWarn, "game", "Physics", "Rigidbody moved while kinematic"),
		marker(2400, "editor", oplog.MarkerCompileOK, "compiled in 400ms"),
		nre,
		line(4000, oplog.LevelInfo, "game", "Player", "spawned at (5, 6)"),
		segv,
		marker(60000, "game", oplog.MarkerRun, "game started (pid 4188)"),
		line(61000, oplog.LevelInfo, "game", "Player", "spawned at (7, 8)"),
		op(62000, 250, "run_code", `{"code":"print(player.position)"}`, oplog.StatusSuccess, `{"out":"(7, 8)"}`, ""),
		again,
		op(64000, 1500, "run_code", `{"code":"player.inventory:clear()"}`, oplog.StatusError, "", "attempt to index a nil value (field 'inventory')"),
		line(65000, oplog.LevelDebug, "editor", "Editor", "asset database refreshed"),
		line(66000, oplog.LevelWarn, "game", "Physics", "Rigidbody moved while kinematic"),
		exit,
	}
}
