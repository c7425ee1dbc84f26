package mcptools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipSummary_KeepsTheFrame: a long crash title in log_stats and
// compare_runs is cut in its middle, so that it keeps its start (the
// message) and its end (the frame's file and line); a short one is whole.
func TestClipSummary_KeepsTheFrame(t *testing.T) {
	title := "TypeError: Cannot read properties of undefined (reading 'hp') in applyDamage (/home/dev/work/node/game.js:4:5)"
	got := clipSummary(title)
	if utf8.RuneCountInString(got) != summaryTextRunes || !strings.HasPrefix(got, "TypeError: Cannot read properties") ||
		!strings.HasSuffix(got, "/node/game.js:4:5)") || !strings.Contains(got, "…") {
		t.Errorf("clipSummary(%q) = %q", title, got)
	}
	if short := "KeyError: 'sword' in lookup (game.py:7)"; clipSummary(short) != short {
		t.Errorf("a short title clipped: %q", clipSummary(short))
	}
}
