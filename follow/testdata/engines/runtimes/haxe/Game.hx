// A small game for mcplogd's runtime tests: neko game.n MODE [PREFIX],
// built with haxe -main Game -neko game.n.
//
// It ticks five frames, logging with trace ("Game.hx:12: frame 1") or,
// with PREFIX "stamp", behind a timestamp and a padded level; logs a
// handled error in every run, a missing texture; then, in frame 3, MODE
// "null" reads a field of null deep in game code (tick -> World.spawn ->
// World.spawnEnemy), which nothing catches: Neko prints the frames,
// outermost first, then "Uncaught exception - " and the message. "throw"
// throws a string there instead. "ok" does not crash.
class World {
	var sprites:Map<String, Dynamic>;

	public function new() {
		sprites = ["troll" => {width: 32}];
	}

	public function loadTexture(name:String) {
		try {
			sys.io.File.getContent(name);
		} catch (e:Dynamic) {
			Game.log("ERROR", 'missing texture $name, using the placeholder');
		}
	}

	public function spawnEnemy(kind:String):Int {
		var sprite:Dynamic = sprites.get(kind);
		if (Game.mode == "throw")
			throw 'spawn table has no kind \'$kind\''; // CRASH:throw
		return sprite.width; // CRASH:null
	}

	public function spawn(frame:Int) {
		if (frame == 3 && Game.mode != "ok")
			spawnEnemy("orc");
	}

	public function tick(frame:Int) {
		Game.log("INFO", 'frame $frame');
		if (frame == 1)
			loadTexture("enemy.png");
		spawn(frame);
	}
}

class Game {
	public static var mode = "ok";
	static var stamped = false;

	public static function log(level:String, msg:String, ?pos:haxe.PosInfos) {
		if (!stamped) {
			haxe.Log.trace(level == "INFO" ? msg : '$level: $msg', pos);
			return;
		}
		var t = Sys.time();
		var ms = Std.int((t - Math.ffloor(t)) * 1000);
		var pad = StringTools.rpad(level, " ", 7);
		Sys.println(DateTools.format(Date.now(), "%Y-%m-%d %H:%M:%S") + "," + StringTools.lpad('$ms', "0", 3) + ' [$pad] $msg');
	}

	static function main() {
		var args = Sys.args();
		if (args.length > 0)
			mode = args[0];
		stamped = args.length > 1 && args[1] == "stamp";
		log("INFO", 'starting in mode $mode');
		var world = new World();
		for (frame in 1...6) {
			world.tick(frame);
			Sys.sleep(0.005);
		}
		log("INFO", "shutting down");
	}
}
