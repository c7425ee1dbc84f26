import multiprocessing as mp

def bake_lightmap(room):
    name, w, h = room
    texels = w * h
    return name, texels // (w - 8)

if __name__ == "__main__":
    rooms = [("hall", 64, 32), ("crypt", 32, 32), ("closet", 8, 8)]
    print("lightmap baker: %d rooms" % len(rooms))
    with mp.Pool(2) as pool:
        for name, v in pool.map(bake_lightmap, rooms):
            print("baked", name, v)
    print("done")
