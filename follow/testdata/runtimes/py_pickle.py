import os, pickle

SAVE = "slot1.sav"

def write_corrupt_save():
    data = pickle.dumps({"level": 3, "hp": 70, "inventory": ["key", "torch"]})
    with open(SAVE, "wb") as f:
        f.write(b"\x00\x00" + data[10:])   # a crash during the last save left garbage

def load_game(path):
    with open(path, "rb") as f:
        return pickle.load(f)

print("dungeon: continue from", SAVE)
write_corrupt_save()
state = load_game(SAVE)
print("level", state["level"])
