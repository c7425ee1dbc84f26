package agentload

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// The sources of the store.
const (
	Unity     = "unity"
	Lua       = "lua-ecs"
	Minecraft = "minecraft"
)

// Texts the store repeats, which tests look for.
const (
	// ShaderWarning is the text of every line of the flood.
	ShaderWarning = "Shader warning in 'Custom/Water': 'UNITY_PASS_FORWARDBASE' : macro redefinition at line 12 (on d3d11)"
	// NullReference is the message of the Unity crashes of the largest group.
	NullReference = "NullReferenceException: Object reference not set to an instance of an object"
	// NewestCrash is the message of the last record, a crash of its own group.
	NewestCrash = "java.lang.IllegalStateException: End dragon fight lost its boss entity during phase transition"
)

var (
	unityNames = []string{"Player", "Physics", "UI", "Audio", "AI", "Combat", "Net", "Assets"}
	luaNames   = []string{"ecs.world", "ecs.physics", "ecs.ai", "ecs.net", "ecs.script"}
	mcNames    = []string{"Server thread", "Worker-Main-3", "Render thread", "IO-Worker-7"}
	scenes     = []string{"MainMenu", "Arena_01", "Arena_02", "Forest", "Dungeon_B2", "Overworld"}
	enemies    = []string{"Goblin", "Skeleton", "Wraith", "Slime", "Golem", "Harpy"}
	items      = []string{"iron_sword", "health_potion", "oak_planks", "ender_pearl", "gold_ingot", "torch"}
	components = []string{"Transform", "Velocity", "Health", "Collider", "AIState", "Sprite"}
)

// pick returns one of xs.
func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// unityText is a Debug.Log line of the Unity game.
func unityText(rng *rand.Rand, name string) string {
	switch name {
	case "Player":
		return fmt.Sprintf("Player spawned at (%.1f, %.1f, %.1f) in %s", rng.Float64()*100, rng.Float64()*5, rng.Float64()*-50, pick(rng, scenes))
	case "Physics":
		return fmt.Sprintf("Rigidbody %s_%d moved while kinematic; velocity %.2f m/s", pick(rng, enemies), rng.IntN(90), rng.Float64()*12)
	case "UI":
		return fmt.Sprintf("Panel '%s' opened in %d ms", pick(rng, []string{"Inventory", "Map", "Quests", "Settings"}), 4+rng.IntN(60))
	case "Audio":
		return fmt.Sprintf("Mixer snapshot '%s' applied over %d ms", pick(rng, []string{"Combat", "Explore", "Menu"}), 100+rng.IntN(900))
	case "AI":
		return fmt.Sprintf("%s_%d changed state %s -> %s", pick(rng, enemies), rng.IntN(90), pick(rng, []string{"Idle", "Patrol"}), pick(rng, []string{"Chase", "Attack", "Flee"}))
	case "Combat":
		if rng.IntN(4) == 0 {
			return fmt.Sprintf("BossFight phase %d started: Dragon HP %d/12000", 1+rng.IntN(3), rng.IntN(12000))
		}
		return fmt.Sprintf("%s_%d took %d damage from %s", pick(rng, enemies), rng.IntN(90), 1+rng.IntN(80), pick(rng, items))
	case "Net":
		return fmt.Sprintf("Snapshot %d sent to client %d (%d bytes, rtt %d ms)", rng.IntN(100000), 1+rng.IntN(8), 200+rng.IntN(1400), 10+rng.IntN(120))
	default:
		return fmt.Sprintf("Loaded asset bundle '%s' in %d ms", pick(rng, scenes), 20+rng.IntN(800))
	}
}

// luaText is a print of the Lua ECS engine.
func luaText(rng *rand.Rand, name string) string {
	switch name {
	case "ecs.world":
		return fmt.Sprintf("tick %d: %d entities, %d archetypes", rng.IntN(1000000), 500+rng.IntN(4000), 20+rng.IntN(40))
	case "ecs.physics":
		return fmt.Sprintf("broadphase: %d pairs, %d contacts, step %.2f ms", rng.IntN(3000), rng.IntN(400), rng.Float64()*4)
	case "ecs.ai":
		return fmt.Sprintf("behaviour tree '%s' ran %d nodes", strings.ToLower(pick(rng, enemies)), 3+rng.IntN(40))
	case "ecs.net":
		return fmt.Sprintf("replicated %d components to peer %d", rng.IntN(300), 1+rng.IntN(6))
	default:
		return fmt.Sprintf("script 'game/scripts/%s.lua' reloaded", strings.ToLower(pick(rng, components)))
	}
}

// minecraftText is a log4j message of the Minecraft server.
func minecraftText(rng *rand.Rand) string {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("Preparing spawn area: %d%%", rng.IntN(100))
	case 1:
		return "Saving chunks for level 'ServerLevel[world]'/minecraft:overworld"
	case 2:
		return fmt.Sprintf("Can't keep up! Is the server overloaded? Running %dms or %d ticks behind", 2000+rng.IntN(3000), 40+rng.IntN(60))
	case 3:
		return fmt.Sprintf("Player%d joined the game", rng.IntN(40))
	case 4:
		return fmt.Sprintf("Player%d has made the advancement [%s]", rng.IntN(40), pick(rng, []string{"Stone Age", "Acquire Hardware", "Ice Bucket Challenge"}))
	default:
		return fmt.Sprintf("Villager EntityVillager['Villager'/%d, l='ServerLevel[world]'] died, message: 'Villager was slain by Zombie'", rng.IntN(9000))
	}
}

// group is a crash group: a message and a stack made from a random source.
type group struct {
	source, name string
	weight       int
	text         string
	stack        func(rng *rand.Rand) string
}

// groups are the crash groups of the store, by weight (about 400 crashes).
var groups = []group{
	{Unity, "AI", 150, NullReference, func(rng *rand.Rand) string {
		return fmt.Sprintf("  at EnemyAI.UpdateTarget () [0x00012] in Assets/Scripts/AI/EnemyAI.cs:%d\n"+
			"  at EnemyAI.Update () [0x00001] in Assets/Scripts/AI/EnemyAI.cs:30\n"+
			"  at UnityEngine.Internal.$MethodUtility.Invoke (System.Object target) [0x00000] in <00000000000000000000000000000000>:0", 42+rng.IntN(2))
	}},
	{Unity, "UI", 60, "IndexOutOfRangeException: Index was outside the bounds of the array.", func(rng *rand.Rand) string {
		return fmt.Sprintf("  at InventoryGrid.GetSlot (System.Int32 x, System.Int32 y) [0x0001c] in Assets/Scripts/UI/InventoryGrid.cs:%d\n"+
			"  at InventoryGrid.OnDrop (UnityEngine.EventSystems.PointerEventData data) [0x00044] in Assets/Scripts/UI/InventoryGrid.cs:118\n"+
			"  at UnityEngine.EventSystems.ExecuteEvents.Execute (UnityEngine.EventSystems.IDropHandler handler, UnityEngine.EventSystems.BaseEventData eventData) [0x00007] in <4c3d2b1a>:0", 77+rng.IntN(3))
	}},
	{Lua, "ecs.physics", 90, "game/systems/physics.lua:88: attempt to index a nil value (field 'body')", func(rng *rand.Rand) string {
		return "stack traceback:\n\t[C]: in ?\n\tgame/systems/physics.lua:88: in function 'update'\n" +
			fmt.Sprintf("\tgame/ecs/scheduler.lua:%d: in function 'run_system'\n", 140+rng.IntN(4)) +
			"\tgame/ecs/scheduler.lua:171: in function 'tick'\n\tmain.lua:52: in main chunk\n\t[C]: in ?"
	}},
	{Lua, "ecs.ai", 40, "game/systems/ai.lua:41: attempt to compare number with nil", func(*rand.Rand) string {
		return "stack traceback:\n\t[C]: in ?\n\tgame/systems/ai.lua:41: in function 'choose_target'\n" +
			"\tgame/systems/ai.lua:97: in function 'update'\n\tgame/ecs/scheduler.lua:142: in function 'run_system'\n\tmain.lua:52: in main chunk"
	}},
	{Minecraft, "Server thread", 50, "java.lang.NullPointerException: Cannot invoke \"net.minecraft.world.level.chunk.LevelChunk.getBlockState(net.minecraft.core.BlockPos)\" because \"chunk\" is null", func(rng *rand.Rand) string {
		return fmt.Sprintf("\tat net.minecraft.server.level.ServerLevel.getBlockState(ServerLevel.java:%d)\n", 410+rng.IntN(5)) +
			"\tat net.minecraft.world.level.block.RedStoneWireBlock.updatePowerStrength(RedStoneWireBlock.java:269)\n" +
			"\tat net.minecraft.world.level.block.RedStoneWireBlock.neighborChanged(RedStoneWireBlock.java:441)\n" +
			"\tat net.minecraft.server.MinecraftServer.tickChildren(MinecraftServer.java:1012)\n" +
			"Caused by: java.lang.IllegalStateException: Chunk not loaded: [12, -7]\n" +
			"\tat net.minecraft.server.level.ServerChunkCache.getChunk(ServerChunkCache.java:188)\n\t... 4 more"
	}},
	{Minecraft, "Worker-Main-3", 10, "java.util.ConcurrentModificationException", func(*rand.Rand) string {
		return "\tat java.base/java.util.ArrayList$Itr.checkForComodification(ArrayList.java:1013)\n" +
			"\tat java.base/java.util.ArrayList$Itr.next(ArrayList.java:967)\n" +
			"\tat net.minecraft.world.entity.ai.village.poi.PoiManager.tick(PoiManager.java:163)\n" +
			"\tat net.minecraft.server.level.ServerLevel.tick(ServerLevel.java:355)"
	}},
}

// newestCrash is the store's last record: a crash of its own group.
func newestCrash() oplog.Record {
	stack := "\tat net.minecraft.world.level.dimension.end.EndDragonFight.tick(EndDragonFight.java:231)\n" +
		"\tat net.minecraft.server.level.ServerLevel.tick(ServerLevel.java:362)\n" +
		"\tat net.minecraft.server.MinecraftServer.tickChildren(MinecraftServer.java:1012)\n" +
		"\tat net.minecraft.server.dedicated.DedicatedServer.tickChildren(DedicatedServer.java:283)\n" +
		"\tat net.minecraft.server.MinecraftServer.tickServer(MinecraftServer.java:902)\n" +
		"\tat net.minecraft.server.MinecraftServer.runServer(MinecraftServer.java:697)\n" +
		"\tat net.minecraft.server.MinecraftServer.lambda$spin$2(MinecraftServer.java:265)\n" +
		"\tat java.base/java.lang.Thread.run(Thread.java:1583)\n" +
		"Caused by: java.lang.NullPointerException: Cannot invoke \"net.minecraft.world.entity.boss.enderdragon.EnderDragon.getHealth()\" because \"this.dragon\" is null\n" +
		"\tat net.minecraft.world.level.dimension.end.EndDragonFight.updateDragon(EndDragonFight.java:517)\n" +
		"\tat net.minecraft.world.level.dimension.end.EndDragonFight.tick(EndDragonFight.java:219)\n" +
		"\t... 7 more"
	return oplog.Record{Source: Minecraft, Name: "Server thread", Level: oplog.LevelFatal, Text: NewestCrash, Stack: stack}
}

// longLine is the i-th of the 200 long lines: a 3 KB Debug.Log of the
// inventory with Unity's 2 KB stack of the call.
func longLine(rng *rand.Rand, i int) oplog.Record {
	var b strings.Builder
	fmt.Fprintf(&b, "Inventory snapshot %d: ", i)
	for b.Len() < 3000 {
		fmt.Fprintf(&b, "{slot:%d,item:%s,count:%d,durability:%d} ", rng.IntN(64), pick(rng, items), 1+rng.IntN(64), rng.IntN(1562))
	}
	var s strings.Builder
	s.WriteString("UnityEngine.Debug:Log (object)\n")
	for d := 0; s.Len() < 2000; d++ {
		fmt.Fprintf(&s, "InventorySync:Serialize%s (InventorySlot[],int) (at Assets/Scripts/Net/InventorySync.cs:%d)\n", pick(rng, components), 30+d*7)
	}
	return oplog.Record{Source: Unity, Name: "Inventory", Level: oplog.LevelInfo, Text: b.String()[:3000], Stack: s.String()}
}

// hugeCrash is a crash with a stack of about 200 KB (a runaway recursion).
func hugeCrash() oplog.Record {
	var s strings.Builder
	for d := 0; s.Len() < 200<<10; d++ {
		fmt.Fprintf(&s, "  at PathNode.Expand (PathNode parent, System.Int32 depth) [0x0003a] in Assets/Scripts/AI/PathNode.cs:%d\n", 60+d%3)
	}
	return oplog.Record{Source: Unity, Name: "AI", Level: oplog.LevelError,
		Text: "StackOverflowException: The requested operation caused a stack overflow.", Stack: s.String()}
}
