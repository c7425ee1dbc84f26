class Sound:
    channels = {}
    def __init__(self, name):
        self.name = name
        self.channel = None
    def __del__(self):
        Sound.channels[self.channel].stop()

def play_level():
    s = Sound("explosion.wav")
    print("level 1: playing", s.name)
    del s
    print("level 1 complete")

print("shooter: start")
play_level()
print("shooter: quit normally")
