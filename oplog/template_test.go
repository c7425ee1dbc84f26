package oplog_test

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

func TestTemplate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Snapshot 1234 sent to peer 10.0.0.7:7777", "Snapshot <N> sent to peer <IP>"},
		{"Snapshot 9 sent to peer 192.168.1.20", "Snapshot <N> sent to peer <IP>"},
		{"Spawned Enemy_42 at (12.5, -3.25, 0)", "Spawned Enemy_<N> at (<N>, <N>, <N>)"},
		{"player42 joined", "player<N> joined"},
		{"NullReferenceException at 0x7ffd3a2b in Foo", "NullReferenceException at <HEX> in Foo"},
		{"request 3f2a9c1b7d done", "request <HEX> done"},
		{"session 123e4567-e89b-12d3-a456-426614174000 closed", "session <UUID> closed"},
		{"Loaded res://scripts/player.gd:42 in 3ms", "Loaded <PATH> in <N>ms"},
		{"Cannot open /home/me/game/save.dat.", "Cannot open <PATH>."},
		{`Could not load C:\Users\me\AppData\x.txt`, "Could not load <PATH>"},
		{"mods/core/init.lua:12: attempt to index nil", "<PATH>: attempt to index nil"},
		{`Unknown item "iron_sword_3" in slot 4`, `Unknown item "<S>" in slot <N>`},
		{"Can't find 'door key' anywhere", "Can't find '<S>' anywhere"},
		{"don't   panic\twe are   fine", "don't panic we are fine"},
		{"first line 1\nsecond line 2", "first line <N>"},
		{"v1.2 and 1e9 bytes", "v<N> and <N> bytes"},
		{"added cafebabe deadline", "added cafebabe deadline"},
		{"", ""},
	} {
		if got := oplog.Template(tc.in); got != tc.want {
			t.Errorf("Template(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTemplateID(t *testing.T) {
	a := oplog.TemplateID(oplog.Template("Snapshot 1 sent to peer 10.0.0.1"))
	b := oplog.TemplateID(oplog.Template("Snapshot 77 sent to peer 10.0.0.2:9"))
	c := oplog.TemplateID(oplog.Template("Snapshot 1 received from peer 10.0.0.1"))
	if a != b || a == c || len(a) != 12 {
		t.Errorf("ids %q %q %q: want the first two equal, the third different, 12 hex digits", a, b, c)
	}
	// The ID is a fixed function of the template: a change of hash or
	// width would split every store's templates from the studio's.
	if got := oplog.TemplateID("Snapshot <N> sent to peer <IP>"); got != a {
		t.Errorf("TemplateID = %q, want %q", got, a)
	}
}

func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"Snapshot 12 sent to 1.2.3.4:5", `"a" 'b' 0x1`, "/a/b c:\\d 123e4567-e89b-12d3-a456-426614174000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl := oplog.Template(s)
		if utf8.ValidString(s) && !utf8.ValidString(tmpl) {
			t.Fatalf("template %q of valid UTF-8 %q is not", tmpl, s)
		}
		if len(tmpl) > oplog.MaxTemplateInput {
			t.Fatalf("template of %d bytes", len(tmpl))
		}
	})
}

// TestTemplateID_FNV: the ID is the top 48 bits of the template's 64-bit
// FNV-1a hash, in 12 lower-case hex digits, whatever computes it.
func TestTemplateID_FNV(t *testing.T) {
	for _, s := range []string{"", "a", "Snapshot <N> sent to peer <IP>", "Größe <N> Fehler", strings.Repeat("x<N> ", 300)} {
		h := fnv.New64a()
		_, _ = h.Write([]byte(s))
		want := fmt.Sprintf("%012x", h.Sum64()>>16)
		if got := oplog.TemplateID(s); got != want || !oplog.IsTemplateID(got) {
			t.Errorf("TemplateID(%q) = %s, want %s", s, got, want)
		}
	}
	if got := oplog.TextTemplateID(" \t"); got != "" {
		t.Errorf("TextTemplateID of white space = %q, want none", got)
	}
}

func TestTemplate_IPv4(t *testing.T) {
	for in, want := range map[string]string{
		"peer 10.0.0.7": "peer <IP>", "peer 10.0.0.7:80": "peer <IP>", "v 1.2.3": "v <N>.<N>",
		"v 1.2.3.4.5": "v <N>.<N>.<N>", "a 1..2.3": "a <N>..<N>", "n 1234.1.1.1": "n <N>.<N>",
	} {
		if got := oplog.Template(in); got != want {
			t.Errorf("Template(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTemplate_LetterUUID: a UUID of letters only is one too.
func TestTemplate_LetterUUID(t *testing.T) {
	if got := oplog.Template("id abcdefab-abcd-abcd-abcd-abcdefabcdef, cafe"); got != "id <UUID>, cafe" {
		t.Errorf("Template = %q", got)
	}
}

// TestTemplate_Long: a first line past MaxTemplateInput is cut there, at
// a character, whatever follows it.
func TestTemplate_Long(t *testing.T) {
	long := strings.Repeat("word ", 204) + "wordé" // é starts at byte 1024
	for _, in := range []string{long, long + "tail\nnext", long + "\nnext", strings.Repeat("ab ", 400) + "\n1"} {
		got, want := oplog.Template(in), strings.TrimSpace(oplog.ClipBytes(strings.SplitN(in, "\n", 2)[0], oplog.MaxTemplateInput))
		if got != want {
			t.Errorf("Template of %d bytes = …%q, want …%q", len(in), got[max(0, len(got)-20):], want[max(0, len(want)-20):])
		}
	}
}
