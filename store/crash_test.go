package store_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

const crashChildEnv = "MCPLOGD_CRASH_CHILD"

// TestCrashChild is the child of TestCrash_KillDuringAppends: it appends
// through oplog.Log and store.DB from several goroutines until it is killed,
// printing "id text" for every record whose append was acknowledged. Each
// writer's appends carry its position: key "w<writer>", value its batch number.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("run by TestCrash_KillDuringAppends")
	}
	db, err := store.Open(path, nil)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	l := oplog.New(db, nil)
	var out sync.Mutex
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				n := 1 + (w*7+i)%40
				recs := make([]oplog.Record, n)
				for j := range recs {
					recs[j] = oplog.Record{Level: oplog.LevelInfo, Name: "crash", Source: fmt.Sprint("w", w),
						Text: fmt.Sprintf("w%d-%d-%d-%s", w, i, j, strings.Repeat("x", (i*j)%300))}
				}
				if w == 0 && i%5 == 0 {
					recs[0] = oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)), Text: fmt.Sprintf("op-%d", i)}
				}
				pos := oplog.Position{Key: fmt.Sprint("w", w), Value: fmt.Append(nil, i)}
				if err := l.AppendAt(context.Background(), recs, pos); err != nil {
					fmt.Println("append:", err)
					os.Exit(3)
				}
				var b strings.Builder
				for _, r := range recs {
					fmt.Fprintf(&b, "%d %s\n", r.ID, r.Text)
				}
				out.Lock()
				os.Stdout.WriteString(b.String()) // one write per batch: a kill cannot cut a line
				out.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestCrash_KillDuringAppends kills a writing child with SIGKILL at random
// moments and checks after each kill that every acknowledged record is
// present and intact, that IDs only ever go up, and that each writer's
// stored position names the newest of its batches in the file.
func TestCrash_KillDuringAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	path := filepath.Join(t.TempDir(), "log.db")
	acked := map[uint64]string{}
	var lastID uint64                // the newest ID any earlier round left in the file
	positions := map[string]string{} // writer -> its stored position
	for round := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killAfter := 20 + rng.IntN(3000) // acknowledged records before the kill
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var roundFirst uint64
		n := 0
		for sc.Scan() {
			id, text, ok := strings.Cut(sc.Text(), " ")
			num, err := strconv.ParseUint(id, 10, 64)
			if !ok || err != nil {
				t.Fatalf("round %d: child said %q", round, sc.Text())
			}
			if _, dup := acked[num]; dup {
				t.Fatalf("round %d: ID %d acknowledged twice", round, num)
			}
			if num <= lastID {
				t.Fatalf("round %d: ID %d reused (an earlier round reached %d)", round, num, lastID)
			}
			if roundFirst == 0 || num < roundFirst {
				roundFirst = num
			}
			acked[num] = text
			if n++; n == killAfter {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
		}
		_ = cmd.Wait()
		if n < killAfter {
			t.Fatalf("round %d: child stopped after %d records without being killed", round, n)
		}

		db, err := store.Open(path, nil)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		s := db.Stats()
		for id, text := range acked {
			r, err := db.Get(id)
			if err != nil || r.Text != text {
				t.Fatalf("round %d: acknowledged record %d: got %q, %v; want %q", round, id, r.Text, err, text)
			}
		}
		// Every stored record decodes, IDs are strictly increasing and the
		// counters match what is there.
		var prev, count uint64
		newest := map[string]int{} // writer -> its newest batch this round
		for page := uint64(0); ; {
			tail, err := db.Tail(oplog.TailQuery{SinceID: page, HasSince: true, Limit: 1000})
			if err != nil {
				t.Fatalf("round %d: reading back: %v", round, err)
			}
			for _, r := range tail.Lines {
				if r.ID <= prev {
					t.Fatalf("round %d: ID %d after %d", round, r.ID, prev)
				}
				prev = r.ID
				count++
				if r.ID > lastID { // each round's writers count batches from 0
					w, batch := crashBatch(r.Text)
					newest[w] = max(newest[w], batch)
				}
			}
			page = tail.LastID
			if !tail.More {
				break
			}
		}
		if count != s.Records || prev != s.LastID || s.LastID < lastID {
			t.Fatalf("round %d: read %d records up to %d; stats say %d up to %d (previous round reached %d)", round, count, prev, s.Records, s.LastID, lastID)
		}
		checkCrashPositions(t, db, newest, positions)
		lastID = s.LastID
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: killed after %d acknowledged records; file holds %d records up to ID %d", round, n, s.Records, s.LastID)
	}
}

// crashBatch returns the writer and batch of a record TestCrashChild wrote:
// "w3-17-…" or, for writer 0's operations, "op-17".
func crashBatch(text string) (writer string, batch int) {
	if n, ok := strings.CutPrefix(text, "op-"); ok {
		b, _ := strconv.Atoi(n)
		return "w0", b
	}
	parts := strings.SplitN(text, "-", 3)
	b, _ := strconv.Atoi(parts[1])
	return parts[0], b
}

// checkCrashPositions fails unless each writer's position is its newest
// batch of this round in the file, or the one before when it stored none
// this round: a position is durable exactly with its records. It updates
// positions.
func checkCrashPositions(t *testing.T, db *store.DB, newest map[string]int, positions map[string]string) {
	t.Helper()
	for w := range 8 {
		key := fmt.Sprint("w", w)
		v, err := db.Position(key)
		want, had := positions[key]
		if b, ok := newest[key]; ok {
			want, had = fmt.Sprint(b), true
		}
		if err != nil || had != (v != nil) || string(v) != want {
			t.Fatalf("writer %s: position %q, %v; want %q (present %v)", key, v, err, want, had)
		}
		if had {
			positions[key] = want
		}
	}
}
