package follow

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestCrashTitles_RealLogs: real crash output as users' logs hold it
// (testdata's READMEs say where each is from), imported: the first crash
// group is titled by the game's own frame, past a signal handler's
// trampoline (ARM64's and 32-bit x86's vDSO, MinGW's exception handler,
// what a stripped libc names it in Unity's dump on Linux), Mono's and
// libc's frames, a Java library's, a launcher's and a mod loader's; a
// Harmony patch is the mod's; the frame is written without what says
// nothing (Mono's address, a jar, Forge's transformers, a note a mod puts
// among the frames, gdb's prompt). Forge's loading-screen report ("THIS IS NOT A ERROR")
// and Minecraft's "Error executing task", logged FATAL, end no run;
// Ren'Py's traceback.txt, the last words of its log, ends one.
func TestCrashTitles_RealLogs(t *testing.T) {
	for _, c := range []struct {
		file, parser string
		class        string // the first group's
		title        string // the first group's title ends with it
		outcome      string // the run's
		stack        string // the crash's stack has it ("": not looked at)
	}{
		{"unity/linux-unturned-2940.log", "unity", "crash", " in Moderation2.QueueIntercept.PlayerInterceptor:TimeSinceSentVerifyPacketSpoof (single,SDG.Un…", oplog.OutcomeCrashed, ""},
		{"unity/linux-unturned-2580.log", "unity", "crash", " in SDG.Framework.Debug.TerminalCommandAttributeFinder:initialize ()", oplog.OutcomeCrashed, ""},
		{"unity/editor-5.5-import-crash.log", "unity", "crash", " in SetupAnimationProcessor:SetupAnimation () at Assets\\ImportAnimation.cs:14", oplog.OutcomeCrashed, ""},
		{"unity/rimworld-harmony-crash.log", "unity", "crash", " in RimWorld.JobGiver_Work:RimWorld.JobGiver_Work.TryIssueJobPackage_Patch1 (RimWorld.JobGiver…", oplog.OutcomeCrashed, ""},
		{"godot/godot4_arm64_crash.txt", "", "crash", "Program crashed with signal 11 in Node::set_name (/home/aaronfranke/workspace/godot/godot/scene/main/node.cpp:1442)", oplog.OutcomeCrashed, ""},
		{"godot/godot4_mingw_crash.txt", "", "crash", "Program crashed with signal 4 in core_bind::OS::crash (core/core_bind.cpp:241)", oplog.OutcomeCrashed, ""},
		{"minecraft/crash-fabric-not-enough-crashes.txt", "", "crash", " in net.minecraft.client.render.GameRenderer.updateWorldIcon(GameRenderer:1339)", oplog.OutcomeCrashed, ""},
		{"minecraft/crash-forge-transformers.txt", "", "crash", "java.lang.NullPointerException: Unexpected error in net.minecraft.client.renderer.GameRenderer.func_78473_a(GameRenderer.java:344)", oplog.OutcomeCrashed, ""},
		{"minecraft/latest-forge-1.10.2-splash.log", "", "error", " in net.minecraft.util.Util.runTask(Util.java:29)", oplog.OutcomeExited, ""},
		// PyOpenGL's error, its message of several lines up to ")", on
		// Windows: the game's frame, past Python's library.
		{"runtimes/python_glerror_windows.txt", "", "crash", `GLError( in File "g:\Python2019\physics\main.py", line 150, in <module>`, oplog.OutcomeCrashed,
			"\tcArguments = (GL_VERTEX_PROGRAM_POINT_SIZE,)\n)"},
		// LÖVE's error pasted from a terminal, its traceback indented with
		// spaces: one record, its frames the stack.
		{"love/pasted_spaces_iyfct.txt", "", "crash", "main.lua:301: attempt to call field 'setMode' (a nil value) in main.lua:301: in function 'updateScale'", oplog.OutcomeCrashed,
			"stack traceback:\n\tmain.lua:301: in function 'updateScale'\n\tmain.lua:45: in function 'load'"},
		{"love/pasted_spaces_duckmarines.txt", "", "crash", "main.lua:29: attempt to call field 'createDirectory' (a nil value) in main.lua:29: in function 'load'", oplog.OutcomeCrashed, ""},
		// Ren'Py's traceback.txt imported: the crash that ended the run.
		{"generic/renpy_traceback_bom.txt", "", "crash", `Exception: Sayer '%(player_name)' is not defined. in File "game/script.rpy", line 420, in script`, oplog.OutcomeCrashed, ""},
		// gdb's interactive session pasted whole: the thread it switched
		// to, "(gdb) bt" and the frames are the crash's; a frame gdb could
		// not name ("?? ()") titles none.
		{"runtimes/gdb_session_portal.txt", "", "crash", "Program received signal SIGSEGV, Segmentation fault. in CThread::ThreadProc(void*) () from /home/john/Steam/SteamApps/common/Portal/bin/libtier0.s…", oplog.OutcomeCrashed,
			"(gdb) bt\n#0  0xf47281fe in ?? ()"},
		{"runtimes/gdb_session_unvanquished.txt", "", "crash", `Thread 1 "daemonded" received signal SIGSEGV, Segmentation fault.`, oplog.OutcomeCrashed,
			"#4  0x000000000041d8dc in _start ()"},
		// Minecraft logs as players and server owners share them
		// (minecraft/codex): Forge's STDERR logger printing an uncaught
		// exception one line per frame, the main thread dying of it;
		// Bukkit's System.err with its tabs trimmed; a plugin's frame
		// past the server's; Prism Launcher's lines before the game's log
		// and the crash report printed after it, its frame past Fabric's
		// class loader; a server fork's crash report; the client's
		// network protocol error report, which ends no run; the server's
		// "can't proceed with server load", logged WARN; Forge's
		// "Loading cannot continue", its mod states the message's.
		{"minecraft/codex/forge-start-1161.log", "", "crash", "java.lang.RuntimeException: java.lang.reflect.InvocationTargetException in ovh.corail.tombstone.helper.Helper.initCommands(Helper.java:720)", oplog.OutcomeCrashed,
			"Caused by: java.lang.reflect.InvocationTargetException"},
		{"minecraft/codex/spigot-multiverse-load.log", "", "error", "java.lang.NullPointerException in com.onarandombox.MultiverseCore.utils.WorldManager.doLoad(WorldManager.java:466)", oplog.OutcomeEnded, ""},
		{"minecraft/codex/craftbukkit-plugin-event.log", "", "error", "org.bukkit.event.EventException in listeners.CreeperExplodeListener.onCreeperExplode(CreeperExplodeListener.java:27)", oplog.OutcomeEnded, ""},
		{"minecraft/codex/paper-plugin-disabling.log", "", "error", " in maurittoh.com.MainCommand.registerEvents(MainCommand.java:492)", oplog.OutcomeEnded, ""},
		{"minecraft/codex/fabric-26-2-client.log", "", "crash", " in knot//xyz.flirora.caxton.CaxtonModClient.init(CaxtonModClient.java:105)", oplog.OutcomeCrashed,
			"Caused by: java.util.NoSuchElementException: Symbol not found: caxton1_version"},
		{"minecraft/codex/mohist-crash-report.log", "", "crash", "java.lang.NoClassDefFoundError: team/creative/littleframes/LittleFrames$1 in net.minecraftforge.fml.common.FMLModContainer.constructMod(FMLModContainer.java:534)", oplog.OutcomeCrashed, ""},
		{"minecraft/codex/vanilla-network-protocol-error-report.log", "", "error", "java.lang.IllegalStateException: Failed to load registries due to above errors in akm.a(SourceFile:181)", oplog.OutcomeEnded, ""},
		{"minecraft/codex/vanilla-overworld-settings-missing.log", "", "crash", "java.util.concurrent.ExecutionException: java.lang.IllegalStateException: Overworld settings missing in TRANSFORMER/minecraft@1.21.1/net.minecraft.server.Main.main(Main.java:268)", oplog.OutcomeCrashed,
			"Caused by: java.lang.IllegalStateException: Overworld settings missing"},
		{"minecraft/codex/forge-mod-fatal.log", "", "crash", "Fatal errors were detected during the transition from PREINITIALIZATION to INITIALIZATION. Loading cannot cont…", oplog.OutcomeCrashed,
			"UCH mcp{9.05} [Minecraft Coder Pack] (minecraft.jar)"},
		// A ticking block entity's ReportedException: titled by its cause, the mod's.
		{"minecraft/codex/vanilla-forge-ticking-entity.log", "", "crash", "java.lang.NoSuchMethodError: nc.tile.energy.TileEnergy.addTileToENet()V in nc.tile.energy.TileEnergy.onAdded(TileEnergy.java:57)", oplog.OutcomeCrashed,
			"Caused by: java.lang.NoSuchMethodError"},
		// Balatro's crash as Steamodded logs it through lovely: the error, its frames and locals one record.
		{"love/balatro_lovely_crash.log", "", "crash", "functions/misc_functions.lua:656: attempt to call method 'get_id' (a nil value) in get_X_same (functions/misc_functions.lua:656)", oplog.OutcomeCrashed,
			"Oops! The game crashed\nfunctions/misc_functions.lua:656"},
		// glibc before 2.26: its heap check's line, "======= Backtrace:" and the frames are one crash.
		{"runtimes/glibc_double_free_luminari.txt", "", "crash", "*** Error in `circle': double free or corruption (!prev): 0x00000000067575d0 ***", oplog.OutcomeCrashed,
			"======= Backtrace: =========\n/lib64/libc.so.6(+0x77e15)[0x7f7ee4190e15]"},
		// Games' own crash handlers (C and C++): the signal in their words,
		// the game's frame, demangled.
		{"games/cataclysm-crash-log-linux.txt", "", "crash", "SIGSEGV: Segmentation fault in ./cataclysm-tiles(item::has_flag+0x33)", oplog.OutcomeCrashed,
			"STACK TRACE:"},
		{"games/cataclysm-stderr-sigabrt.txt", "", "crash", "SIGABRT: Abnormal termination in /bin/cataclysm(realDebugmsg<char const*, char const*>+0x32e)", oplog.OutcomeCrashed,
			"CRASH LOG FILE: /home/pltrz/.cataclysm-dda/config/crash.log"},
		{"games/yquake2-zaero-crash.txt", "", "crash", "Yamagi Quake II crashed! Signal: 11 in /home/<REDACTED>/.yq2//zaero/game.so(Z_SpawnDMItems+0x4f)", oplog.OutcomeCrashed,
			"Backtrace:"},
		{"games/yquake2-log-then-crash.txt", "", "crash", "Yamagi Quake II crashed! This should not happen...", oplog.OutcomeCrashed,
			"Product:      Yamagi Quake II"},
		{"games/widelands-crash-report.txt", "", "crash", "signal 11 (Segmentation fault) in widelands(Notifications::publish<Widelands::NoteBuilding>+0x4f)", oplog.OutcomeCrashed,
			"**** BEGIN BACKTRACE ****"},
		{"games/widelands-crash-report-de.txt", "", "crash", "signal 11 (Speicherzugriffsfehler) in /lib/x86_64-linux-gnu/libOpenGL.so.0(+0x1dfe9)", oplog.OutcomeCrashed,
			"**** END BACKTRACE ****"},
		{"games/widelands-stdout-macos.txt", "", "crash", "Received signal 11 (Segmentation fault: 11) in UI::Panel::do_run (widelands)", oplog.OutcomeCrashed,
			"_sigtramp + 56"},
		{"games/widelands-stdout-sigbus.txt", "", "crash", "Received signal 7 (Bus error) in ./Widelands-1.2-x86_64.AppImage(Graphic::refresh+0x158)", oplog.OutcomeCrashed,
			"./Widelands-1.2-x86_64.AppImage[0x740583]"},
		{"games/openmw-crash-no-gdb.txt", "", "crash", "signal 6", oplog.OutcomeCrashed, "Address: 0x3e800003985"},
		{"games/openmw-crash-gdb.txt", "", "crash", "Address not mapped to object (signal 11)", oplog.OutcomeCrashed, "* Loaded Libraries"},
		// PocketMine-MP 3: a plugin's command threw, the server crashed.
		{"minecraft/codex/pocketmine-plugin-runtime-problem.log", "", "crash", `Error: Call to undefined method pocketmine\command\ConsoleCommandSender::dataPacket() in shelly7w7\VanillaCoordinates\command\CoordinateCommand->execute() (plugins/VanillaCoordina…`, oplog.OutcomeCrashed,
			"Creating a crash dump"},
	} {
		l := mustLog(t)
		l.SetCrashes(crash.New(l, nil))
		mustImport(t, l, readSample(t, c.file), ImportOptions{Source: "game", Parser: c.parser})
		page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "game", Classes: oplog.CrashClasses, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Groups) != 1 || page.Groups[0].Class != c.class || !strings.HasSuffix(page.Groups[0].Title, c.title) {
			t.Errorf("%s: the first group %+v; want a %s titled …%q", c.file, page.Groups, c.class, c.title)
		}
		runs, err := l.Runs(t.Context(), "game")
		if err != nil || len(runs) != 1 || runs[0].Outcome != c.outcome {
			t.Errorf("%s: runs %+v (%v); want one, %s", c.file, runs, err, c.outcome)
			continue
		}
		if r, err := l.Get(t.Context(), runs[0].CrashID); c.stack != "" && (err != nil || !strings.Contains(r.Stack, c.stack)) {
			t.Errorf("%s: the crash %q (%v) has the stack %q; want %q in it", c.file, r.Text, err, r.Stack, c.stack)
		}
	}
}
