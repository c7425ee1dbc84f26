package follow

import "strings"

// SDL's assertion report (SDL_assert, SDL_assert_release), which SDL 2
// logs as a warning whose message begins with two newlines:
//
//	WARN:
//
//	Assertion failure at damage_enemy (game.c:10), triggered 1 time:
//	  'idx >= 0 && idx < enemy_count'
//
//	Abort/Break/Retry/Ignore/AlwaysIgnore? [abriA] :
//
// (SDL 1.2 puts the condition on the first line.) It is one error record:
// its text the place and the condition, its stack the place as a frame
// ("at damage_enemy (game.c:10)"), then the condition and SDL's prompt.
// An error, not a crash: a player may ignore it and go on; when SDL then
// aborts or the game exits, the exit right after it names it.

// sdlAssertStart reports SDL's assertion line.
func sdlAssertStart(t string) bool {
	return strings.HasPrefix(t, "Assertion failure at ") && strings.Contains(t, "), triggered ")
}

// beginSDL reads the assertion's line: its place becomes the stack's frame.
func (r *report) beginSDL(t string, end int64) {
	place, _, _ := strings.Cut(strings.TrimPrefix(t, "Assertion failure at "), "), triggered ")
	r.setText(strings.TrimSuffix(t, ":"))
	if fn, loc, ok := strings.Cut(place, " ("); ok {
		r.add("at "+fn+" ("+loc+")", end)
	}
}

// sdl adds the condition (on the line after the place) and SDL's prompt.
func (r *report) sdl(s, t string, end int64) bool {
	switch {
	case indentation(s) > 0 && r.e.lines == 1 && strings.HasPrefix(t, "'"):
		r.setText(r.e.rec.Text + ": " + t)
		return r.add(t, end)
	case strings.HasPrefix(t, "Abort/Break/Retry/Ignore/AlwaysIgnore?"):
		r.done = true
		return r.add(t, end)
	}
	return false
}
