package follow

import (
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

func TestParse_UnrealLines(t *testing.T) {
	f := func(line string, level oplog.Level, name, text, data string, tm time.Time) {
		t.Helper()
		r, ok := parseOne(t, "unreal", line)
		if !ok {
			return
		}
		if r.Level != level || r.Name != name || r.Text != text || string(r.Data) != data || !r.Time.Equal(tm) {
			t.Errorf("%q:\n got %s name=%q text=%q data=%s time=%v\nwant %s name=%q text=%q data=%s time=%v",
				line, r.Level, r.Name, r.Text, r.Data, r.Time, level, name, text, data, tm)
		}
	}
	at := time.Date(2019, 5, 3, 19, 2, 32, 939e6, time.UTC)
	// The line: time, frame, category, verbosity.
	f("[2019.05.03-19.02.32:939][  0]LogWindows: Error: === Critical error: ===", oplog.LevelFatal, "LogWindows",
		"=== Critical error: ===", `{"frame":0}`, at)
	f("[2019.05.03-19.02.32:939][123]LogTemp: Warning: low fuel", oplog.LevelWarn, "LogTemp", "low fuel", `{"frame":123}`, at)
	f("[2019.05.03-19.02.32:939][  7]LogTemp: Display: shown", oplog.LevelInfo, "LogTemp", "shown", `{"frame":7}`, at)
	f("[2019.05.03-19.02.32:939][  7]LogTemp: Log: plain", oplog.LevelInfo, "LogTemp", "plain", `{"frame":7}`, at)
	f("[2019.05.03-19.02.32:939][  7]LogNet: Verbose: tick", oplog.LevelDebug, "LogNet", "tick", `{"frame":7}`, at)
	f("[2019.05.03-19.02.32:939][  7]LogNet: VeryVerbose: bits", oplog.LevelDebug, "LogNet", "bits", `{"frame":7}`, at)
	f("[2019.05.03-19.02.32:939][  7]LogCore: Fatal: out of memory", oplog.LevelFatal, "LogCore", "out of memory", `{"frame":7}`, at)
	f("[2019.05.03-19.02.32:939][  7]LogTemp: MulticastTest: WorldNetMode=1", oplog.LevelInfo, "LogTemp",
		"MulticastTest: WorldNetMode=1", `{"frame":7}`, at)
	// Before the timestamps start: no time, the same fields.
	f("LogInit: Display: Running engine for game: PCIteratorBug", oplog.LevelInfo, "LogInit", "Running engine for game: PCIteratorBug", "", time.Time{})
	f("LogWindows: Error: Failed to load 'aqProf.dll'", oplog.LevelError, "LogWindows", "Failed to load 'aqProf.dll'", "", time.Time{})
	f("LogInit: Build: ++UE4+Release-4.26-CL-15973114", oplog.LevelInfo, "LogInit", "Build: ++UE4+Release-4.26-CL-15973114", "", time.Time{})
	f("Log file open, 07/12/21 13:22:13", oplog.LevelInfo, "", "Log file open, 07/12/21 13:22:13", "", time.Time{})
	f("\ufeffLog file open, 07/12/21 13:22:13", oplog.LevelInfo, "", "Log file open, 07/12/21 13:22:13", "", time.Time{})
}

// TestParse_UnrealBlocks: a critical error or ensure is one record whatever
// the platform's shape; what follows it is not part of it.
func TestParse_UnrealBlocks(t *testing.T) {
	f := func(name, text string, n int, level oplog.Level, head string, stackLines int) {
		t.Helper()
		es := parse(t, "unreal", text)
		if len(es) != n {
			t.Fatalf("%s: %d entries, want %d: %+v", name, len(es), n, es)
		}
		r := es[0].Record
		lines := 0
		if r.Stack != "" {
			lines = strings.Count(r.Stack, "\n") + 1
		}
		if r.Level != level || r.Text != head || lines != stackLines {
			t.Errorf("%s: %s %q with %d stack lines, want %s %q with %d:\n%s", name, r.Level, r.Text, lines, level, head, stackLines, r.Stack)
		}
	}
	f("Windows", "[2026.01.01-12.00.44:629][262]LogWindows: Error: === Critical error: ===\n"+
		"[2026.01.01-12.00.44:629][262]LogWindows: Error: \n"+
		"[2026.01.01-12.00.44:629][262]LogWindows: Error: Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x0000000000000000\n"+
		"[2026.01.01-12.00.44:629][262]LogWindows: Error: [Callstack] 0x00007ffd12345999 UnrealEditor-Engine.dll!UWorld::Tick() []\n"+
		"[2026.01.01-12.00.44:640][262]LogExit: Executing StaticShutdownAfterError\n", 2, oplog.LevelFatal,
		"Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x0000000000000000", 2)
	f("WindowsNoPrefix", "LogWindows: Error: === Critical error: ===\nLogWindows: Error: \n"+
		"LogWindows: Error: Fatal error!\nLogWindows: Error: [Callstack] 0x00007ffd12345999 UnrealEditor-Engine.dll!UWorld::Tick() []\n", 1,
		oplog.LevelFatal, "Fatal error!", 2)
	// UE 5's crash: "Fatal error!" first, what it was on the next line.
	f("FatalErrorThenException", "LogWindows: Error: === Critical error: ===\nLogWindows: Error: \nLogWindows: Error: Fatal error!\nLogWindows: Error: \n"+
		"LogWindows: Error: Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x00000000000003a8\nLogWindows: Error: \n"+
		"LogWindows: Error: [Callstack] 0x00007ff6a1b2c3d4 MyGame.exe!AEnemySpawner::SpawnWave() [D:\\Projects\\MyGame\\Source\\MyGame\\EnemySpawner.cpp:88]\n", 1,
		oplog.LevelFatal, "Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x00000000000003a8", 3)
	// Conan Exiles writes no space after the category's colon (a real
	// log, published in a mod's issue tracker).
	f("NoSpace", "[2023.02.13-10.20.26:870][ 48]LogWindows:Error: === Critical error: ===\n"+
		"[2023.02.13-10.20.26:870][ 48]LogWindows:Error: \n"+
		"[2023.02.13-10.20.26:870][ 48]LogWindows:Error: Fatal error: [File:C:\\B\\tech_exiles\\code\\Engine\\Source\\Runtime\\CoreUObject\\Private\\UObject\\ScriptCore.cpp] [Line: 1137] \n"+
		"[2023.02.13-10.20.26:870][ 48]LogWindows:Error: Failed to find function OpenContextual in Tot_CommonLibrary_C /Game/ModsShared/SudoExile/TotLib/Tot_CommonLibrary.Default__Tot_CommonLibrary_C\n"+
		"[2023.02.13-10.20.26:870][ 48]LogWindows:Error: \n"+
		"[2023.02.13-10.20.26:870][ 48]LogWindows:Error: \n"+
		"[2023.02.13-10.20.26:870][ 48]LogWindows:Error: !0x0000000000000000\n"+
		"[2023.02.13-10.20.26:870][ 48]LogWindows:Error: \n"+
		"[2023.02.13-10.20.26:900][ 48]LogExit: Executing StaticShutdownAfterError\n", 2, oplog.LevelFatal,
		"Fatal error: Failed to find function OpenContextual in Tot_CommonLibrary_C /Game/ModsShared/SudoExile/TotLib/Tot_CommonLibrary.Default__Tot_CommonLibrary_C", 3)
	f("Mac", "[2026.01.01-12.18.52:461][380]LogMac: === Critical error: ===\nSIGBUS: bus error\n\n"+
		"[2026.01.01-12.18.52:461][380]LogMac: 0x0e3e90f0 libUnrealEditor-Engine.dylib!UWorld::Tick(ELevelTick, float)   [UnknownFile]) \n"+
		"0x04e011d8 UnrealEditor!FEngineLoop::Tick()   [UnknownFile]) \n"+
		"[2026.01.01-12.18.52:470][380]LogExit: Executing StaticShutdownAfterError\n", 2, oplog.LevelFatal, "SIGBUS: bus error", 3)
	f("Ensure", "[2026.01.01-12.00.44:629][262]LogOutputDevice: Error: === Handled ensure: ===\n"+
		"[2026.01.01-12.00.44:629][262]LogOutputDevice: Error: Ensure condition failed: Foo [File:X.cpp] [Line: 3]\n"+
		"[2026.01.01-12.00.44:629][262]LogOutputDevice: Error: [Callstack] 0x00007ffa1a8b65af UnrealEditor-SlateCore.dll!UnknownFunction []\n"+
		"[2026.01.01-12.00.44:630][262]LogStats:                SubmitErrorReport -  0.000 s\n", 2, oplog.LevelError,
		"Ensure condition failed: Foo [File:X.cpp] [Line: 3]", 2)
	f("NotABlock", "[2026.01.01-12.00.44:629][262]LogTemp: Warning: Critical error in my game\n"+
		"[2026.01.01-12.00.44:629][262]LogTemp: Warning: again\n", 2, oplog.LevelWarn, "Critical error in my game", 0)
}

func TestParse_UnrealUE4(t *testing.T) {
	data, es := parseSample(t, "unreal/pciterator_ue4.log", "unreal", 19,
		map[oplog.Level]int{oplog.LevelInfo: 15, oplog.LevelWarn: 2, oplog.LevelFatal: 2})
	ms := func(h, m, s, ms int) time.Time { return time.Date(2021, 7, 12, h, m, s, ms*1e6, time.UTC) }
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, name: "LogTemp", time: ms(20, 22, 18, 495), text: "##################################################", data: `{"frame":823}`},
		3: {level: oplog.LevelInfo, name: "LogTemp", time: ms(20, 22, 18, 497), text: "  Found ServerAll Player Controller PlayerController_0"},
		11: {level: oplog.LevelWarn, name: "LogOutputDevice", time: ms(20, 22, 18, 549), text: "Script Stack (1 frames):",
			stack: ptr("MyGameState.MulticastTest"), end: lineEnd(t, data, "MyGameState.MulticastTest\n", 1)},
		13: {level: oplog.LevelFatal, name: "LogWindows", time: ms(20, 22, 32, 544), data: `{"frame":829}`,
			text: `Assertion failed: LocalOnly || InWorld->GetNetMode() != NM_Client [File:F:\UnrealEngineBugs\PCIteratorBug\Source\PCIteratorBug\FixedIterators.h] [Line: 13]`,
			end:  lineEnd(t, data, "MyGameState.cpp:36]", 0)},
		18: {level: oplog.LevelFatal, name: "LogWindows", time: ms(20, 43, 3, 387),
			text: `Assertion failed: !LocalOnly || InWorld->GetNetMode() != NM_Client [File:C:\UnrealEngine\UE_4.26\Engine\Source\Runtime\Engine\Public\UnrealEngine.h] [Line: 107]`},
	})
	st := es[13].Record.Stack
	if n := strings.Count(st, "\n[Callstack] 0x"); n != 7 || !strings.HasPrefix(st, "Assertion failed: LocalOnly") || strings.Contains(st, "LogWindows") {
		t.Errorf("critical error's stack (%d frames):\n%s", n, st)
	}
}

func TestParse_UnrealUE5(t *testing.T) {
	data, es := parseSample(t, "unreal/ue5_access_violation.log", "unreal", 15,
		map[oplog.Level]int{oplog.LevelInfo: 12, oplog.LevelWarn: 2, oplog.LevelFatal: 1})
	at := time.Date(2026, 3, 21, 9, 17, 53, 742e6, time.UTC)
	checkEntries(t, es, map[int]want{
		7: {level: oplog.LevelInfo, name: "LogContentValidation", time: time.Date(2026, 3, 21, 9, 17, 47, 987e6, time.UTC),
			text: "Starting to validate 3 assets (0 associated objects such as actors)", data: `{"frame":3}`},
		8: {level: oplog.LevelInfo, name: "AssetCheck", time: time.Date(2026, 3, 21, 9, 17, 47, 987e6, time.UTC),
			text: "/Game/CityPark/SnowSystem/RVT_MVP/M_RVT_DebugWriter_MVP Validating asset"},
		9: {level: oplog.LevelWarn, name: "LogHttp", time: at, text: "HTTP request timed out after 3.00 seconds URL=https://www.google.com/generate_204"},
		10: {level: oplog.LevelFatal, name: "LogWindows", time: at, text: "Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x0000000000000000",
			end: lineEnd(t, data, "KERNEL32.DLL!UnknownFunction []", 1)},
		11: {level: oplog.LevelInfo, name: "LogExit", time: time.Date(2026, 3, 21, 9, 17, 53, 751e6, time.UTC), text: "Executing StaticShutdownAfterError"},
	})
	if n := strings.Count(es[10].Record.Stack, "[Callstack]"); n != 10 {
		t.Errorf("critical error's stack has %d frames, want 10:\n%s", n, es[10].Record.Stack)
	}
}

// TestParse_UnrealAuto: the fixtures are detected from their first line;
// the lines before the timestamps start are detected too.
func TestParse_UnrealAuto(t *testing.T) {
	for _, sample := range []string{"unreal/pciterator_ue4.log", "unreal/ue5_access_violation.log", "unreal/ue5_hlod_assert.log"} {
		p := mustParser(t, "auto")
		got := feed(p, readSample(t, sample))
		want := feed(mustParser(t, "unreal"), readSample(t, sample))
		if p.Name() != "unreal" || len(got) != len(want) {
			t.Errorf("%s: auto chose %s with %d records, want unreal with %d", sample, p.Name(), len(got), len(want))
		}
	}
	p := mustParser(t, "auto")
	feed(p, []byte("Log file open, 07/12/21 13:22:13\nLogWindows: Failed to load 'aqProf.dll' (GetLastError=126)\n"))
	if p.Name() != "unreal" {
		t.Errorf("an Unreal log's first lines: auto chose %s", p.Name())
	}
}

// TestParse_UnrealCrashes: the callstacks' frames are read; different
// crashes (two asserts of one game, an access violation, an engine assert)
// get different signatures and titles from their own frames.
func TestParse_UnrealCrashes(t *testing.T) {
	var sigs, labels, titles []string
	for _, sample := range []string{"unreal/pciterator_ue4.log", "unreal/ue5_access_violation.log", "unreal/ue5_hlod_assert.log"} {
		for _, e := range feed(mustParser(t, "unreal"), readSample(t, sample)) {
			if e.Record.Level < oplog.LevelError {
				continue
			}
			sig, title, _ := crash.Signature(e.Record.Stack)
			sigs, titles = append(sigs, sig), append(titles, title)
			labels = append(labels, sample+" "+e.Record.Text)
		}
	}
	want := []string{
		"Assertion failed: LocalOnly || InWorld->GetNetMode() != NM_Client in AMyGameState.MulticastTest_Implementation",
		"Assertion failed: !LocalOnly || InWorld->GetNetMode() != NM_Client in AMyGameState.MulticastTest_Implementation",
		"Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address N in UnrealEditor-Engine!UnknownFunction",
		"Assertion failed: Pair != nullptr in ALandscapeProxy.ExportToRawMeshDataCopyNew",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Errorf("titles:\n%s\nwant\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
	checkPairs(t, sigs, labels)
}

// checkPairs checks signatures against the grouping labels say: records
// with the same label are the same crash. It logs precision and recall
// over pairs of records and fails unless both are 1.
func checkPairs(t *testing.T, sigs, labels []string) {
	t.Helper()
	tp, tn, fp, fn := 0, 0, 0, 0
	for i := range sigs {
		for j := i + 1; j < len(sigs); j++ {
			same, merged := labels[i] == labels[j], sigs[i] == sigs[j]
			switch {
			case same && merged:
				tp++
			case !same && !merged:
				tn++
			case merged:
				fp++
				t.Errorf("%q and %q merged", labels[i], labels[j])
			case same:
				fn++
				t.Errorf("%q split", labels[i])
			}
		}
	}
	t.Logf("%d records: pairs merged rightly %d, kept apart rightly %d, merged wrongly %d, split wrongly %d",
		len(sigs), tp, tn, fp, fn)
}

// BenchmarkParseUnreal feeds the unreal parser its UE4 fixture round and
// round, as BenchmarkParse does the others: ns/op is ns/line.
func BenchmarkParseUnreal(b *testing.B) {
	lines := strings.SplitAfter(string(readSample(b, "unreal/pciterator_ue4.log")), "\n")
	p := mustParser(b, "unreal")
	b.ReportAllocs()
	var off int64
	for i := 0; b.Loop(); i++ {
		l := lines[i%len(lines)]
		off += int64(len(l))
		p.Line(strings.TrimSuffix(l, "\n"), off)
	}
	p.Flush()
}
