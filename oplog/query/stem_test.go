package query_test

import (
	"slices"
	"testing"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"crash": "crash", "crashed": "crash", "crashes": "crash", "crashing": "crash", "crashpad": "crashpad",
		"spawn": "spawn", "spawns": "spawn", "spawning": "spawn", "stopped": "stop", "stopping": "stop",
		"create": "creat", "created": "creat", "creates": "creat", "retries": "retry", "retried": "retry",
		"exceed": "exceed", "exceeded": "exceed", "called": "call", "passes": "pass", "process": "process",
		"status": "status", "analysis": "analysis", "string": "string", "strings": "string", "server": "server",
		"Crashed": "Crashed", "crash_2": "crash_2", "größe": "größe", "": "",
	} {
		if got := ql.Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestInflections(t *testing.T) {
	for w, want := range map[string][]string{
		"crash":    {"crash", "crashe", "crashes", "crashed", "crashing"},
		"crashed":  {"crashed", "crash", "crashe", "crashes", "crashing"},
		"spawn":    {"spawn", "spawne", "spawnes", "spawned", "spawning", "spawns"},
		"stop":     {"stop", "stope", "stopes", "stoped", "stoping", "stops", "stopped", "stopping"},
		"queue":    {"queue", "queues", "queued", "queuing", "queueing"}, // not queu: written with its e
		"status":   {"status", "statuse", "statuses", "statused", "statusing"},
		"file":     {"file"}, // stem fil: too short
		"used":     {"used"},
		"crash_2":  {"crash_2"},
		"Crash":    {"Crash"}, // not lower-cased: as written
		"größe":    {"größe"},
		"retrying": {"retrying", "retry", "retrye", "retryes", "retryed", "retrys", "retries", "retried"},
	} {
		if got := ql.Inflections(w); !slices.Equal(got, want) {
			t.Errorf("Inflections(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestInflections_Groups: each word of a group (forms as logs spell them)
// matches every other, and words of different groups do not match; every
// inflection has the word's stem.
func TestInflections_Groups(t *testing.T) {
	groups := [][]string{
		{"crash", "crashes", "crashed", "crashing"},
		{"spawn", "spawns", "spawned", "spawning"},
		{"stop", "stops", "stopped", "stopping"},
		{"create", "creates", "created", "creating"},
		{"retry", "retries", "retried", "retrying"},
		{"exceed", "exceeds", "exceeded", "exceeding"},
		{"queue", "queues", "queued", "queuing", "queueing"},
		{"commit", "commits", "committed", "committing"},
		{"pass", "passes", "passed", "passing"},
		{"process", "processes", "processed", "processing"},
		{"load", "loads", "loaded", "loading"},
		{"match", "matches", "matched", "matching"},
		{"index", "indexes", "indexed", "indexing"},
		{"call", "calls", "called", "calling"},
		{"play", "plays", "played", "playing"},
		{"drop", "drops", "dropped", "dropping"}, // (embed is emb, as in Porter's: embedded does not find it)
		{"crashpad"}, {"server", "servers"}, {"serve", "serves", "served", "serving"}, {"status", "statuses"},
		{"connect", "connects", "connected", "connecting"}, {"connection", "connections"},
	}
	for i, g := range groups {
		for _, w := range g {
			forms := ql.Inflections(w)
			if forms[0] != w {
				t.Errorf("Inflections(%q) = %q: not the word first", w, forms)
			}
			for _, f := range forms[1:] {
				if ql.Stem(f) != ql.Stem(w) {
					t.Errorf("Inflections(%q) holds %q, whose stem is %q, not %q", w, f, ql.Stem(f), ql.Stem(w))
				}
			}
			for j, h := range groups {
				for _, u := range h {
					if slices.Contains(forms, u) != (i == j) {
						t.Errorf("Inflections(%q) = %q: holds %q %v", w, forms, u, i != j)
					}
				}
			}
		}
	}
}
