package main

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/follow"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

func TestParseFollow_Dir(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	mc, existing := t.TempDir(), t.TempDir()
	f := func(spec, path, glob, parser string) {
		t.Helper()
		got, err := parseFollow(spec)
		if err != nil || got.Path != path || got.Glob != glob || got.Parser != parser {
			t.Errorf("%s: %+v, %v; want path %q, glob %q, parser %q", spec, got, err, path, glob, parser)
		}
	}
	crashes := filepath.Join(mc, "crash-reports")
	f("minecraft:Crashes=auto:"+mc, crashes, follow.McCrashGlob, "mccrash")
	f("log4j:ServerCrash=auto:"+mc, crashes, follow.McCrashGlob, "mccrash")
	f("minecraft:Server=auto:"+mc, filepath.Join(mc, "logs", "latest.log"), "", "minecraft")
	f("mccrash:Crashes="+crashes+"/", crashes+"/", follow.McCrashGlob, "mccrash") // need not exist yet
	f("mccrash:Crashes="+existing, existing, follow.McCrashGlob, "mccrash")
	f("generic:Logs="+existing, existing, "*", "generic")
	f("mccrash:One="+filepath.Join(existing, "crash.txt"), filepath.Join(existing, "crash.txt"), "", "mccrash")
}

// TestServe_FollowCrashes: serve follows a Minecraft instance's
// crash-reports directory found by auto: the report present before the
// first start and one written later are each one fatal record with the
// report's time, store_info's followers (/metrics) show the directory as
// one follower, and a restart stores nothing twice.
func TestServe_FollowCrashes(t *testing.T) {
	mc, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
	crashes := filepath.Join(mc, "crash-reports")
	copyCrash := func(name string) {
		t.Helper()
		b, err := os.ReadFile("../../follow/testdata/minecraft/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(crashes, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crashes, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyCrash("crash-2020-05-15_22.03.56-server.txt")
	args := []string{"--addr", "127.0.0.1:0", "--follow", "minecraft:Crashes=auto:" + mc}
	base, stdout, stop := startServe(t, data, args...)
	if want := "follow:   mccrash:Crashes=" + crashes + " (each crash-*.txt) (auto: crash-reports/"; !strings.Contains(stdout.String(), want) {
		t.Errorf("serve did not print %q:\n%s", want, stdout)
	}
	token := readToken(t, data)
	copyCrash("crash-2023-12-28_13.21.22-client.txt")
	recs := waitRecords(t, base, token, "Crashes", 2) // newest first
	for i, want := range []string{"Tessellating block in world", "Exception in server tick loop"} {
		if r := recs[i]; !strings.HasPrefix(r["text"].(string), want) || r["level"] != "fatal" || r["stack"] == "" {
			t.Errorf("record %d: %v, want %q", i, r, want)
		}
	}
	if recs[1]["time"] != "2020-05-15T22:03:56Z" {
		t.Errorf("time %v, want the report's", recs[1]["time"])
	}
	// The follower counts a record once its append returned: a moment after
	// the record can be read.
	want := `mcplogd_follower_records_stored_total{follower="Crashes"} 2`
	logtest.Eventually(t, 10*time.Second, "/metrics counting the 2 records stored", func() bool {
		req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(b), want)
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	base, _, stop = startServe(t, data, args...)
	time.Sleep(600 * time.Millisecond) // two scans: time to read them again, were they
	waitRecords(t, base, token, "Crashes", 2)
	copyCrash("crash-2026-08-20_19.29.12-client.txt")
	waitRecords(t, base, token, "Crashes", 3)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestCrashHint: a Minecraft log found by auto without a follow of the
// crash reports logs a hint; with one, or with a path given, none.
func TestCrashHint(t *testing.T) {
	f := func(want bool, specs ...followSpec) {
		t.Helper()
		var b strings.Builder
		crashHint(specs, slog.New(slog.NewTextHandler(&b, nil)))
		if got := strings.Contains(b.String(), "minecraft:Crashes=auto"); got != want {
			t.Errorf("%v: hint %q", specs, b.String())
		}
	}
	server := followSpec{Name: "Server", Parser: "minecraft", Path: "logs/latest.log", Why: "auto"}
	f(true, server)
	f(false, server, followSpec{Name: "Crashes", Parser: "mccrash", Path: "crash-reports", Glob: follow.McCrashGlob})
	f(false, followSpec{Name: "Server", Parser: "log4j", Path: "logs/latest.log"})
	f(false, followSpec{Name: "Editor", Parser: "unity", Path: "Editor.log", Why: "auto"})
}
