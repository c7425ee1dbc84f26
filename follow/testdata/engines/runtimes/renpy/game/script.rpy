# A small Ren'Py game for mcplogd's runtime tests (run.sh runs it).
#
# Its init code warns of a missing image in every run, then does what
# GAME_MODE says deep in the game's own code (init python -> spawn_wave ->
# spawn_enemy): "init" (looks up an enemy that is not in its table: a
# KeyError ends the game before it starts, and Ren'Py reports it twice),
# "ok". GAME_PREFIX "none" prints as the game does; "stamp" puts a
# timestamp and a level in front of every line Python writes to standard
# output and error, Ren'Py's report included.

define e = Character("Eileen")

init -10 python:
    import os
    import sys
    import time

    MODE = os.environ.get("GAME_MODE", "ok")
    PREFIX = os.environ.get("GAME_PREFIX", "none")

    class StampedStream(object):
        """Writes each line to stream with a timestamp and a level in front."""

        def __init__(self, stream, level):
            self.stream, self.level, self.buf = stream, level, ""

        def write(self, s):
            self.buf += s
            while "\n" in self.buf:
                line, self.buf = self.buf.split("\n", 1)
                now = time.time()
                head = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + ",%03d [%-7s] " % (int(now * 1000) % 1000, self.level)
                self.stream.write(head + line + "\n")
            self.stream.flush()

        def flush(self):
            self.stream.flush()

    if PREFIX == "stamp":
        sys.stdout = StampedStream(sys.stdout, "INFO")
        sys.stderr = StampedStream(sys.stderr, "ERROR")

    ENEMIES = {"orc": 30, "slime": 10}

    def load_image(name):
        if not renpy.loadable(name):
            print("Warning: missing image %s, using the placeholder" % name, file=sys.stderr)

    def spawn_enemy(kind):
        return ENEMIES[kind]  # CRASH:init

    def spawn_wave(kinds):
        return [spawn_enemy(k) for k in kinds]

init python:
    load_image("enemy.png")
    if MODE == "init":
        wave = spawn_wave(["orc", "boss"])
    else:
        wave = spawn_wave(["orc"])
    print("wave of %d ready" % len(wave))
    sys.stdout.flush()
    renpy.quit()

label start:
    e "The game starts."
    return
