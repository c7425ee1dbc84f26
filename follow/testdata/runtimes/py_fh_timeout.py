import faulthandler, sys, time

def wait_for_shader_cache(path):
    # the loader spins forever when the cache lock is stale
    while True:
        time.sleep(0.05)

def load_assets():
    print("loading textures... ok")
    print("loading shader cache")
    wait_for_shader_cache("cache/shaders.bin")

def main():
    print("space trader 0.9 starting")
    faulthandler.dump_traceback_later(1.5, exit=True)   # watchdog: a hang at load is a crash
    load_assets()

main()
