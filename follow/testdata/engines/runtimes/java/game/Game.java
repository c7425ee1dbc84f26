// A small game for mcplogd's runtime tests: java game.Game MODE [PREFIX].
//
// It ticks a few frames, logging through java.util.logging's ConsoleHandler
// with its default SimpleFormatter (a line with the date, the class and the
// method, then "INFO: msg") or, with PREFIX "stamp", one line behind a
// timestamp and a padded level, standard error stamped too, or with PREFIX
// "mc", behind Minecraft's "[12:00:00] [main/INFO]: ", every line of
// standard error too ("[12:00:00] [main/ERROR]: \tat ..."); warns of a
// missing texture in every run; then, in frame 3, MODE "caused" throws an
// IllegalStateException caused by a NumberFormatException deep in game code
// (main -> tick -> World.spawn -> World.spawnEnemy), which nothing catches:
// the JVM prints 'Exception in thread "main"' and the "Caused by:" chain.
// "rethrow" logs the NumberFormatException at SEVERE with its stack, then
// throws it on, uncaught. "thread" runs the frames in a thread "world",
// which dies of the exception "caused" throws (the JVM prints 'Exception
// in thread "world"'); the game then prints "FATAL: world generation
// failed, exiting" and exits 1. "native" writes through a null pointer
// with sun.misc.Unsafe, as a native library's bug does: the JVM prints its
// fatal error's banner, writes hs_err_pid<N>.log and aborts. "ok" does
// not.
package game;

import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

class World {
	private static final Logger LOG = Logger.getLogger("game.World");
	private final Map<String, String> config = new HashMap<>();
	private int enemies;

	World() {
		config.put("orc.hp", "lots");
	}

	void loadTexture(String name) {
		if (!new File(name).exists()) {
			LOG.warning("missing texture " + name + ", using the placeholder");
		}
	}

	int parseHp(String kind) {
		return Integer.parseInt(config.get(kind + ".hp"));
	}

	void spawnEnemy(String kind) {
		try {
			parseHp(kind);
		} catch (NumberFormatException e) {
			if (Game.mode.equals("rethrow")) {
				LOG.log(Level.SEVERE, "giving up on " + kind, e);
				throw e; // CRASH:rethrow
			}
			throw new IllegalStateException("cannot spawn " + kind, e); // CRASH:caused
		}
		enemies++;
	}

	/** Writes through a null pointer, as a native library's bug does: the JVM's fatal error. */
	void spawnNative() {
		try {
			java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
			f.setAccessible(true);
			((sun.misc.Unsafe) f.get(null)).putAddress(0, 42); // CRASH:native
		} catch (ReflectiveOperationException e) {
			throw new IllegalStateException(e);
		}
	}

	void spawn(int frame) {
		if (frame == 3 && (Game.mode.equals("caused") || Game.mode.equals("rethrow") || Game.mode.equals("thread"))) {
			spawnEnemy("orc");
		}
		if (frame == 3 && Game.mode.equals("native")) {
			spawnNative();
		}
	}

	void tick(int frame) {
		LOG.info("frame " + frame);
		if (frame == 1) {
			loadTexture("enemy.png");
		}
		spawn(frame);
	}
}

public class Game {
	static String mode = "ok";

	/** Stamps each line written to it as ERROR, in the date format and after the level given. */
	static final class Stamped extends OutputStream {
		private final PrintStream out;
		private final String date, level;
		private final StringBuilder line = new StringBuilder();

		Stamped(PrintStream out, String date, String level) {
			this.out = out;
			this.date = date;
			this.level = level;
		}

		@Override
		public void write(int b) {
			if (b != '\n') {
				line.append((char) b);
				return;
			}
			String when = new SimpleDateFormat(date).format(new Date());
			out.println(when + level + line);
			out.flush();
			line.setLength(0);
		}
	}

	public static void main(String[] args) {
		if (args.length > 0) {
			mode = args[0];
		}
		if (args.length > 1 && args[1].equals("stamp")) {
			System.setProperty("java.util.logging.SimpleFormatter.format",
				"%1$tY-%1$tm-%1$td %1$tH:%1$tM:%1$tS,%1$tL [%4$-7s] %3$s: %5$s%6$s%n");
			Logger.getLogger("").getHandlers(); // the handler takes standard error now
			System.setErr(new PrintStream(new Stamped(System.err, "yyyy-MM-dd HH:mm:ss,SSS", " [ERROR  ] "), true));
		}
		if (args.length > 1 && args[1].equals("mc")) {
			System.setProperty("java.util.logging.SimpleFormatter.format",
				"[%1$tH:%1$tM:%1$tS] [main/%4$s]: %5$s%6$s%n");
			Logger.getLogger("").getHandlers();
			System.setErr(new PrintStream(new Stamped(System.err, "'['HH:mm:ss']'", " [main/ERROR]: "), true));
		}
		Logger.getLogger("game.Game").info("starting in mode " + mode);
		World world = new World();
		if (mode.equals("thread")) {
			final boolean[] done = {false};
			Thread loop = new Thread(() -> {
				for (int frame = 1; frame <= 5; frame++) {
					world.tick(frame);
				}
				done[0] = true;
			}, "world");
			loop.start();
			try {
				loop.join();
			} catch (InterruptedException e) {
				return;
			}
			if (!done[0]) {
				System.out.println("FATAL: world generation failed, exiting");
				System.exit(1);
			}
			return;
		}
		for (int frame = 1; frame <= 5; frame++) {
			world.tick(frame);
		}
		Logger.getLogger("game.Game").info("shutting down");
	}
}
