import logging

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("game.world")


def spawn(kind, hp):
    log.info("spawning %s with %d hp", kind)


print("shooter: start", flush=True)
spawn("orc", 3)
print("shooter: quit normally")
