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
		"crash":    {"crash", "crashe", "crashs", "crashes", "crashed", "crashing", "crasheing", "crashhed", "crashhing"},
		"crashed":  {"crashed", "crash", "crashe", "crashs", "crashes", "crashing", "crasheing", "crashhed", "crashhing"},
		"queue":    {"queue", "queu", "queues", "queued", "queuing", "queueing"},
		"status":   {"status", "statuse", "statuses", "statused", "statusing", "statuseing"},
		"file":     {"file"}, // stem fil: too short
		"used":     {"used"},
		"crash_2":  {"crash_2"},
		"Crash":    {"Crash"}, // not lower-cased: as written
		"größe":    {"größe"},
		"retrying": {"retrying", "retry", "retrye", "retrys", "retryes", "retryed", "retryeing", "retries", "retried"},
	} {
		if got := ql.Inflections(w); !slices.Equal(got, want) {
			t.Errorf("Inflections(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestInflections_SameStem: Inflections(w) is every word whose stem is w's
// (of the words tried), and only those.
func TestInflections_SameStem(t *testing.T) {
	stems := []string{"crash", "spawn", "stop", "creat", "retry", "exceed", "queu", "call", "pass", "process", "warn",
		"load", "fram", "embed", "commit", "play", "buzz", "staff", "free", "box"}
	suffixes := []string{"", "e", "s", "es", "ed", "ing", "eing", "ies", "ied", "eed", "er", "ers", "ion", "ly"}
	for _, s := range stems {
		var words []string
		for _, x := range suffixes {
			words = append(words, s+x, s+s[len(s)-1:]+x)
			if y, ok := stringsCutY(s); ok {
				words = append(words, y+x)
			}
		}
		for _, w := range words {
			forms := ql.Inflections(w)
			if forms[0] != w {
				t.Fatalf("Inflections(%q) = %q: not the word first", w, forms)
			}
			st := ql.Stem(w)
			for _, u := range words {
				same := len(st) >= ql.MinStem && ql.Stem(u) == st || u == w
				if slices.Contains(forms, u) != same {
					t.Errorf("Inflections(%q) = %q: holds %q %v, want %v (stems %q, %q)", w, forms, u, !same, same, st, ql.Stem(u))
				}
			}
		}
	}
}

func stringsCutY(s string) (string, bool) {
	if len(s) > 0 && s[len(s)-1] == 'y' {
		return s[:len(s)-1], true
	}
	return "", false
}
