package workload

import (
	"math/rand/v2"
	"strings"
	"sync"
)

// VocabularySize is the number of distinct words messages are drawn from.
const VocabularySize = 5000

// commonWords head the vocabulary so that the most frequent words of the
// skewed draw read like a game's console. The rest are pseudo-words.
var commonWords = strings.Fields(`
	the a to of and in for on with from at by not is was failed loaded
	spawned player entity enemy scene level asset texture mesh shader material
	sound audio physics collider rigidbody camera frame update tick start stop
	saved cache chunk world server client connection timeout retry request
	response packet session script component system event handler queue pool
	buffer memory allocation garbage collected took ms frames render batch draw
	call animation state transition input key pressed released button click ui
	menu inventory item quest dialog npc spawn despawn destroy instantiate
	prefab object transform position rotation scale velocity damage health
	ability cooldown target path navmesh agent found missing null invalid
	unknown deprecated warning error exception retrying skipped ignoring using
	default config value set reset reloaded compiled imported exported done
	begin end ready waiting pending complete success ok build version
`)

var (
	vocabOnce sync.Once
	vocab     []string
)

// syllables make pronounceable pseudo-words.
var syllables = strings.Fields(`
	ka ren tor vi lo mas quo shi dra ne fen gul ab ix or ul zen pra tri mo
	sel var dun bel cor lin ta sen ro mi gra nok pe ter sol wy ki hal bra um
`)

// words returns the vocabulary: the same 5,000 distinct words in every
// process, whatever the generator's seed.
func words() []string {
	vocabOnce.Do(func() {
		rng := rand.New(rand.NewPCG(0x766f636162, 5000)) // fixed: the vocabulary never changes
		seen := make(map[string]bool, VocabularySize)
		vocab = make([]string, 0, VocabularySize)
		add := func(w string) {
			if !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
		for _, w := range commonWords {
			add(w)
		}
		var sb strings.Builder
		for len(vocab) < VocabularySize {
			sb.Reset()
			for range 1 + rng.IntN(3) {
				sb.WriteString(syllables[rng.IntN(len(syllables))])
			}
			add(sb.String())
		}
	})
	return vocab
}

// Vocabulary returns a copy of the 5,000 words that messages are drawn from,
// most frequent first.
func Vocabulary() []string { return append([]string(nil), words()...) }
