// A small game for mcplogd's runtime tests: mono --debug Game.exe MODE [PREFIX].
//
// It ticks a few frames, logging through System.Diagnostics.Trace to a
// ConsoleTraceListener on standard error ("Game.exe Information: 0 : msg")
// or, with PREFIX "stamp", behind a timestamp and a padded level; prints a
// caught FileNotFoundException's ToString() (a missing texture) in every
// run; then, in frame 3, MODE "null" dereferences null deep in game code
// (Main -> Tick -> World.Spawn -> World.SpawnEnemy), which nothing catches:
// Mono prints "Unhandled Exception:" and the exception, then "[ERROR] FATAL
// UNHANDLED EXCEPTION:" and the exception again. "native" reads through a
// null pointer in native code (libc's strlen, called from World.LoadSprite):
// Mono prints its native crash report and aborts. "ok" does not. Build it
// with mcs -debug -d:TRACE.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;

class Enemy
{
	public string Kind;
	public int Hp;
}

class World
{
	readonly Dictionary<string, Enemy> templates = new Dictionary<string, Enemy>();
	readonly List<Enemy> enemies = new List<Enemy>();

	public void LoadTexture(string name)
	{
		try {
			if (!File.Exists(name)) {
				throw new FileNotFoundException("missing texture " + name, name);
			}
		} catch (FileNotFoundException e) {
			Console.Error.WriteLine(e.ToString());
		}
	}

	public void SpawnEnemy(string kind)
	{
		Enemy template;
		templates.TryGetValue(kind, out template);
		var e = new Enemy { Kind = kind };
		e.Hp = template.Hp; // CRASH:null
		enemies.Add(e);
	}

	[System.Runtime.InteropServices.DllImport("libc")]
	static extern int strlen(IntPtr s);

	// LoadSprite reads a name through a native library, given none: the
	// library writes through a null pointer.
	public int LoadSprite()
	{
		return strlen(IntPtr.Zero); // CRASH:native
	}

	public void Spawn(int frame)
	{
		if (frame == 3 && Game.Mode == "null") {
			SpawnEnemy("orc");
		}
		if (frame == 3 && Game.Mode == "native") {
			LoadSprite();
		}
	}
}

static class Game
{
	public static string Mode = "ok";
	static bool stamped;

	static void Log(TraceEventType level, string msg)
	{
		if (!stamped) {
			Trace.TraceInformation(msg);
			return;
		}
		var name = level == TraceEventType.Warning ? "WARNING" : "INFO";
		Console.Error.WriteLine("{0} [{1,-7}] {2}", DateTime.Now.ToString("yyyy-MM-dd HH:mm:ss,fff"), name, msg);
	}

	static void Tick(World world, int frame)
	{
		Log(TraceEventType.Information, "frame " + frame);
		if (frame == 1) {
			world.LoadTexture("enemy.png");
		}
		world.Spawn(frame);
	}

	static void Main(string[] args)
	{
		if (args.Length > 0) {
			Mode = args[0];
		}
		stamped = args.Length > 1 && args[1] == "stamp";
		Trace.Listeners.Clear();
		Trace.Listeners.Add(new ConsoleTraceListener(true));
		Trace.AutoFlush = true;
		Log(TraceEventType.Information, "starting in mode " + Mode);
		var world = new World();
		for (int frame = 1; frame <= 5; frame++) {
			Tick(world, frame);
		}
		Log(TraceEventType.Information, "shutting down");
	}
}
