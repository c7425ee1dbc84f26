package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestServe_FollowSharedSource_KillNine is follow's shared-source case with real
// processes: a server follows a file under the source "game" while another
// writer posts 20,000 records of "game" after the follower's last one; the
// server is killed with SIGKILL, the file grows by 100 lines, and the
// restarted server must resume at the file's own read position: each of
// the file's 2,100 lines stored exactly once (before the fix, the position
// was looked for among the newest 10,000 records of the source, and the
// restart read the whole file again from offset 0).
func TestServe_FollowSharedSource_KillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	e := &Env{Bin: buildBinary(t, dir), Dir: dir, Log: io.Discard}
	data, file := filepath.Join(dir, "data"), filepath.Join(dir, "game.log")
	writeLines := func(from, to int) {
		t.Helper()
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "shared line %04d\n", i)
		}
		if _, err := f.WriteString(b.String()); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	follow := []string{"--follow", "generic:game=" + file}
	writeLines(0, 2000)
	s, err := e.Start(data, follow...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	waitRecords(t, s, 2000)
	ctx := context.Background()
	for b := range 20 { // the other writer: 20,000 records of "game"
		lines := make([]wireLine, 1000)
		for j := range lines {
			lines[j] = wireLine{Level: "info", Source: "game", Text: fmt.Sprintf("other writer %d", b*1000+j)}
		}
		body, _ := json.Marshal(lines)
		if _, err := s.Post(ctx, "/api/v1/logs", body, nil); err != nil {
			t.Fatal(err)
		}
	}
	s.Kill()
	writeLines(2000, 2100)
	s, err = e.Start(data, follow...)
	if err != nil {
		t.Fatal(err)
	}
	waitRecords(t, s, 22_100)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	recs, err := Records(data)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		if strings.HasPrefix(r.Text, "shared line ") {
			seen[r.Text]++
		}
	}
	for i := range 2100 {
		if n := seen[fmt.Sprintf("shared line %04d", i)]; n != 1 {
			t.Fatalf("file line %d stored %d times, want once (%d file lines stored in all, %d records)", i, n, len(seen), len(recs))
		}
	}
	lines := 0
	for _, r := range recs {
		if r.Kind != oplog.KindMarker { // a follower that stops says so with an end marker
			lines++
		}
	}
	if lines != 22_100 {
		t.Fatalf("%d records besides markers, want 22,100 (2,100 file lines and 20,000 of the other writer)", lines)
	}
}

// waitRecords waits until s holds at least n records.
func waitRecords(t *testing.T, s *Server, n uint64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := s.C.Stats(context.Background())
		if err == nil && st.Records >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %d records: %v records, %v\n%s", n, st.Records, err, s.Stderr())
		}
		time.Sleep(20 * time.Millisecond) // polling a running process
	}
}
