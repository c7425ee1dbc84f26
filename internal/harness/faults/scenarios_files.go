package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// ScenarioReindex: kill -9 during an index rebuild, alternately that of
// `mcplogd reindex` and that of a server whose index was deleted; after
// each, a server's search must find every needle exactly once.
func ScenarioReindex(e *Env) (Result, error) {
	const n = 30_000
	r := Result{Scenario: "reindex", Note: fmt.Sprintf("%d records; search exact after each kill", n)}
	data, err := e.prepare("reindex", n)
	if err != nil {
		return r, err
	}
	for round := range e.Rounds {
		after := time.Duration(50+e.Rand.IntN(1500)) * time.Millisecond
		if round%2 == 0 {
			cmd := exec.Command(e.Bin, "reindex", "--data", data)
			if err := cmd.Start(); err != nil {
				return r, err
			}
			time.Sleep(after) // the kill point
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		} else {
			if err := os.RemoveAll(filepath.Join(data, "index")); err != nil {
				return r, err
			}
			s, err := e.Start(data)
			if err != nil {
				return r, err
			}
			KillWhen(s, after, func() bool { return false })
		}
		s, err := e.Start(data)
		if err != nil {
			return r, err
		}
		hits, dup, err := countNeedles(s)
		if err != nil {
			s.Kill()
			return r, err
		}
		r.Acked += needles(n)
		r.Lost += max(needles(n)-hits, 0)
		r.Dup += dup
		r.Rounds = round + 1
		s.Kill() // the next round's rebuild starts from what this one left
		e.logf("reindex round %d: killed after %s; %d of %d needles found, %d twice", round, after, hits, needles(n), dup)
	}
	recs, err := Records(data)
	if err == nil && len(recs) != n {
		err = fmt.Errorf("reindex: the log holds %d records, want %d", len(recs), n)
	}
	return r, err
}

// ScenarioFollow: kill -9 while following a file that a game keeps
// writing; each line of the file must be stored exactly once.
func ScenarioFollow(e *Env) (Result, error) {
	r := Result{Scenario: "follow"}
	data, file := filepath.Join(e.Dir, "follow"), filepath.Join(e.Dir, "follow-game.log")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		return r, err
	}
	arg := []string{"--follow", "generic:game=" + file}
	w := startGame(file)
	for round := range e.Rounds {
		s, err := e.Start(data, arg...)
		if err != nil {
			w.stop()
			return r, err
		}
		KillWhen(s, time.Duration(100+e.Rand.IntN(1500))*time.Millisecond, func() bool { return false })
		r.Rounds = round + 1
	}
	written, err := w.stop()
	if err != nil {
		return r, err
	}
	s, err := e.Start(data, arg...)
	if err != nil {
		return r, err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for st, err := s.C.Stats(context.Background()); err != nil || st.Records < uint64(written); st, err = s.C.Stats(context.Background()) {
		if time.Now().After(deadline) {
			break // counted below as lost
		}
		time.Sleep(50 * time.Millisecond) // polling the follower
	}
	if err := s.Stop(); err != nil {
		return r, err
	}
	recs, err := Records(data)
	if err != nil {
		return r, err
	}
	seen := map[string]int{}
	for _, rec := range recs {
		seen[rec.Text]++
	}
	r.Acked = written
	for i := range written {
		switch n := seen[gameLine(i)]; {
		case n == 0:
			r.Lost++
		case n > 1:
			r.Dup += n - 1
		}
	}
	r.Note = fmt.Sprintf("%d lines written to the file while the server was killed %d times", written, r.Rounds)
	return r, nil
}

func gameLine(i int) string { return fmt.Sprintf("game line %07d", i) }

// game appends lines to a file in chunks until stopped.
type game struct {
	stopc chan struct{}
	done  chan struct{}
	n     int
	err   error
}

func startGame(path string) *game {
	g := &game{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(g.done)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			g.err = err
			return
		}
		defer f.Close()
		for {
			select {
			case <-g.stopc:
				return
			case <-time.After(2 * time.Millisecond): // a game's pace
			}
			var b strings.Builder
			for range 1 + rand.IntN(30) {
				fmt.Fprintf(&b, "%s\n", gameLine(g.n))
				g.n++
			}
			if _, err := f.WriteString(b.String()); err != nil {
				g.err = err
				return
			}
		}
	}()
	return g
}

// stop ends the writer and returns how many lines it wrote.
func (g *game) stop() (int, error) {
	close(g.stopc)
	<-g.done
	return g.n, g.err
}

// damageSets writes 64 random bytes into the middle of data's search
// index (its sets file) and returns the file's size.
func damageSets(data string) (int64, error) {
	f, err := os.OpenFile(filepath.Join(data, "index", "sets"), os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	b := make([]byte, 64)
	for i := range b {
		b[i] = byte(rand.Uint32())
	}
	_, err = f.WriteAt(b, fi.Size()/2)
	return fi.Size(), err
}

// ScenarioDamagedIndex: random bytes in the middle of the index's sets
// file; the restarted server must find every needle, and rebuild.
func ScenarioDamagedIndex(e *Env) (Result, error) {
	const n = 20_000
	r := Result{Scenario: "damaged index"}
	data, err := e.prepare("damaged-index", n)
	if err != nil {
		return r, err
	}
	for round := range e.Rounds {
		size, err := damageSets(data)
		if err != nil {
			return r, err
		}
		s, err := e.Start(data)
		if err != nil {
			return r, err
		}
		hits, dup, err := countNeedles(s)
		if err == nil {
			err = waitIndexed(s, n)
		}
		if err != nil {
			s.Kill()
			return r, err
		}
		r.Acked, r.Lost, r.Dup, r.Rounds = r.Acked+needles(n), r.Lost+max(needles(n)-hits, 0), r.Dup+dup, round+1
		r.Note = fmt.Sprintf("64 bytes damaged in the middle of the %d-byte sets file each time; rebuilt", size)
		if err := s.Stop(); err != nil {
			return r, err
		}
	}
	return r, nil
}

// ScenarioDamagedLog: log.db garbled (8 to 64 random pages), zeroed, or
// cut in half; the server must refuse it, naming mcplogd salvage, without
// a crash, and salvage must copy what is readable. Lost here is what the
// damaged pages held.
func ScenarioDamagedLog(e *Env) (Result, error) {
	const n = 20_000
	r := Result{Scenario: "damaged log.db", LossExpected: true}
	for round := range e.Rounds {
		data, err := e.prepare(fmt.Sprint("damaged-log-", round), n)
		if err != nil {
			return r, err
		}
		how := damageLog(filepath.Join(data, "log.db"), round%3)
		if s, err := e.Start(data); err == nil {
			s.Kill()
			return r, fmt.Errorf("%s: the server started", how)
		} else if !strings.Contains(err.Error(), "mcplogd salvage") || strings.Contains(err.Error(), "goroutine ") {
			return r, fmt.Errorf("%s: not a clean refusal: %v", how, err)
		}
		out, err := exec.Command(e.Bin, "salvage", "--data", data, "--out", data+"-salvaged").CombinedOutput()
		m := regexp.MustCompile(`copied (\d+) records`).FindSubmatch(out)
		if err != nil || m == nil {
			return r, fmt.Errorf("%s: salvage: %v\n%s", how, err, out)
		}
		copied, _ := strconv.Atoi(string(m[1]))
		if copied > n {
			return r, fmt.Errorf("%s: salvage copied %d records of the %d the store held", how, copied, n)
		}
		r.Acked, r.Lost, r.Rounds = r.Acked+n, r.Lost+n-copied, round+1
		e.logf("damaged log.db round %d (%s): refused; salvage copied %d of %d", round, how, copied, n)
	}
	r.Note = "garbled, zeroed or truncated in turn; refused, then salvaged"
	return r, nil
}

// damageLog damages the data file in one of three ways and says which.
func damageLog(path string, how int) string {
	fi, _ := os.Stat(path)
	if how == 2 {
		_ = os.Truncate(path, fi.Size()/2)
		return "cut in half"
	}
	// Most of a file's pages are free or the rest of a block's value,
	// which start does not read (a block's frame checksum finds a damaged
	// one when the block is read): one of the pages is always one of the
	// trees' pages, whose header start checks.
	tree, _ := logtest.TreePages(path) // none: random pages only
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	defer f.Close()
	pages := 8 + rand.IntN(57)
	chosen := rand.Perm(int(fi.Size()/4096) - 2)[:min(pages, int(fi.Size()/4096)-2)]
	if len(tree) > 0 {
		chosen[0] = int(tree[rand.IntN(len(tree))]) - 2
	}
	for _, p := range chosen {
		b := make([]byte, 4096)
		if how == 0 {
			for i := range b {
				b[i] = byte(rand.Uint32())
			}
		}
		_, _ = f.WriteAt(b, int64(p+2)*4096)
	}
	return fmt.Sprintf("%d pages %s", pages, map[int]string{0: "garbled", 1: "zeroed"}[how])
}
