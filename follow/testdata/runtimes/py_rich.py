"""rich's logging handler and tracebacks (show_locals): a handled error logged with
its traceback, a warning of two lines, then an uncaught exception raised from another."""
import logging

from rich.logging import RichHandler
from rich.traceback import install

install(show_locals=True)
logging.basicConfig(level="INFO", format="%(message)s",
                    handlers=[RichHandler(rich_tracebacks=True, tracebacks_show_locals=True)])
log = logging.getLogger("game")


def load_level(name):
    with open("levels/" + name + ".json") as f:
        return f.read()


def spawn_enemy(enemies, kind):
    try:
        return enemies[kind]
    except KeyError as e:
        raise RuntimeError("no spawn point for " + kind) from e


for frame in range(4):
    log.info("frame %d", frame)
    if frame == 1:
        log.warning("the save file is from an older version\nits scores are kept, its settings reset")
    if frame == 2:
        try:
            load_level("caves")
        except OSError:
            log.exception("could not load the level caves, falling back to the tutorial")
    if frame == 3:
        spawn_enemy({"goblin": 1}, "orc")
