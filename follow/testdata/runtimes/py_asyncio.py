import asyncio, gc

class NetClient:
    async def fetch_highscores(self):
        await asyncio.sleep(0.05)
        raise ConnectionResetError("highscore server closed the connection")

async def game_loop():
    client = NetClient()
    task = asyncio.create_task(client.fetch_highscores())
    for frame in range(5):
        print("frame %d: player at (%d, 10)" % (frame, frame * 4))
        await asyncio.sleep(0.03)
    del task
    gc.collect()
    print("game over, score 1200")

asyncio.run(game_loop())
print("bye")
