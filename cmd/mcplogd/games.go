package main

import (
	"context"
	"flag"
	"maps"
	"os"
	"time"

	"github.com/mcplogd/mcplogd/follow"
	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/oplog"
)

// gameFlag adds --game GAME=SOURCE[,SOURCE…]: the sources (an upstream's
// name, a followed log's, a command's, a bridge's) recorded as one game,
// so that its calls and its lines share its runs.
func gameFlag(fs *flag.FlagSet, c *serveConfig) {
	fs.Func("game", "record these sources as one game, so that its calls and its lines share its runs: GAME=SOURCE[,SOURCE...], e.g. game=Game (the upstream game and the log followed as Game); repeatable; also \"games\" in DATA/config.json", func(v string) error {
		game, sources, err := oplog.ParseGame(v)
		if err != nil {
			return err
		}
		if c.games == nil {
			c.games = map[string][]string{}
		}
		c.games[game] = append(c.games[game], sources...)
		return nil
	})
}

// withGames adds config.json's games that the flags do not name.
func withGames(flags, cfg map[string][]string) map[string][]string {
	if len(cfg) == 0 {
		return flags
	}
	out := maps.Clone(cfg)
	maps.Copy(out, flags)
	return out
}

// ownRuns gives each game's runs one owner among serve's writers: a cmd:
// upstream's process, else a --run command, else its followed logs, else
// its upstream's console. The others write no run marker, so that a
// restart is one run, not one per writer. Call it after SetGames.
func (c *serveConfig) ownRuns(l *oplog.Log) {
	launched, followed := map[string]bool{}, map[string]bool{}
	for _, u := range c.upstreams {
		launched[l.Game(u.Name)] = launched[l.Game(u.Name)] || len(u.Command) > 0
	}
	for _, r := range c.runs {
		launched[l.Game(r.Name)] = true
	}
	for i := range c.follows {
		f := &c.follows[i]
		g := l.Game(f.Name)
		f.RunsOwned = launched[g] && f.Glob == "" // a directory's crash reports start no run anyway
		followed[g] = true
	}
	for i := range c.upstreams {
		u := &c.upstreams[i]
		g := l.Game(u.Name)
		u.RunsOwned = len(u.Command) == 0 && (launched[g] || followed[g])
	}
}

// syncer is a followed log that can be read to its end on demand
// (follow.Follower).
type syncer interface {
	Sync(ctx context.Context) error
}

// syncWait bounds how long a game's end waits for its logs to be read.
const syncWait = time.Second

// gameProcess is a game's process as the gateway runs it: before its exit
// marker is stored, the game's followed logs are read to their end, so
// that the crash they hold is stored in the run it ended, not in the next.
type gameProcess struct {
	*follow.Output
	logs []syncer
}

func (p *gameProcess) End(ps *os.ProcessState, stopped string) (oplog.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	for _, l := range p.logs {
		_ = l.Sync(ctx) // a log that is not read in time only leaves its lines to the next run
	}
	return p.Output.End(ps, stopped)
}

// startProcess records a cmd: upstream's process as a run of its game
// (gateway.Options.Runs).
func (s *server) startProcess(source string, command []string, pid int) (gateway.ProcessRun, error) {
	out, err := follow.StartOutput(s.log.log, follow.CommandOptions{Name: source, Args: command, Logger: s.logger}, pid)
	if err != nil {
		return nil, err
	}
	return &gameProcess{Output: out, logs: s.gameLogs(source)}, nil
}

// gameLogs returns the followed logs of source's game.
func (s *server) gameLogs(source string) []syncer {
	var out []syncer
	game := s.log.log.Game(source)
	for i, f := range s.config.follows {
		if i >= len(s.followers) {
			break
		}
		if sy, ok := s.followers[i].(syncer); ok && s.log.log.Game(f.Name) == game {
			out = append(out, sy)
		}
	}
	return out
}
