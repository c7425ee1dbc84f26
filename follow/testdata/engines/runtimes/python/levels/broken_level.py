# A level script with a syntax error, imported by game.py in mode "syntax".
ENEMIES = ["orc", "troll"]


def spawn(kind:
    return ENEMIES.index(kind)
