package follow

import (
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_MCCrashFixtures: each real crash report is one fatal record
// with the report's Time, the Description and exception as text, the
// first stack (Caused by included), the thread and the system details.
func TestParse_MCCrashFixtures(t *testing.T) {
	f := func(file, name, text, stackHead, stackTail string, tm time.Time, data string) {
		t.Helper()
		data0 := readSample(t, "minecraft/"+file)
		p := mustParser(t, "auto")
		es := feed(p, data0)
		if p.Name() != "mccrash" {
			t.Errorf("%s: auto chose %q", file, p.Name())
		}
		if len(es) != 1 {
			t.Fatalf("%s: %d records, want 1", file, len(es))
		}
		r := es[0].Record
		if r.Level != oplog.LevelFatal || r.Name != name || r.Text != text || !r.Time.Equal(tm) || string(r.Data) != data {
			t.Errorf("%s: {%s %q %q %s %s}, want {fatal %q %q %s %s}", file, r.Level, r.Name, r.Text, r.Time, r.Data, name, text, tm, data)
		}
		if !strings.HasPrefix(r.Stack, stackHead) || !strings.HasSuffix(r.Stack, stackTail) {
			t.Errorf("%s: stack %q", file, r.Stack)
		}
		if es[0].End != int64(len(data0)) {
			t.Errorf("%s: End %d, want %d", file, es[0].End, len(data0))
		}
	}
	utc := time.UTC
	f("crash-2023-12-28_13.21.22-client.txt", "Render thread",
		"Tessellating block in world - Indium Renderer: java.lang.RuntimeException: java.lang.ClassCastException: class net.minecraft.class_3924 cannot be cast to class snownee.snow.block.entity.SnowCoveredBlockEntity (net.minecraft.class_3924 and snownee.snow.block.entity.SnowCoveredBlockEntity",
		"java.lang.RuntimeException: java.lang.ClassCastException", "\tat snownee.snow.block.ShapeCaches.get(ShapeCaches.java:40)\n\t... 20 more",
		time.Date(2023, 12, 28, 13, 21, 22, 0, utc),
		`{"minecraft":"1.20.1","java":"17.0.8, Microsoft","loader":"fabric-loader-0.15.1-1.20.1","mods":11}`)
	f("crash-2026-08-20_19.29.12-client.txt", "Render thread",
		"Rendering overlay: java.lang.RuntimeException: Sodium mod config not found",
		"java.lang.RuntimeException: Sodium mod config not found\n\tat TRANSFORMER/sodium", "BootstrapLauncher.main(BootstrapLauncher.java:69) [bootstraplauncher-2.0.2.jar:?] {}",
		time.Date(2026, 8, 20, 19, 29, 12, 0, utc),
		`{"minecraft":"1.21.1","java":"21.0.11, Eclipse Adoptium","loader":"neoforge-21.1.248","mods":5}`)
	f("crash-2020-05-15_22.03.56-server.txt", "",
		"Exception in server tick loop: net.minecraftforge.fml.common.MultipleModsErrored",
		"net.minecraftforge.fml.common.MultipleModsErrored\n    at net.minecraftforge.fml.common.Loader.sortModList(Loader.java:300)", "at java.lang.Thread.run(Unknown Source)",
		time.Date(2020, 5, 15, 22, 3, 56, 0, utc),
		`{"minecraft":"1.12.2","java":"1.8.0_201, Oracle Corporation"}`)
}

// TestParse_MCCrashTime: the Time line in the locales players have.
func TestParse_MCCrashTime(t *testing.T) {
	f := func(s string, want time.Time, ok bool) {
		t.Helper()
		got, gotOK := parseCrashTime(s, time.UTC)
		if gotOK != ok || !got.Equal(want) {
			t.Errorf("parseCrashTime(%q) = %s %v, want %s %v", s, got, gotOK, want, ok)
		}
	}
	d := func(y, mo, dd, h, m, s int) time.Time { return time.Date(y, time.Month(mo), dd, h, m, s, 0, time.UTC) }
	f("2022-11-08 22:07:23", d(2022, 11, 8, 22, 7, 23), true)
	f("2020-05-15 22:03:56 CST", d(2020, 5, 15, 22, 3, 56), true)
	f("8/15/21, 1:59 PM", d(2021, 8, 15, 13, 59, 0), true)
	f("12/26/20 1:05 PM", d(2020, 12, 26, 13, 5, 0), true)
	f("9/16/20 6:09 PM", d(2020, 9, 16, 18, 9, 0), true)
	f("7/19/22, 10:07 PM", d(2022, 7, 19, 22, 7, 0), true)
	f("08/07/20 19:28", d(2020, 7, 8, 19, 28, 0), true)
	f("22.12.2021, 19:22", d(2021, 12, 22, 19, 22, 0), true)
	f("26.06.20 11:23", d(2020, 6, 26, 11, 23, 0), true)
	f("12/1/20 12:30 AM", d(2020, 12, 1, 0, 30, 0), true)
	f("yesterday", time.Time{}, false)
	f("13/13/20 10:00", time.Time{}, false)
}

// TestParse_MCCrashCases: hand-written shapes: two reports in one file,
// a report entered mid-way, a report without a stack.
func TestParse_MCCrashCases(t *testing.T) {
	f := func(input string, want ...string) {
		t.Helper()
		es := parse(t, "mccrash", input)
		var got []string
		for _, e := range es {
			got = append(got, e.Record.Level.String()+" "+e.Record.Text+" | "+e.Record.Stack)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("parse(%q) =\n%s\nwant\n%s", input, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	f("---- Minecraft Crash Report ----\nTime: 1/2/21 3:04 PM\nDescription: Ticking entity\n\njava.lang.NullPointerException\n\tat a.B.c(B.java:1)\n\n-- Head --\n",
		"fatal Ticking entity: java.lang.NullPointerException | java.lang.NullPointerException\n\tat a.B.c(B.java:1)")
	f("---- Minecraft Crash Report ----\nDescription: A\n\nx.YException: one\n\tat a.B.c(B.java:1)\n"+
		"---- Minecraft Crash Report ----\nDescription: B\n\nx.ZError: two\n\tat a.B.d(B.java:2)\nCaused by: x.W: w\n\tat a.B.e(B.java:3)\n\t... 1 more\n",
		"fatal A: x.YException: one | x.YException: one\n\tat a.B.c(B.java:1)",
		"fatal B: x.ZError: two | x.ZError: two\n\tat a.B.d(B.java:2)\nCaused by: x.W: w\n\tat a.B.e(B.java:3)\n\t... 1 more")
	f("Description: Mod loading failures have occurred\n\nnet.x.ModLoadingCrashException: Mod loading has failed\n\n\nA detailed walkthrough of the error\n-- Head --\nStacktrace:\n\tat a.B.c(B.java:1)\n",
		"fatal Mod loading failures have occurred: net.x.ModLoadingCrashException: Mod loading has failed | ")
	f("---- Minecraft Crash Report ----\nDescription: Exception in server tick loop\n\nMissing Mods:\n    unknown : need any\n\nnet.x.MultipleModsErrored\n    at a.B.c(B.java:1)\n",
		"fatal Exception in server tick loop: net.x.MultipleModsErrored | net.x.MultipleModsErrored\n    at a.B.c(B.java:1)")
}

// TestParse_MCCrashGrouping: the same crash from its crash report and from
// latest.log (error record, report printed through STDOUT) is one crash;
// different crashes are apart. The EventBus error's head is its exception.
func TestParse_MCCrashGrouping(t *testing.T) {
	type rec struct {
		label string
		r     oplog.Record
	}
	var recs []rec
	add := func(file, parser string, keep func(oplog.Record) bool) {
		for _, e := range feed(mustParser(t, parser), readSample(t, "minecraft/"+file)) {
			if e.Record.Stack != "" && e.Record.Level >= oplog.LevelError && keep(e.Record) {
				recs = append(recs, rec{file + ": " + e.Record.Text, e.Record})
			}
		}
	}
	all := func(oplog.Record) bool { return true }
	add("crash-2023-12-28_13.21.22-client.txt", "auto", all)
	add("crash-2026-08-20_19.29.12-client.txt", "auto", all)
	add("crash-2020-05-15_22.03.56-server.txt", "auto", all)
	add("latest-neoforge-1.21.1.log", "auto", all)
	add("latest-forge-1.12.2.log", "auto", all)
	// The crash each record belongs to, by hand.
	crashOf := func(r oplog.Record) string {
		switch {
		case strings.Contains(r.Stack, "Sodium mod config not found"):
			return "sodium-config"
		case strings.Contains(r.Stack, "VeilForgeClientEvents"):
			return "veil-npe"
		case strings.Contains(r.Stack, "MultipleModsErrored"):
			return "multiple-mods"
		case strings.Contains(r.Stack, "ShapeCaches"):
			return "snow-cce"
		}
		return "other:" + r.Text
	}
	tp, fp, fn, tn := 0, 0, 0, 0
	for i := range recs {
		for j := i + 1; j < len(recs); j++ {
			same := crashOf(recs[i].r) == crashOf(recs[j].r)
			si, _, _ := crash.Signature(recs[i].r.Stack)
			sj, _, _ := crash.Signature(recs[j].r.Stack)
			switch {
			case same && si == sj:
				tp++
			case same:
				fn++
				t.Logf("apart, want together: %q / %q", recs[i].label, recs[j].label)
			case si == sj:
				fp++
				t.Errorf("together, want apart: %q / %q", recs[i].label, recs[j].label)
			default:
				tn++
			}
		}
	}
	t.Logf("%d records; pairs together %d, wrongly together %d, wrongly apart %d, apart %d", len(recs), tp, fp, fn, tn)
	// The Sodium crash: report file, its copy in latest.log and the
	// Caused by in latest.log's error differ in head; the file and the
	// copy must merge.
	if tp < 1 {
		t.Errorf("no pair merged")
	}
	for _, r := range recs {
		if strings.Contains(r.r.Text, "firing event") {
			if _, title, _ := crash.Signature(r.r.Stack); !strings.HasPrefix(title, "NullPointerException in VeilForgeClientEvents") {
				t.Errorf("EventBus error titled %q", title)
			}
		}
	}
}
