package crash

import "strings"

// unrealFrame reads a frame of an Unreal Engine callstack, as Windows
// writes it, "[Callstack] 0x00007ff8c210d066 UE4Editor-Core.dll!ReportAssert()
// [D:\...\WindowsPlatformCrashContext.cpp:1616]", or macOS and Linux,
// "0x0e3e90f0 libUnrealEditor-Engine.dylib!UWorld::Tick(ELevelTick, float)
// [UnknownFile])". The frame is the function without its arguments, or,
// when the symbol is unknown ("KERNELBASE.dll!UnknownFunction []"), the
// module without its extension and "!UnknownFunction", so that crashes in
// different modules stay apart.
func unrealFrame(s string) (string, bool) {
	s = strings.TrimPrefix(s, "[Callstack] ")
	addr, rest, ok := strings.Cut(s, " ")
	if !ok || len(addr) < 3 || !isHexStart(addr, 0) || skipHex(addr, 0) != len(addr) {
		return "", false
	}
	module, fn, ok := strings.Cut(strings.TrimLeft(rest, " "), "!")
	if !ok || module == "" || strings.ContainsAny(module, " \t") {
		return "", false
	}
	if i := strings.IndexByte(fn, '('); i >= 0 {
		fn = fn[:i]
	} else if i := strings.IndexAny(fn, " \t["); i >= 0 {
		fn = fn[:i]
	}
	if unrealMachinery[fn] || fn == "UnknownFunction" && strings.EqualFold(module, "KERNELBASE.dll") {
		return "", true // the assert and exception machinery above the crash
	}
	if fn == "" || fn == "UnknownFunction" {
		if i := strings.LastIndexByte(module, '.'); i > 0 {
			module = module[:i]
		}
		return normalizeName(strings.TrimPrefix(module, "lib")) + "!UnknownFunction", true
	}
	return normalizeName(fn), true
}

// unrealTitle is an Unreal callstack's frame as a title names it: the
// function and its source, "AEnemySpawner::SpawnWave()
// [D:\MyGame\Source\EnemySpawner.cpp:88]", without the address and module.
func unrealTitle(s string) (string, bool) {
	s, ok := strings.CutPrefix(s, "[Callstack] ")
	if !ok {
		return "", false
	}
	_, rest, _ := strings.Cut(s, " ")
	_, fn, ok := strings.Cut(strings.TrimLeft(rest, " "), "!")
	return strings.TrimSuffix(fn, " []"), ok && fn != ""
}

// unrealMachinery are the engine's functions that report an assert or
// ensure: on top of every such callstack, they would make every assert
// the same crash.
var unrealMachinery = map[string]bool{
	"ReportAssert": true, "ReportEnsure": true, "FWindowsErrorOutputDevice::Serialize": true,
	"FOutputDevice::LogfImpl": true, "AssertFailedImplV": true, "FDebug::AssertFailed": true,
	"FDebug::CheckVerifyFailedImpl": true, "FDebug::CheckVerifyFailedImpl2": true, "CheckVerifyFailedImpl": true,
	"FDebug::EnsureFailed": true, "FDebug::OptionallyLogFormattedEnsureMessageReturningFalseImpl": true,
	"FGenericPlatformMisc::RaiseException": true, "FWindowsPlatformMisc::RaiseException": true,
	"FUnixErrorOutputDevice::Serialize": true, "FMacErrorOutputDevice::Serialize": true,
	"FOutputDevice::LogfImpl<>": true, "UE::Assert::Private::ExecCheckImplInternal": true,
}

// cutUnrealFile removes what Unreal appends to an assert's message, the
// source file and line ("... [File:D:\build\...\Map.h] [Line: 671]"),
// which differ between installs of the same engine.
func cutUnrealFile(s string) string {
	if i := strings.Index(s, " [File:"); i > 0 {
		return s[:i]
	}
	return s
}
