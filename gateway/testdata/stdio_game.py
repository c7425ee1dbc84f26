"""A small game that is its own MCP server over stdio (newline-delimited
JSON-RPC on standard input and output), for the gateway's tests of cmd:
upstreams. spawn_enemy {"count": N} spawns N enemies; with N over 100 the
pool overflows: an uncaught exception (a traceback on standard error, exit
status 1); with N over 1000 a native abort (faulthandler's "Fatal Python
error: Aborted" and SIGABRT). quit exits cleanly. With --linger it does not exit when its
standard input closes. With --log PATH it writes what it prints (its
traceback too) to the file PATH, appended, instead of standard error."""

import faulthandler
import json
import os
import sys
import time

enemies = []


class EnemyPool:
    def __init__(self, size):
        self.size = size

    def grow(self, count):
        if count > 1000:
            faulthandler.enable()
            os.abort()
        if count > self.size:
            raise OverflowError("enemy pool overflow: %d enemies, room for %d" % (count, self.size))
        enemies.extend(range(count))


def spawn_enemy(count):
    EnemyPool(100).grow(count)
    return "spawned %d enemies (%d in all)" % (count, len(enemies))


TOOLS = [{
    "name": "spawn_enemy",
    "description": "spawns enemies",
    "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}},
}, {
    "name": "quit",
    "description": "quits the game cleanly (exit status 0) once it has answered",
    "inputSchema": {"type": "object", "properties": {}},
}]

quitting = False


def answer(msg):
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "stdio-game", "version": "1"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call" and params.get("name") == "spawn_enemy":
        text = spawn_enemy(int((params.get("arguments") or {}).get("count", 1)))
        return {"content": [{"type": "text", "text": text}]}
    if method == "tools/call" and params.get("name") == "quit":
        global quitting
        quitting = True
        return {"content": [{"type": "text", "text": "bye"}]}
    return None


def main():
    if "--log" in sys.argv:
        sys.stderr = open(sys.argv[sys.argv.index("--log") + 1], "a", buffering=1)
    print("stdio game %d listening on stdin" % os.getpid(), file=sys.stderr, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue  # a notification
        result = answer(msg)
        if result is None:
            out = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "method not found"}}
        else:
            out = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
        if quitting:
            sys.exit(0)
    if "--linger" in sys.argv:
        time.sleep(60)


main()
