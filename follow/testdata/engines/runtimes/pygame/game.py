"""A small pygame game for mcplogd's runtime tests: python3 game.py MODE [PREFIX].

It opens a window (SDL_VIDEODRIVER=dummy in the tests), warns of a missing
texture in every run, draws a few frames, then does what MODE says deep in
game code (main -> run -> tick -> World.spawn_enemy): "image" (loads a
sprite that is not there: pygame's FileNotFoundError), "quit" (polls events
after pygame.quit(): "video system not initialized"), "mixer" (opens the
mixer on a sound card that is not there: ALSA's own lines, then
pygame.error), "segv" (reads address 0: pygame's parachute reports the
segmentation fault), "ok". PREFIX "none" prints as the game does; "stamp"
puts a timestamp and a level in front of every line Python writes to
standard error, tracebacks included (what C libraries and the parachute
write to it are not Python's).
"""

import ctypes
import os
import sys
import time

import pygame

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


class World:
    def __init__(self, screen):
        self.screen = screen
        self.enemies = []

    def load_texture(self, name):
        path = os.path.join("assets", name)
        if not os.path.exists(path):
            print("Warning: missing texture %s, using the placeholder" % name, file=sys.stderr)
            return pygame.Surface((16, 16))
        return pygame.image.load(path)

    def spawn_enemy(self, kind):
        if MODE == "image":
            self.enemies.append(pygame.image.load(os.path.join("assets", kind + ".png")))  # CRASH:image
        elif MODE == "quit":
            pygame.quit()
            pygame.event.get()  # CRASH:quit
        elif MODE == "mixer":
            pygame.mixer.init()  # CRASH:mixer
        elif MODE == "segv":
            ctypes.string_at(0)  # CRASH:segv

    def tick(self, frame):
        for _ in pygame.event.get():
            pass
        self.screen.fill((0, 0, frame))
        pygame.display.flip()
        if frame == 2:
            self.spawn_enemy("orc")


def run():
    pygame.init()
    screen = pygame.display.set_mode((320, 240))
    pygame.display.set_caption("Dungeon")
    world = World(screen)
    world.load_texture("enemy.png")
    print("level 1 loaded", flush=True)
    clock = pygame.time.Clock()
    for frame in range(4):
        world.tick(frame)
        clock.tick(60)
    pygame.quit()
    print("bye", flush=True)


def main():
    if PREFIX == "stamp":
        sys.stderr = StampedStream(sys.__stderr__, "ERROR")
    run()


main()
