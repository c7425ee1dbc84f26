package oplog_test

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestFragment: the first word that a term matches, whole, is marked: a
// word equal to a term, or one that a pattern (crash*, cr?sh, *ception)
// matches from its first character to its last; never a part of a word.
func TestFragment(t *testing.T) {
	f := func(text string, terms []string, want string) {
		t.Helper()
		if got := oplog.Fragment(&oplog.Record{Text: text}, terms); got != want {
			t.Errorf("Fragment(%q, %q) = %q, want %q", text, terms, got, want)
		}
	}
	f("Player crashed at wave 3", []string{"crashed"}, "Player **crashed** at wave 3")
	f("Player CRASHED at wave 3", []string{"crashed"}, "Player **CRASHED** at wave 3")
	f("Player crashed at wave 3", []string{"crash"}, "")

	// Prefixes: the whole word is marked, and only a word that starts so.
	f("Player crashed at wave 3", []string{"crash*"}, "Player **crashed** at wave 3")
	f("Crash report written", []string{"crash*"}, "**Crash** report written")
	f("autocrash then crashes", []string{"crash*"}, "autocrash then **crashes**")
	f("autocrash only", []string{"crash*"}, "")
	f("NullReferenceException in Update", []string{"null*"}, "**NullReferenceException** in Update")
	f("game.crash_handler ran", []string{"crash*"}, "game.**crash_handler** ran")

	// Wildcards: * any run, ? one character, over the whole word.
	f("a crush, then a crash", []string{"cr?sh"}, "a **crush**, then a crash")
	f("a crrush", []string{"cr?sh"}, "")
	f("NullReferenceException thrown", []string{"*exception"}, "**NullReferenceException** thrown")
	f("Exceptional times", []string{"*exception"}, "")
	f("ChunkCache.get failed", []string{"ch*ke"}, "")
	f("ChunkCache.get failed", []string{"ch*e"}, "**ChunkCache**.get failed")
	f("größe überschritten", []string{"gr??e"}, "**größe** überschritten")
	f("größe überschritten", []string{"ü*"}, "größe **überschritten**")
	// A combining mark is part of its word, as the index reads words.
	f("the cafe\u0301 opened", []string{"cafe\u0301"}, "the **cafe\u0301** opened")

	// The first matching word of any term.
	f("wave 3 started, crash imminent", []string{"crash*", "wave"}, "**wave** 3 started, crash imminent")

	// The stack when the text has none.
	r := &oplog.Record{Text: "device lost", Stack: "at Game.Render.Present() in Render.cs:line 210"}
	if got := oplog.Fragment(r, []string{"pres*"}); got != "at Game.Render.**Present**() in Render.cs:line 210" {
		t.Errorf("Fragment of the stack = %q", got)
	}

	// A long text is cut around the word.
	long := strings.Repeat("filler ", 60) + "crashing " + strings.Repeat("after ", 60)
	got := oplog.Fragment(&oplog.Record{Text: long}, []string{"crash*"})
	if !strings.Contains(got, "**crashing**") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || len(got) > 200 {
		t.Errorf("Fragment of a long text = %q, want ~160 bytes around **crashing**", got)
	}
}

// TestFragment_WildcardRandom: a pattern marks a word exactly when the
// regular expression that bleve makes of it (* as .*, ? as .) matches the
// whole word, over random patterns and words.
func TestFragment_WildcardRandom(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(uint64(seed), 0))
	pick := func(alphabet []string, n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		word := pick([]string{"a", "b", "ä"}, 1+rnd.IntN(8))
		pattern := pick([]string{"a", "b", "ä", "*", "?"}, 1+rnd.IntN(6))
		if !strings.ContainsAny(pattern, "*?") {
			continue
		}
		re := regexp.MustCompile("^" + strings.NewReplacer("*", ".*", "?", ".").Replace(pattern) + "$")
		marked := oplog.Fragment(&oplog.Record{Text: word}, []string{pattern}) != ""
		if marked != re.MatchString(word) {
			t.Fatalf("pattern %q, word %q: marked %v, want %v (seed %d)", pattern, word, marked, !marked, seed)
		}
	}
}
