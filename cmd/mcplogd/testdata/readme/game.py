# A small game in Python that crashes when it spawns its first wave.
import sys

def spawn(wave):
    return wave["boss"].hp  # the wave has no boss: KeyError

print("loading level 1")
sys.stdout.flush()
spawn({"minions": 3})
