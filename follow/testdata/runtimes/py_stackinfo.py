import logging

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("game.world")


def spawn(kind):
    try:
        return {"goblin": 3}[kind]
    except KeyError:
        log.error("spawn failed", exc_info=True, stack_info=True)


print("shooter: start")
spawn("orc")
print("shooter: quit normally")
