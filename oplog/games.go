package oplog

import (
	"maps"
	"slices"
	"strings"
)

// Games: a game's calls (its upstream's name) and its output (a followed
// file's, a command's, a bridge's) may arrive under different sources. A
// game declared with SetGames records them all under its own name, so
// that they share its runs: the crash that ends a run and the calls in
// flight meet. A read that names one of the other sources reads the
// game's.

// SetGames declares games: each key is a game, its values the sources
// recorded as it. A source may be one game's only. Call it before
// serving; a later call replaces the declaration.
func (l *Log) SetGames(games map[string][]string) error {
	alias := map[string]string{}
	for _, game := range slices.Sorted(maps.Keys(games)) {
		if err := checkLabel("game", game); err != nil || game == "" {
			return Errorf(EINVALID, "game %q: want a name without line breaks", game)
		}
		for _, s := range games[game] {
			if err := checkLabel("source", s); err != nil || s == "" {
				return Errorf(EINVALID, "game %s: source %q: want a name without line breaks", game, s)
			}
			if g, ok := alias[s]; ok && g != game {
				return Errorf(EINVALID, "source %s: declared part of two games, %s and %s", s, g, game)
			}
			if _, ok := games[s]; ok && s != game {
				return Errorf(EINVALID, "source %s of game %s is itself a game", s, game)
			}
			if s != game {
				alias[s] = game
			}
		}
	}
	l.games.Store(&alias)
	return nil
}

// Game returns the source that source's records are stored under: its
// game's name when SetGames declared it part of one, else source itself.
func (l *Log) Game(source string) string {
	if m := l.games.Load(); m != nil {
		if g, ok := (*m)[source]; ok {
			return g
		}
	}
	return source
}

// gameFilter reads f's source (and the sources of its runs) as their
// games before checkFilter.
func (l *Log) gameFilter(f *Filter) error {
	f.Source, f.Runs = l.Game(f.Source), l.gameRuns(f.Runs)
	return checkFilter(f)
}

// gameRuns returns runs (a run per source) with each source read as its
// game: runs itself when no source is part of one.
func (l *Log) gameRuns(runs map[string]uint64) map[string]uint64 {
	var out map[string]uint64
	for s, run := range runs {
		if g := l.Game(s); g != s {
			if out == nil {
				out = maps.Clone(runs)
			}
			delete(out, s)
			out[g] = run
		}
	}
	if out == nil {
		return runs
	}
	return out
}

// ParseGame reads GAME=SOURCE[,SOURCE…], as a flag gives a game.
func ParseGame(s string) (game string, sources []string, err error) {
	game, list, ok := strings.Cut(s, "=")
	game = strings.TrimSpace(game)
	for _, src := range strings.Split(list, ",") {
		if src = strings.TrimSpace(src); src != "" {
			sources = append(sources, src)
		}
	}
	if !ok || game == "" || len(sources) == 0 {
		return "", nil, Errorf(EINVALID, "game %q: want GAME=SOURCE[,SOURCE…], such as game=Game,game-console: the sources recorded as the game GAME", s)
	}
	return game, sources, nil
}
