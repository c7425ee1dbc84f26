"""A small Kivy game for mcplogd's runtime tests: python3 main.py MODE [PREFIX].

Kivy logs through its Logger ("[INFO   ] [Base        ] Start application
main loop", in colour where TERM names a colour terminal, as the tests set
it) and prints what it catches one space in. The game warns of a missing
texture in its first frame, then in its third does what MODE says deep in
game code (the clock -> DungeonApp.tick -> World.spawn_enemy):
"uncaught" (a KeyError Kivy's loop lets through: "Leaving application in
progress...", then the traceback), "logerror" (a Logger call whose
arguments do not fit its message: Kivy's handler lets logging's TypeError
through, and the game dies of it), "kv" (a rule of enemy.kv calls the
game's code, which raises: the traceback shows the rule's line), "ok". It stops itself in its fifth frame. PREFIX "none"
prints as Kivy does; "stamp" puts a timestamp and a level in front of
every line written to standard error, Kivy's own included.
"""

import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
PREFIX = sys.argv[2] if len(sys.argv) > 2 else "none"


class StampedStream:
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

    def isatty(self):
        return False


if PREFIX == "stamp":
    sys.stderr = StampedStream(sys.__stderr__, "ERROR")

from kivy.app import App  # noqa: E402 (after the stream it logs to)
from kivy.clock import Clock  # noqa: E402
from kivy.lang import Builder  # noqa: E402
from kivy.logger import Logger  # noqa: E402
from kivy.uix.label import Label  # noqa: E402


class World:
    def __init__(self):
        self.enemies = {}

    def spawn_enemy(self, kind):
        if MODE == "uncaught":
            return self.enemies[kind]["hp"]  # CRASH:uncaught
        if MODE == "logerror":
            Logger.info("Dungeon: spawning %s with %d hp", kind)  # CRASH:logerror
        if MODE == "kv":
            return Builder.load_file(os.path.join(os.path.dirname(os.path.abspath(__file__)), "enemy.kv"))

    def enemy_name(self, kind):
        return self.enemies[kind]["name"]  # CRASH:kv


class DungeonApp(App):
    def build(self):
        self.world = World()
        App.get_running_app().world = self.world
        self.frame = 0
        Clock.schedule_interval(self.tick, 1 / 30)
        return Label(text="Dungeon")

    def tick(self, dt):
        self.frame += 1
        if self.frame == 1:
            path = os.path.join("assets", "enemy.png")
            if not os.path.exists(path):
                Logger.warning("Dungeon: missing texture enemy.png, using the placeholder")
        if self.frame == 3:
            self.world.spawn_enemy("orc")
        if self.frame == 5:
            self.stop()


if __name__ == "__main__":
    DungeonApp().run()
