package crash_test

import (
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestGameFrame: the first frame that is the game's, past an engine's
// error handler, a runtime's machinery and native frames without symbols.
func TestGameFrame(t *testing.T) {
	for _, c := range []struct{ name, stack, want string }{
		{"LÖVE", "stack traceback:\n\t[love \"boot.lua\"]:345: in function '__index'\n\tmain.lua:79: in function 'update'\n" +
			"\t[love \"callbacks.lua\"]:162: in function <[love \"callbacks.lua\"]:144>\n\t[C]: in function 'xpcall'",
			"main.lua:79: in function 'update'"},
		{"Luanti", "stack traceback:\n\t[C]: in function 'error'\n\t/usr/share/games/minetest/builtin/common/after.lua:20: in function <x>\n" +
			"\t/home/me/.minetest/mods/logtest/init.lua:54: in function 'func'", "/home/me/.minetest/mods/logtest/init.lua:54: in function 'func'"},
		// Lua cuts a long path to its end: ".../" (luanti-org/luanti issue 9796).
		{"LuantiCutPaths", "stack traceback:\n\t[C]: in function 'assert'\n" +
			"\t...inetest/minetest/bin/../builtin/game/item_entity.lua:203: in function 'on_step'\n" +
			"\t.../../games/minetest_game/mods/default/item_entity.lua:43: in function <.../../games/minetest_game/mods/default/item_entity.lua:42>",
			".../../games/minetest_game/mods/default/item_entity.lua:43: in function <.../../games/minetest_game/mods/default/item_entity.lua:42>"},
		{"RustFull", "at rust_begin_unwind (/usr/src/rustc-1.63.0/library/std/src/panicking.rs:584:5)\n" +
			"at core::panicking::panic_fmt (/usr/src/rustc-1.63.0/library/core/src/panicking.rs:142:14)\n" +
			"at game::main (/tmp/game/src/main.rs:98:13)", "at game::main (/tmp/game/src/main.rs:98:13)"},
		{"RustShort", "at src/main.rs:98:13", "at src/main.rs:98:13"},
		{"UnityNative", "SymInit: Symbol-SearchPath: '.', symOptions: 534\n" +
			"0x00007FF8A1B2C3D4 (UnityPlayer) UnityMain\n" +
			"0x0000022124FE0CC9 (Mono JIT Code) (wrapper managed-to-native) UnityEngine.Texture2D:Compress (UnityEngine.Texture2D,bool)\n" +
			"0x0000022124FE0ABC (Mono JIT Code) Verse.StaticTextureAtlas:Bake ()\n",
			"0x0000022124FE0ABC (Mono JIT Code) Verse.StaticTextureAtlas:Bake ()"},
		{"GodotPushError", "at call (modules/gdscript/gdscript_functions.cpp:803)", ""},
		{"GodotScript", "at crash (./core/core_bind.cpp:344)\nGDScript backtrace (most recent call first):\nat _ready (res://main.gd:5)",
			"at _ready (res://main.gd:5)"},
		{"GodotNoSymbols", "at libc.so.6+3c050\nat godot3-server+9f8211\nat godot3-server+9d4f99", ""},
		{"MinecraftMod", "java.lang.IllegalStateException: boom\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:233)\n" +
			"\tat net.minecraft.world.level.Level.tickBlockEntities(Level.java:512)\n" +
			"\tat com.example.pipes.PipeBlockEntity.pushItems(PipeBlockEntity.java:121)",
			"at com.example.pipes.PipeBlockEntity.pushItems(PipeBlockEntity.java:121)"},
		{"MinecraftOnly", "java.lang.NullPointerException\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:233)\n" +
			"\tat net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:301)",
			"at net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:301)"},
		// Under a class loader or module: the game's, then Prism's
		// ForgeWrapper, which is no mod.
		{"MinecraftLoader", "java.lang.Throwable: Manually triggered debug crash\n" +
			"\tat TRANSFORMER/minecraft@1.20.4/net.minecraft.client.KeyboardHandler.tick(KeyboardHandler.java:561)\n" +
			"\tat MC-BOOTSTRAP/cpw.mods.modlauncher@10.0.9/cpw.mods.modlauncher.Launcher.run(Launcher.java:108)\n" +
			"\tat io.github.zekerzhayard.forgewrapper.installer.Main.main(Main.java:67)",
			"at TRANSFORMER/minecraft@1.20.4/net.minecraft.client.KeyboardHandler.tick(KeyboardHandler.java:561)"},
		// A plugin's frame past Bukkit's, under Fabric's class loader a mod's.
		{"BukkitPlugin", "org.bukkit.plugin.IllegalPluginAccessException: Plugin attempted to register x while not enabled\n" +
			"\tat org.bukkit.plugin.SimplePluginManager.registerEvents(SimplePluginManager.java:541) ~[minecraft_server.jar:git-Paper-521]\n" +
			"\tat maurittoh.com.MainCommand.registerEvents(MainCommand.java:492) ~[?:?]",
			"at maurittoh.com.MainCommand.registerEvents(MainCommand.java:492) ~[?:?]"},
		{"FabricKnot", "java.lang.ExceptionInInitializerError\n" +
			"\tat knot//net.minecraft.client.Minecraft.<init>(Minecraft.java:456)\n" +
			"\tat knot//xyz.flirora.caxton.CaxtonModClient.init(CaxtonModClient.java:105)",
			"at knot//xyz.flirora.caxton.CaxtonModClient.init(CaxtonModClient.java:105)"},
		// PHP's frames, past PocketMine-MP's: line 41 of the plugin's Main
		// is in the function the next frame called.
		{"PocketMinePlugin", "--- Stack trace ---\n" +
			"at pocketmine\\plugin\\PluginManager->registerEvent() (pmsrc/src/plugin/PluginManager:612)\n" +
			"  #0 pmsrc/src/plugin/PluginManager(580): pocketmine\\plugin\\PluginManager->registerEvent(string[33] pocketmine\\event\\player\\PlayerJoin, int 0)\n" +
			"  #1 plugins/Arena.phar/src/me/arena/Main(41): pocketmine\\plugin\\PluginManager->registerEvents(object me\\arena\\EventListener#91011)\n" +
			"  #2 pmsrc/src/plugin/PluginBase(123): me\\arena\\Main->onEnable()\n" +
			"--- End of exception information ---",
			"at me\\arena\\Main->onEnable() (plugins/Arena.phar/src/me/arena/Main:41)"},
		// macOS's backtrace_symbols: past the handler above _sigtramp, the
		// system's and SDL's frames.
		{"macOS", "0   widelands                           0x0000000104de3568 _ZL16segfault_handleri + 48\n" +
			"1   libsystem_platform.dylib            0x0000000187166a24 _sigtramp + 56\n" +
			"2   libsystem_c.dylib                   0x0000000186fdc2d0 nanosleep + 220\n" +
			"3   libSDL2-2.0.0.dylib                 0x0000000106141f0c SDL_Delay_REAL + 80\n" +
			"4   widelands                           0x0000000104fa0b58 _ZN2UI5Panel6do_runEv + 1160",
			"4   widelands                           0x0000000104fa0b58 _ZN2UI5Panel6do_runEv + 1160"},
		{"PHPLastFrame", "#0 /srv/game/main.php(3): World->spawn()\n#1 {main}", "#0 /srv/game/main.php(3): World->spawn()"},
	} {
		if got := crash.GameFrame(c.stack); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestMessage: the message a title shows is the error as written.
func TestMessage(t *testing.T) {
	for _, c := range []struct {
		r    oplog.Record
		want string
	}{
		{oplog.Record{Text: "Session 8812 crashed", Stack: "java.lang.IllegalStateException: Player 4417 not in lobby\n\tat lobby.Session.kick(Session.java:214)"},
			"java.lang.IllegalStateException: Player 4417 not in lobby"},
		{oplog.Record{Text: "ModError: Failed to load and run script from /m/init.lua:\n/m/init.lua:48: boom"}, "/m/init.lua:48: boom"},
		{oplog.Record{Text: "panic: cannot spawn orc:\nspawn table has no kind 'orc'\nlevel 3 has no spawn points"}, "panic: cannot spawn orc: spawn table has no kind 'orc'"},
		// Node 20's rejection with a string: the reason, not the explanation before it.
		{oplog.Record{Text: "UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, " +
			"or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \"lobby lobby.example:7777 refused the connection\"."},
			"UnhandledPromiseRejection: lobby lobby.example:7777 refused the connection"},
		{oplog.Record{Text: "ServerError: AsyncErr: Lua: Runtime error from mod 'logtest' in callback environment_Step(): init.lua:54: attempt to index local 't' (a nil value)"},
			"init.lua:54: attempt to index local 't' (a nil value)"},
		{oplog.Record{Text: "uncaught error", Stack: "game/physics.lua:88: attempt to index a nil value\nstack traceback:\n\t[C]: in function 'error'"},
			"game/physics.lua:88: attempt to index a nil value"},
		{oplog.Record{Text: "Failed to pack atlas", Stack: "Traceback (most recent call last):\n  File \"tools/pack.py\", line 41, in load\nFileNotFoundError: art/ui.png"},
			"FileNotFoundError: art/ui.png"},
		{oplog.Record{Text: "NullReferenceException: Object reference not set", Stack: "Player.Update () (at Assets/Player.cs:42)"},
			"NullReferenceException: Object reference not set"},
		// A launcher's shell: the pid, different every run, and the padding left out.
		{oplog.Record{Text: "./launch.sh: line 3: 17490 Bus error               ./game"}, "./launch.sh: line 3: Bus error ./game"},
		{oplog.Record{Text: "line 2:  7761 Segmentation fault      (core dumped) ./game"}, "line 2: Segmentation fault (core dumped) ./game"},
		{oplog.Record{Text: "wave 3: line 2: 40 enemies"}, "wave 3: line 2: 40 enemies"},
		// A Java exception after lines of the message's own: Forge's event
		// bus's listeners, a plugin's banner (real logs: aternosorg/codex-minecraft).
		{oplog.Record{Text: "Exception caught during firing event: null", Stack: "\tIndex: 2\n\tListeners:\n\t\t0: NORMAL\n" +
			"java.lang.ExceptionInInitializerError\n\tat ovh.corail.tombstone.helper.Helper.initCommands(Helper.java:720)"},
			"java.lang.ExceptionInInitializerError"},
		{oplog.Record{Text: "[PermissionsEx]", Stack: "========== UNABLE TO LOAD PERMISSIONS BACKEND =========\nYour configuration must be fixed before PEX will enable\n" +
			"Details: Error loading permissions file!\n" +
			"ru.tehkode.permissions.exceptions.PermissionBackendException: Error loading permissions file!\n" +
			"\tat ru.tehkode.permissions.backends.file.FileBackend.reload(FileBackend.java:321) ~[PermissionsEx-1.23.4.jar:?]"},
			"ru.tehkode.permissions.exceptions.PermissionBackendException: Error loading permissions file!"},
	} {
		if got := crash.Message(&c.r); got != c.want {
			t.Errorf("Message(%q): %q, want %q", c.r.Text, got, c.want)
		}
	}
	if got := crash.Title("init.lua:54: boom", "/home/me/.minetest/mods/logtest/init.lua:54: in function 'func'"); got != "init.lua:54: boom in mods/logtest/init.lua:54: in function 'func'" {
		t.Errorf("Title: %q", got)
	}
}

// TestTitle_Frames: a title's frame without what says nothing in it: a
// jar and Forge's transformers after a Java frame, the address of a frame
// of Unity's dump; Mono's IL offset stays, with the place after it.
func TestTitle_Frames(t *testing.T) {
	for _, c := range []struct{ frame, want string }{
		{"at net.minecraft.client.renderer.GameRenderer.func_78473_a(GameRenderer.java:344) ~[?:?] {re:classloading,pl:runtimedistcleaner:A}",
			"boom in net.minecraft.client.renderer.GameRenderer.func_78473_a(GameRenderer.java:344)"},
		{"at net.minecraft.util.Util.runTask(Util.java:29) [Util.class:?]", "boom in net.minecraft.util.Util.runTask(Util.java:29)"},
		{"at Game.Spawner.Spawn () [0x00012] in /home/dev/Game/Assets/Spawner.cs:42",
			"boom in Game.Spawner.Spawn () [0x00012] in /home/dev/Game/Assets/Spawner.cs:42"},
		{`0x0000000011F821D5 (Mono JIT Code) [C:\Projects\Game\Assets\ImportAnimation.cs:14] SetupAnimationProcessor:SetupAnimation () `,
			`boom in SetupAnimationProcessor:SetupAnimation () at Assets\ImportAnimation.cs:14`},
		{"0x000001E05C51D93B (Mono JIT Code) (wrapper dynamic-method) RimWorld.JobGiver_Work:TryIssueJobPackage_Patch1 (Verse.Pawn)",
			"boom in RimWorld.JobGiver_Work:TryIssueJobPackage_Patch1 (Verse.Pawn)"},
	} {
		if got := crash.Title("boom", c.frame); got != c.want {
			t.Errorf("Title(%q):\n got %q\nwant %q", c.frame, got, c.want)
		}
	}
}

// TestDescribe_ReportedException: Minecraft's ReportedException, logged
// with its cause, is titled by the cause and the cause's frame, as the
// crash report the game writes shows it, through wrappers of it too; a
// cause whose frames the log does not hold leaves the wrapper's title.
func TestDescribe_ReportedException(t *testing.T) {
	for _, c := range []struct{ name, stack, want string }{
		{"TickingEntity", "net.minecraft.util.ReportedException: Ticking block entity\n" +
			"\tat net.minecraft.server.MinecraftServer.func_71190_q(MinecraftServer.java:835)\n" +
			"\tat net.minecraft.server.MinecraftServer.run(MinecraftServer.java:547)\n" +
			"Caused by: java.lang.NoSuchMethodError: nc.tile.energy.TileEnergy.addTileToENet()V\n" +
			"\tat nc.tile.energy.TileEnergy.onAdded(TileEnergy.java:57) ~[TileEnergy.class:?]\n" +
			"\tat net.minecraft.world.World.func_72939_s(World.java:1853)",
			"java.lang.NoSuchMethodError: nc.tile.energy.TileEnergy.addTileToENet()V in nc.tile.energy.TileEnergy.onAdded(TileEnergy.java:57)"},
		// Bukkit's, its tabs trimmed, wrapped in an ExecutionException: the root.
		{"Bukkit", "net.minecraft.server.v1_13_R1.ReportedException: Exception generating new chunk\n" +
			"at net.minecraft.server.v1_13_R1.MinecraftServer.w(MinecraftServer.java:951)\n" +
			"Caused by: java.util.concurrent.ExecutionException: net.minecraft.server.v1_13_R1.ReportedException: Loading NBT data\n" +
			"at java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:357)\n" +
			"Caused by: net.minecraft.server.v1_13_R1.ReportedException: Loading NBT data\n" +
			"at net.minecraft.server.v1_13_R1.NBTCompressedStreamTools.a(SourceFile:77)\n" +
			"Caused by: java.util.zip.ZipException: incorrect data check\n" +
			"at java.util.zip.InflaterInputStream.read(InflaterInputStream.java:164)\n" +
			"at net.minecraft.server.v1_13_R1.NBTTagByteArray.load(NBTTagByteArray.java:48)",
			"java.util.zip.ZipException: incorrect data check in net.minecraft.server.v1_13_R1.NBTTagByteArray.load(NBTTagByteArray.java:48)"},
		{"CauseCut", "net.minecraft.crash.ReportedException: Ticking block entity\n" +
			"\tat net.minecraft.server.MinecraftServer.func_71190_q(MinecraftServer.java:855) ~[?:?]\n" +
			"Caused by: java.lang.StackOverflowError",
			"net.minecraft.crash.ReportedException: Ticking block entity in net.minecraft.server.MinecraftServer.func_71190_q(MinecraftServer.java:855)"},
		// Another wrapper's cause is not passed: its own message is the crash's.
		{"OtherWrapper", "java.lang.RuntimeException: Could not execute entrypoint stage 'main'\n" +
			"\tat net.fabricmc.loader.impl.FabricLoaderImpl.invokeEntrypoints(FabricLoaderImpl.java:403)\n" +
			"Caused by: java.lang.NullPointerException: boom\n\tat com.example.Mod.init(Mod.java:9)",
			"java.lang.RuntimeException: Could not execute entrypoint stage 'main' in com.example.Mod.init(Mod.java:9)"},
	} {
		if title, _, _ := crash.Describe("Encountered an unexpected exception", c.stack); title != c.want {
			t.Errorf("%s: %q, want %q", c.name, title, c.want)
		}
	}
}

// TestDescribe_BalatroStackTracePlus: Balatro's crash report, its frames
// as StackTracePlus prints them: a mod's frame names the crash, past
// Steamodded's, a C function's and the game's own; the frames are
// normalised without their lines.
func TestDescribe_BalatroStackTracePlus(t *testing.T) {
	stack := "Oops! The game crashed:\n[SMODS _ \"src/utils.lua\"]:2634: bad argument #2 to 'max' (number expected, got nil)\n\n" +
		"Additional Context:\nBalatro Version: 1.0.1n-FULL\nStack Traceback\n===============\n(3) field C function 'max'\n" +
		"(4) Lua field 'update_hand_limit_text' at Steamodded file 'src/utils.lua:2634' \nLocal variables:\n play = boolean: true\n" +
		"(5) Lua upvalue 'game_start_run' at file 'game.lua:2124'\nLocal variables:\n self = table: 0x2f3f5da0  {F_GUIDE:false (more...)}\n" +
		"(8) Lua upvalue 'sr' at file 'challengerdeep.lua:333' (from mod with id ChDp)\n" +
		"(9) main chunk of file 'src/init.lua' at line 57 (from mod with id balatro_plus)\n(25) LÖVE function at file 'boot.lua:377' (best guess)"
	title, frames, _ := crash.Describe("[SMODS _ \"src/utils.lua\"]:2634: bad argument #2 to 'max' (number expected, got nil)", stack)
	if want := "[SMODS _ \"src/utils.lua\"]:2634: bad argument #2 to 'max' (number expected, got nil) in sr (challengerdeep.lua:333, mod ChDp)"; title != want {
		t.Errorf("title %q, want %q", title, want)
	}
	if want := []string{"max", "src/utils.lua: in update_hand_limit_text", "game.lua: in game_start_run", "challengerdeep.lua: in sr", "src/init.lua"}; !slices.Equal(frames, want) {
		t.Errorf("frames %q, want %q", frames, want)
	}
	// Printed by the error handler (lovely's log): its frames, down to
	// LÖVE's call of it, are not the error's.
	handled := "(1) Lua upvalue 'orig' at file 'main.lua:612'\n(2) Lua local 'handler' at file 'console.lua:554' (from lovely module debugplus.console)\n" +
		"(3) LÖVE method at file 'boot.lua:352'\n(4) Lua global 'get_X_same' at file 'functions/misc_functions.lua:656'\n(25) LÖVE function at file 'boot.lua:377' (best guess)"
	if title, _, _ := crash.Describe("x", handled); title != "x in get_X_same (functions/misc_functions.lua:656)" {
		t.Errorf("title %q", title)
	}
	// No mod's frame: the game's own, past Steamodded's.
	if title, _, _ := crash.Describe("x", "(4) Lua field 'f' at Steamodded file 'src/utils.lua:1'\n(5) Lua upvalue 'game_start_run' at file 'game.lua:2124'"); title != "x in game_start_run (game.lua:2124)" {
		t.Errorf("title %q", title)
	}
}
