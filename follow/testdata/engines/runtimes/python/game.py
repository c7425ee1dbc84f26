"""A small game for mcplogd's runtime tests: python3 game.py MODE [PREFIX].

It ticks a few frames, logging through the logging module, warns of a
missing texture in every run, then does what MODE says deep in game code
(main -> tick -> World.spawn -> World.spawn_enemy): "uncaught" (a
ValueError), "chained" (raise inside except), "from" (raise X from e),
"syntax" (imports a level with a syntax error), "handled"
(logging.exception, then a clean exit), "reraise" (logging.exception,
then raise: the exception twice, logged and uncaught), "segv" (faulthandler, then a read
of address 0), "warn" (warnings.warn), "group" (a task of asyncio's
TaskGroup fails: an uncaught ExceptionGroup), "notes" (an uncaught
exception with two notes), "ignored" (an uncaught KeyError, then, as
Python exits, a destructor's exception it ignores), "atexit" (an uncaught
IndexError, then an exit handler's line), "interrupt" (an uncaught
KeyboardInterrupt: Python ends by SIGINT), "thread" (a thread loading the
level dies of an uncaught KeyError; the game says so and exits with
status 1), "unretrieved" (an asyncio task fails and nothing awaits it:
asyncio logs "Task exception was never retrieved" as the task is
collected, and the game goes on), "callback" (a callback asyncio's loop
runs raises: "Exception in callback …", and the game goes on), "logerror"
(a logging call whose arguments do not fit its message: logging prints
its own error, "--- Logging error ---", and the game goes on), "ok". PREFIX "none" is the logging
module's default format; "stamp" puts a timestamp and a padded level in
front of every line written to standard error, tracebacks included;
"loguru" hands the records to loguru, whose default format and extended
tracebacks (blank lines between frames, the catching frame marked "> ",
the variables' values under each line) it prints; "rich" logs through
rich's RichHandler (a time column left blank when unchanged, a level
column, the logging call's place at the right edge) and draws
tracebacks, logged and uncaught, in rich's boxes.
"""

import faulthandler
import logging
import os
import sys
import time
import warnings

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
PREFIX = sys.argv[2] if len(sys.argv) > 2 else "none"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "levels"))
log = logging.getLogger("game.world")


def stamp(level):
    now = time.time()
    ms = int(now * 1000) % 1000
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + ",%03d [%-7s] " % (ms, level)


class StampedStream:
    """Writes each line to stream with a timestamp and a level in front."""

    def __init__(self, stream, level):
        self.stream, self.level, self.buf = stream, level, ""

    def write(self, s):
        self.buf += s
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            self.stream.write(stamp(self.level) + line + "\n")
        self.stream.flush()

    def flush(self):
        self.stream.flush()


class StampFormatter(logging.Formatter):
    """Stamps every line of a record, its traceback's too."""

    def format(self, record):
        text = super().format(record)
        head = stamp(record.levelname)
        lines = text.split("\n")
        return "\n".join([head + record.name + ": " + lines[0]] + [head + l for l in lines[1:]])


class ToLoguru(logging.Handler):
    """Hands the logging module's records to loguru (its documented recipe)."""

    def emit(self, record):
        from loguru import logger
        frame, depth = sys._getframe(), 0
        while frame and (depth == 0 or frame.f_code.co_filename == logging.__file__):
            frame, depth = frame.f_back, depth + 1
        logger.opt(depth=depth, exception=record.exc_info).log(record.levelname, record.getMessage())


def setup_logging():
    if PREFIX == "loguru":
        logging.basicConfig(level=logging.INFO, handlers=[ToLoguru()])
    elif PREFIX == "stamp":
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(StampFormatter("%(message)s"))
        logging.basicConfig(level=logging.INFO, handlers=[handler])
        logging.captureWarnings(True)
        sys.stderr = StampedStream(sys.__stderr__, "ERROR")
    elif PREFIX == "rich":
        from rich.logging import RichHandler
        from rich.traceback import install
        install()
        logging.basicConfig(level=logging.INFO, format="%(message)s", handlers=[RichHandler(rich_tracebacks=True)])
    else:
        logging.basicConfig(level=logging.INFO)


class Music:
    """Stops its channel when collected, which it never opened."""

    def __del__(self):
        self.channel.stop()


class World:
    def __init__(self):
        self.enemies = []
        self.level = None
        self.config = {"orc": {"hp": "lots"}}

    def load_texture(self, name):
        path = os.path.join("assets", name)
        if not os.path.exists(path):
            log.warning("missing texture %s, using the placeholder", name)

    def load_level(self, name):
        self.level = self.config["levels"][name]  # CRASH:thread

    def load_sprite(self, kind):
        with open(os.path.join("assets", kind + ".png"), "rb") as f:  # FRAME:load_sprite
            return f.read()

    def spawn_enemy(self, kind):
        if MODE == "uncaught":
            hp = int(self.config[kind]["hp"])  # CRASH:uncaught
        elif MODE == "chained":
            try:
                self.load_sprite(kind)
            except FileNotFoundError:
                raise RuntimeError("cannot spawn " + kind)  # CRASH:chained
        elif MODE == "from":
            try:
                self.load_sprite(kind)
            except FileNotFoundError as e:
                raise RuntimeError("cannot spawn " + kind) from e  # CRASH:from
        elif MODE == "syntax":
            import broken_level  # CRASH:syntax
        elif MODE == "handled":
            try:
                self.load_sprite(kind)  # CRASH:handled
            except OSError:
                log.exception("could not load the sprite of %s", kind)
        elif MODE == "reraise":
            try:
                self.load_sprite(kind)
            except OSError:
                log.exception("giving up on the sprite of %s", kind)
                raise  # CRASH:reraise
        elif MODE == "segv":
            import ctypes
            faulthandler.enable(sys.__stderr__)
            ctypes.string_at(0)  # CRASH:segv
        elif MODE == "warn":
            warnings.warn("sprite sheets are deprecated, use atlases")  # CRASH:warn
        elif MODE == "notes":
            e = LookupError("no spawn point for " + kind)
            e.add_note("hint: run tools/build_levels.py first")
            e.add_note("searched: levels/, mods/levels/")
            raise e  # CRASH:notes
        elif MODE == "ignored":
            global MUSIC
            MUSIC = Music()
            hp = self.config[kind]["armour"]  # CRASH:ignored
        elif MODE == "atexit":
            import atexit
            atexit.register(lambda: print("settings saved to settings.ini", flush=True))
            hp = self.enemies[3]  # CRASH:atexit
        elif MODE == "interrupt":
            raise KeyboardInterrupt  # CRASH:interrupt
        elif MODE == "thread":
            import threading
            loader = threading.Thread(target=self.load_level, args=("forest",), name="level-loader")
            loader.start()
            loader.join()
            if self.level is None:
                log.info("the level loader is gone, quitting")
                sys.exit(1)
        elif MODE == "group":
            import asyncio

            async def load(name):
                self.load_sprite(name)

            async def load_all():
                async with asyncio.TaskGroup() as tg:  # CRASH:group
                    tg.create_task(load(kind))

            asyncio.run(load_all())
        elif MODE == "logerror":
            log.info("spawning %s with %d hp", kind)  # CRASH:logerror
        elif MODE in ("unretrieved", "callback"):
            import asyncio
            import gc

            async def load(name):
                self.load_sprite(name)

            def on_loaded():
                self.enemies.append(self.config[kind]["sprite"])  # CRASH:callback

            async def load_later():
                if MODE == "callback":
                    asyncio.get_running_loop().call_soon(on_loaded)
                else:
                    asyncio.ensure_future(load(kind))  # nothing awaits it
                await asyncio.sleep(0.05)
                gc.collect()

            asyncio.run(load_later())
        self.enemies.append(kind)

    def spawn(self, frame):
        if frame == 3:
            self.spawn_enemy("orc")


def tick(world, frame):
    log.info("frame %d", frame)
    if frame == 1:
        world.load_texture("enemy.png")
    world.spawn(frame)


def main():
    setup_logging()
    log.info("starting in mode %s", MODE)
    world = World()
    for frame in range(1, 6):
        tick(world, frame)
    log.info("shutting down")


if __name__ == "__main__":
    main()
