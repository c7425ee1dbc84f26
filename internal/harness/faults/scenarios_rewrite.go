package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// rewriteBanner is the first line of every launch of the rewriting game:
// no timestamp, longer than the head a follower hashes (256 bytes), so
// that the file begins with the same bytes at every launch.
var rewriteBanner = "Game engine 1.0 starting, renderer vulkan " + strings.Repeat("-", 300)

func rewriteLine(launch, i int) string { return fmt.Sprintf("launch %03d line %05d", launch, i) }

// rewriter is a game that opens its log with mode "w" at each launch.
type rewriter struct {
	path     string
	launches int // so far
	lines    int // records its launches must leave: their lines and banners
}

// launch truncates the file in place and writes the banner and n lines of
// the next launch, about 2 KB every pace (0: at once).
func (g *rewriter) launch(n int, pace time.Duration) error {
	f, err := os.OpenFile(g.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	var b strings.Builder
	b.WriteString(rewriteBanner + "\n")
	for i := range n {
		fmt.Fprintf(&b, "%s\n", rewriteLine(g.launches, i))
		if b.Len() < 2048 && i < n-1 {
			continue
		}
		if _, err := f.WriteString(b.String()); err != nil {
			return err
		}
		b.Reset()
		if pace > 0 {
			time.Sleep(pace) // a game's pace
		}
	}
	g.launches++
	g.lines += n + 1
	return f.Close()
}

// waitLines waits up to a minute until s stores n lines; what never comes
// is counted lost after the last round.
func waitLines(s *Server, n int) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		st, err := s.C.Stats(context.Background())
		if err == nil && st.Count(oplog.KindLine, 0) >= uint64(n) {
			return
		}
		time.Sleep(20 * time.Millisecond) // polling the follower
	}
}

// ScenarioRewrite: a game that rewrites its log in place at each launch
// (mode "w", the same banner first) and a server following it. Each round
// the game crashes early (40 lines) and is launched again, writing 600
// lines gradually while the server is killed and started again; then the
// server is killed and the game launched once more while it is down.
// Every line of every launch must be stored exactly once, each launch in
// a run of its own.
func ScenarioRewrite(e *Env) (Result, error) {
	r := Result{Scenario: "rewrite"}
	data := filepath.Join(e.Dir, "rewrite")
	g := &rewriter{path: filepath.Join(e.Dir, "rewrite-game.log")}
	arg := []string{"--follow", "generic:game=" + g.path}
	for round := range e.Rounds {
		s, err := e.Start(data, arg...)
		if err != nil {
			return r, err
		}
		waitLines(s, g.lines) // the launch written while it was down
		if err := g.launch(40, 0); err != nil {
			s.Kill()
			return r, err
		}
		waitLines(s, g.lines)
		done := make(chan error, 1)
		go func() { done <- g.launch(600, 50*time.Millisecond) }()
		KillWhen(s, time.Duration(e.Rand.IntN(400))*time.Millisecond, func() bool { return false })
		if s, err = e.Start(data, arg...); err != nil {
			<-done
			return r, err
		}
		if err := <-done; err != nil {
			s.Kill()
			return r, err
		}
		waitLines(s, g.lines)
		s.Kill()
		if err := g.launch(600, 0); err != nil {
			return r, err
		}
		r.Rounds = 2 * (round + 1) // a kill during a launch, one before a launch
	}
	return e.checkRewrite(r, data, g, arg)
}

// checkRewrite starts the server once more, waits for every line, stops it
// and counts: each line of each launch once, each launch one run of its own.
func (e *Env) checkRewrite(r Result, data string, g *rewriter, arg []string) (Result, error) {
	s, err := e.Start(data, arg...)
	if err != nil {
		return r, err
	}
	waitLines(s, g.lines)
	if err := s.Stop(); err != nil {
		return r, err
	}
	recs, err := Records(data)
	if err != nil {
		return r, err
	}
	seen := map[string]int{}
	runOf := map[int]map[uint64]bool{} // launch: its lines' runs
	for _, rec := range recs {
		if rec.Kind != oplog.KindLine {
			continue
		}
		seen[rec.Text]++
		var launch, i int
		if _, err := fmt.Sscanf(rec.Text, "launch %d line %d", &launch, &i); err == nil {
			if runOf[launch] == nil {
				runOf[launch] = map[uint64]bool{}
			}
			runOf[launch][rec.Run] = true
		}
	}
	r.Acked = g.lines
	lines := []int{40, 600, 600}
	for launch := range g.launches {
		for i := range lines[launch%3] {
			switch n := seen[rewriteLine(launch, i)]; {
			case n == 0:
				r.Lost++
			case n > 1:
				r.Dup += n - 1
			}
		}
	}
	r.Lost += max(g.launches-seen[rewriteBanner], 0)
	r.Dup += max(seen[rewriteBanner]-g.launches, 0)
	runs, split := map[uint64]bool{}, 0
	for launch := range g.launches {
		if len(runOf[launch]) > 1 {
			split++
		}
		for run := range runOf[launch] {
			runs[run] = true
		}
	}
	r.Note = fmt.Sprintf("%d launches rewriting the file in place with the same banner (%d while the server was down), %d runs", g.launches, g.launches/3, len(runs))
	if len(runs) != g.launches || split > 0 {
		return r, fmt.Errorf("rewrite: %d launches stored in %d runs, want one run each (%d lines lost, %d duplicated)", g.launches, len(runs), r.Lost, r.Dup)
	}
	return r, nil
}
