package datadir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUserDir(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name, goos string
		env        func(string) string
		want       string // "": an error naming wantVar
		wantVar    string
	}{
		{"LinuxXDG", "linux", env("HOME", "/home/me", "XDG_STATE_HOME", "/st"), "/st/mcplogd", ""},
		{"LinuxHome", "linux", env("HOME", "/home/me"), "/home/me/.local/state/mcplogd", ""},
		{"LinuxRelativeXDG", "linux", env("HOME", "/home/me", "XDG_STATE_HOME", "st"), "/home/me/.local/state/mcplogd", ""},
		{"LinuxNoHome", "linux", env(), "", "$HOME"},
		{"Darwin", "darwin", env("HOME", "/Users/me", "XDG_STATE_HOME", "/st"), "/Users/me/Library/Application Support/mcplogd", ""},
		{"Windows", "windows", env("LOCALAPPDATA", `C:\Users\me\AppData\Local`), `C:\Users\me\AppData\Local\mcplogd`, ""},
		{"WindowsNone", "windows", env("HOME", "/home/me"), "", "$LOCALAPPDATA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := userDir(tc.goos, tc.env)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantVar) || !strings.Contains(err.Error(), "--data") {
					t.Fatalf("got %q, %v; want an error naming %s and --data", got, err, tc.wantVar)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestRegistry: entries come back newest first, a restart replaces its
// directory's entry, and Remove with another pid leaves the entry of the
// server that replaced it.
func TestRegistry(t *testing.T) {
	r := Registry{Path: filepath.Join(t.TempDir(), "servers")}
	if es, err := r.Entries(); err != nil || len(es) != 0 {
		t.Fatalf("a missing registry: %v, %v", es, err)
	}
	now := time.Now().UTC()
	for _, e := range []Entry{
		{Dir: "/a", Addr: "127.0.0.1:1", PID: 10, Started: now.Add(-time.Hour)},
		{Dir: "/b", Addr: "127.0.0.1:2", PID: 20, Started: now.Add(-time.Minute)},
		{Dir: "/a", Addr: "127.0.0.1:3", PID: 30, Started: now},
	} {
		if err := r.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(r.Path, "junk.json"), []byte("{"), 0o600))
	es, err := r.Entries()
	if err != nil || len(es) != 2 || es[0].PID != 30 || es[1].PID != 20 {
		t.Fatalf("entries: %+v, %v", es, err)
	}
	must(r.Remove("/a", 10)) // the server replaced: its late stop removes nothing
	must(r.Remove("/b", 0))
	if es, _ := r.Entries(); len(es) != 1 || es[0].Dir != "/a" {
		t.Fatalf("after removes: %+v", es)
	}
	must(r.Remove("/a", 30))
	if es, _ := r.Entries(); len(es) != 0 {
		t.Fatalf("after the last remove: %+v", es)
	}
}

// TestDir_Token_FirstTogether: processes that read a new directory's
// token at once agree on one.
func TestDir_Token_FirstTogether(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	toks := make([]string, 8)
	errs := make([]error, 8)
	done := make(chan int)
	for i := range toks {
		go func() { toks[i], errs[i] = d.Token(); done <- i }()
	}
	for range toks {
		<-done
	}
	for i := range toks {
		if errs[i] != nil || toks[i] != toks[0] || !ValidToken(toks[i]) {
			t.Fatalf("tokens %q, errors %v", toks, errs)
		}
	}
}
