package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// importAged imports lines into a new data directory, each with its age
// (how long before now it was written), and returns the directory.
func importAged(t *testing.T, lines map[string]time.Duration) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	importInto(t, data, "game", lines)
	return data
}

// importInto imports lines, each with its age, into source of data, the
// oldest first.
func importInto(t *testing.T, data, source string, lines map[string]time.Duration) {
	t.Helper()
	file := filepath.Join(t.TempDir(), source+".ndjson")
	var b strings.Builder
	now := time.Now()
	// Oldest first, so that IDs (a tail's order) follow the times.
	texts := slices.SortedFunc(maps.Keys(lines), func(a, b string) int { return cmp.Compare(lines[b], lines[a]) })
	for _, text := range texts {
		age := lines[text]
		fmt.Fprintf(&b, `{"time":%q,"level":"error","name":"Game","text":"wave %s","stack":"at Game.%s ()"}`+"\n",
			now.Add(-age).UTC().Format(time.RFC3339Nano), text, text)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "import", "--create", "--source", source, file); err != nil {
		t.Fatal(err)
	}
}

// textsOf lists which of the words each line of out holds, in order.
func textsOf(out string, words ...string) string {
	var got []string
	for line := range strings.SplitSeq(out, "\n") {
		for _, w := range words {
			if strings.Contains(line, w) {
				got = append(got, w)
			}
		}
	}
	return strings.Join(got, ",")
}

// TestCLI_SinceWords: --since and --until take journalctl's words on tail,
// search and crashes; tail prints every line of the time asked for, oldest
// first, or with -r newest first. The lines are three days, three hours
// and a minute old: "yesterday" (midnight, 24 to 48 hours ago) falls
// between the first two whenever the test runs.
func TestCLI_SinceWords(t *testing.T) {
	data := importAged(t, map[string]time.Duration{"oldline": 72 * time.Hour, "midline": 3 * time.Hour, "newline": time.Minute})
	words := []string{"oldline", "midline", "newline"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tail", "--since", "yesterday"}, "midline,newline"},
		{[]string{"tail", "--until", "yesterday"}, "oldline"},
		{[]string{"tail", "--since", "2 days ago", "--until", "-1h"}, "midline"},
		{[]string{"tail", "--since", "-1d", "-r"}, "newline,midline"},
		{[]string{"tail", "-r"}, "newline,midline,oldline"},
		{[]string{"tail", "-r", "-n", "1"}, "newline"},
		{[]string{"tail", "--since", time.Now().Add(-80 * time.Hour).Format("2006-01-02 15:04")}, "oldline,midline,newline"},
		{[]string{"tail", "--since", "yesterday", "-n", "1"}, "newline"},
		{[]string{"search", "--since", "yesterday", "wave"}, "newline,midline"},
		{[]string{"search", "--until", "yesterday", "wave"}, "oldline"},
		{[]string{"crashes", "--since", "yesterday"}, "newline,midline"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := run(t, data, tc.args...)
			if got := textsOf(out, words...); err != nil || got != tc.want {
				t.Fatalf("%v: %q, %v; want %q", tc.args, out, err, tc.want)
			}
		})
	}
	if _, err := run(t, data, "tail", "--since", "the day before"); err == nil || !strings.Contains(err.Error(), "--since: cannot read time") {
		t.Errorf("tail --since the day before: %v; want an error naming --since", err)
	}
	for _, args := range [][]string{{"tail", "-f", "-r"}, {"tail", "-f", "--until", "today"}} {
		if _, err := run(t, data, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestCLI_OutputJSON: -o json prints what --json prints, and -o short
// the text for people; runs -r lists the newest run first.
func TestCLI_OutputJSON(t *testing.T) {
	data := importAged(t, map[string]time.Duration{"oldline": time.Hour, "newline": time.Minute})
	importInto(t, data, "other", map[string]time.Duration{"otherline": 0})
	for _, args := range [][]string{{"tail"}, {"search", "wave"}, {"crashes"}, {"runs"}, {"show", "1"}} {
		want, err := run(t, data, append(args, "--json")...)
		if err != nil || !json.Valid([]byte(strings.SplitN(want, "\n", 2)[0])) && args[0] != "show" {
			t.Fatalf("%v --json: %q, %v", args, want, err)
		}
		if got, err := run(t, data, append(args, "-o", "json")...); err != nil || got != want {
			t.Errorf("%v -o json: %q, %v; want what --json prints, %q", args, got, err, want)
		}
		text, _ := run(t, data, args...)
		if got, err := run(t, data, append(args, "--json", "-o", "short")...); err != nil || got != text {
			t.Errorf("%v -o short: %q, %v; want %q", args, got, err, text)
		}
	}
	if _, err := run(t, data, "tail", "-o", "yaml"); err == nil || !strings.Contains(err.Error(), `invalid value "yaml" for -o: want short or json`) {
		t.Errorf("tail -o yaml: %v", err)
	}
	out, err := run(t, data, "runs")
	outR, errR := run(t, data, "runs", "-r")
	if err != nil || errR != nil || textsOf(out, " game ", " other ") != " game , other " || textsOf(outR, " game ", " other ") != " other , game " {
		t.Fatalf("runs, then runs -r: %v %v\n%s\n%s", err, errR, out, outR)
	}
}

// TestCLI_Pager runs the real binary on a pseudo-terminal: its output goes
// through $MCPLOGD_PAGER (else $PAGER) with LESS=FRX; never with
// --no-pager, when piped, or for tail -f.
func TestCLI_Pager(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the pseudo-terminal helper is Linux's")
	}
	data := importAged(t, map[string]time.Duration{"pagedline": time.Minute})
	dir := t.TempDir()
	pager := filepath.Join(dir, "pager.sh")
	script := "#!/bin/sh\necho \"$0 LESS=$LESS\" >> " + filepath.Join(dir, "runs") + "\ncat > " + filepath.Join(dir, "paged") + "\n"
	if err := os.WriteFile(pager, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.sh")
	if err := os.Symlink(pager, other); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		_ = os.Remove(filepath.Join(dir, name))
		return string(b)
	}
	for _, args := range [][]string{{"tail"}, {"search", "pagedline"}, {"crashes"}, {"runs"}, {"show", "1"}, {"tail", "--json"}} {
		env := cliEnv(data, "MCPLOGD_PAGER="+pager)
		if out := onTTY(t, env, args...); strings.Contains(out, "pagedline") || strings.Contains(out, "game") {
			t.Errorf("%v on a terminal printed past the pager: %q", args, out)
		}
		if runs, paged := read("runs"), read("paged"); runs != pager+" LESS=FRX\n" || !strings.Contains(paged, "game") {
			t.Errorf("%v on a terminal: the pager ran as %q and read %q; want it run once with LESS=FRX, reading the output", args, runs, paged)
		}
		if out := piped(t, env, args...); !strings.Contains(out, "game") || read("runs") != "" {
			t.Errorf("%v piped: %q; want the output printed and no pager", args, out)
		}
		if out := onTTY(t, env, append(args, "--no-pager")...); !strings.Contains(out, "game") || read("runs") != "" {
			t.Errorf("%v --no-pager on a terminal: %q; want the output printed and no pager", args, out)
		}
	}
	// $PAGER when MCPLOGD_PAGER is unset; MCPLOGD_PAGER wins; LESS as set.
	onTTY(t, cliEnv(data, "MCPLOGD_PAGER=", "PAGER="+other), "tail")
	if runs := read("runs"); runs != other+" LESS=FRX\n" {
		t.Errorf("tail with PAGER set: the pager ran as %q", runs)
	}
	onTTY(t, cliEnv(data, "PAGER="+other, "MCPLOGD_PAGER="+pager, "LESS=-S"), "tail")
	if runs := read("runs"); runs != pager+" LESS=-S\n" {
		t.Errorf("tail with PAGER, MCPLOGD_PAGER and LESS set: the pager ran as %q", runs)
	}

	// tail -f prints to the terminal as lines come, never through a pager.
	ptm, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	cmd := exec.Command(buildBinary(t), "tail", "-f")
	cmd.Env, cmd.Stdout, cmd.Stderr = cliEnv(data, "MCPLOGD_PAGER="+pager), tty, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var out syncBuffer
	go func() { _, _ = io.Copy(&out, ptm) }()
	logtest.Eventually(t, 20*time.Second, "tail -f to print the line on the terminal", func() bool { return strings.Contains(out.String(), "pagedline") })
	if runs := read("runs"); runs != "" {
		t.Errorf("tail -f ran the pager: %q", runs)
	}
}

// TestCLI_MessagesNameFlags: an error the domain words for MCP clients
// names the CLI's flag (replay's --yes is in TestReplay_CLI).
func TestCLI_MessagesNameFlags(t *testing.T) {
	data := importAged(t, map[string]time.Duration{"oneline": time.Minute})
	_, err := run(t, data, "search", "wave", "--cursor", "zzz")
	if err == nil || !strings.HasPrefix(err.Error(), "--cursor: not a cursor of this server; pass --cursor the cursor a previous page printed") ||
		strings.Contains(err.Error(), "nextCursor") {
		t.Fatalf("search --cursor zzz: %v; want an error naming --cursor", err)
	}
}

// TestCLI_RunOffsets: --run takes the offsets `mcplogd runs` prints, as
// journalctl -b takes --list-boots' (0 the current run, -1 the one before).
func TestCLI_RunOffsets(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	var recs []oplog.Record
	for _, word := range []string{"firstrun", "secondrun", "thirdrun"} {
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "start"},
			oplog.Record{Source: "game", Level: oplog.LevelError, Text: "wave " + word, Stack: "at Game." + word + " ()"})
	}
	appendToData(t, data, recs...)
	words := []string{"firstrun", "secondrun", "thirdrun"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tail", "--run", "0"}, "thirdrun"},
		{[]string{"tail", "--run", "-1"}, "secondrun"},
		{[]string{"tail", "--run=-2"}, "firstrun"},
		{[]string{"search", "--run", "-1", "wave"}, "secondrun"},
		{[]string{"crashes", "--run", "-2"}, "firstrun"},
	} {
		out, err := run(t, data, tc.args...)
		if got := textsOf(out, words...); err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.args, out, err, tc.want)
		}
	}
	out, err := run(t, data, "runs", "-r")
	if got := textsOf(out, "  0  game", " -1  game", " -2  game"); err != nil || got != "  0  game, -1  game, -2  game" {
		t.Errorf("runs -r: %q, %v; want the offsets 0, -1, -2 in that order", out, err)
	}
	if _, err := run(t, data, "tail", "--run", "-3"); err == nil || !strings.Contains(err.Error(), "--run -3: no source has a run at offset -3 (offsets go from 0 to -2); mcplogd runs lists them") {
		t.Errorf("tail --run -3: %v", err)
	}
}

// TestCLI_SinceWords_Server: through a running server, tail reads the same
// time range, and -r the same lines newest first, as it does on the file.
func TestCLI_SinceWords_Server(t *testing.T) {
	data := importAged(t, map[string]time.Duration{"oldline": 72 * time.Hour, "midline": 3 * time.Hour, "newline": time.Minute})
	appendToData(t, data, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "markerline"})
	startServe(t, data, "--addr", "127.0.0.1:0")
	words := []string{"oldline", "midline", "newline", "markerline"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tail", "--since", "yesterday"}, "midline,newline,markerline"},
		{[]string{"tail", "--until", "yesterday"}, "oldline"},
		{[]string{"tail", "-r"}, "markerline,newline,midline,oldline"},
		{[]string{"tail", "-r", "--since", "-1d", "-n", "2"}, "markerline,newline"},
	} {
		out, err := run(t, data, tc.args...)
		if got := textsOf(out, words...); err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.args, out, err, tc.want)
		}
	}
}

// TestCLI_SinceLocalZone runs the real binary in a zone five and a half
// hours east of UTC: --since reads a date and time there, and tail prints
// its times there, as journalctl does.
func TestCLI_SinceLocalZone(t *testing.T) {
	if _, err := time.LoadLocation("Asia/Kolkata"); err != nil {
		t.Skipf("no time zone data here: %v", err)
	}
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "zone.ndjson")
	lines := `{"time":"2026-01-02T04:00:00Z","text":"early"}` + "\n" + `{"time":"2026-01-02T05:00:00Z","text":"late"}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "import", "--create", file); err != nil {
		t.Fatal(err)
	}
	env := cliEnv(data, "TZ=Asia/Kolkata")
	// 04:00 and 05:00 UTC are 09:30 and 10:30 there.
	out := piped(t, env, "tail", "--since", "2026-01-02 10:00")
	if !strings.Contains(out, "2026-01-02 10:30:00.000 #2 INFO  zone.ndjson late") || strings.Contains(out, "early") {
		t.Errorf("tail --since 2026-01-02 10:00 in Asia/Kolkata: %q; want only the line of 10:30 there", out)
	}
	if out := piped(t, env, "tail", "--until", "2026-01-02 10:00"); !strings.Contains(out, "2026-01-02 09:30:00.000 #1 INFO  zone.ndjson early") || strings.Contains(out, "late") {
		t.Errorf("tail --until 2026-01-02 10:00 in Asia/Kolkata: %q; want only the line of 09:30 there", out)
	}
}
