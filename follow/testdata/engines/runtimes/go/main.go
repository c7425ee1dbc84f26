// Command game is a small game for mcplogd's runtime tests: game MODE
// [PREFIX].
//
// It ticks a few frames, logging through log/slog's default handler
// ("2026/12/04 10:00:01 INFO frame n=1"), with PREFIX "slogtext" through
// its TextHandler ("time=2026-12-04T10:00:01.000Z level=INFO msg=frame
// n=1"), or, with PREFIX "stamp", behind a timestamp and a padded level; warns of a missing texture in every run;
// then, in frame 3, MODE "index" indexes past the end of a slice deep in
// game code (main -> tick -> (*World).spawn -> (*World).spawnEnemy): the
// runtime prints "panic: runtime error: index out of range" and the
// goroutine's frames, and exits with status 2. "recover" does so too, but
// a deferred recover in main prints the panic and runtime/debug's stack
// (the deferred function and runtime/debug above panic(...)) and exits
// with status 2; "repanic" recovers and panics again ("[recovered,
// repanicked]"); "mapwrite" writes a map from two goroutines in
// (*World).spawnEnemy: "fatal error: concurrent map writes"; "race" (for a
// build with -race) adds to the score from a goroutine as spawnEnemy does:
// the race detector reports it, the game goes on, and exits with the race
// detector's status 66; "overflow" recurses from spawnEnemy until the
// goroutine's stack is past its limit (16 MB here): the runtime says so,
// then "fatal error: stack overflow", its own stack and every goroutine's; "load" panics with an error of three lines, which
// the runtime prints indented after the first. "ok" does not crash.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

var (
	mode    = "ok"
	stamped bool
)

type world struct {
	spawnPoints []int
	enemies     []string
	score       int
}

func logf(level slog.Level, msg string, args ...any) {
	if !stamped {
		slog.Log(context.Background(), level, msg, args...)
		return
	}
	name := map[slog.Level]string{slog.LevelInfo: "INFO", slog.LevelWarn: "WARNING"}[level]
	line := fmt.Sprintf("%s [%-7s] %s", time.Now().Format("2006-01-02 15:04:05,000"), name, msg)
	for i := 0; i+1 < len(args); i += 2 {
		line += fmt.Sprintf(" %v=%v", args[i], args[i+1])
	}
	fmt.Fprintln(os.Stderr, line)
}

func (w *world) loadTexture(name string) {
	if _, err := os.Stat(name); err != nil {
		logf(slog.LevelWarn, "missing texture, using the placeholder", "name", name)
	}
}

// spawnWave spawns a wave and the waves after it, without end: the
// goroutine's stack grows past its limit.
func (w *world) spawnWave(n int) int {
	var wave [64]int
	wave[n%64] = n
	return w.spawnWave(n+1) + wave[3] // CRASH:overflow
}

func (w *world) spawnEnemy(kind string, point int) {
	if mode == "overflow" {
		w.score += w.spawnWave(0)
	}
	if mode == "mapwrite" {
		counts := map[int]int{}
		var wg sync.WaitGroup
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; ; i++ {
					counts[i%64] = g // CRASH:mapwrite
				}
			}(g)
		}
		wg.Wait()
	}
	if mode == "race" {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.score += 10 // CRASH:race
		}()
		w.score++
		wg.Wait()
		return
	}
	if mode == "load" {
		causes := errors.Join(errors.New("spawn table has no kind 'orc'"), errors.New("level 3 has no spawn points"))
		panic(fmt.Errorf("cannot spawn %s:\n%w", kind, causes)) // CRASH:load
	}
	at := w.spawnPoints[point] // CRASH:index
	w.enemies = append(w.enemies, fmt.Sprintf("%s@%d", kind, at))
}

func (w *world) spawn(frame int) {
	if frame == 3 && mode != "ok" {
		w.spawnEnemy("orc", len(w.spawnPoints))
	}
}

func tick(w *world, frame int) {
	logf(slog.LevelInfo, "frame", "n", frame)
	if frame == 1 {
		w.loadTexture("enemy.png")
	}
	w.spawn(frame)
}

func main() {
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	stamped = len(os.Args) > 2 && strings.EqualFold(os.Args[2], "stamp")
	if len(os.Args) > 2 && os.Args[2] == "slogtext" {
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	}
	switch mode {
	case "overflow":
		debug.SetMaxStack(16 << 20) // the runtime's words are the same at its 1 GB
	case "recover":
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(os.Stderr, "panic: %v\n\n", r)
				debug.PrintStack()
				os.Exit(2)
			}
		}()
	case "repanic":
		defer func() {
			if r := recover(); r != nil {
				logf(slog.LevelInfo, "saving before the crash")
				panic(r)
			}
		}()
	}
	logf(slog.LevelInfo, "starting", "mode", mode)
	w := &world{spawnPoints: []int{4, 8, 15}}
	for frame := 1; frame <= 5; frame++ {
		tick(w, frame)
	}
	logf(slog.LevelInfo, "shutting down")
}
