"""A small game that is its own MCP server over stdio (newline-delimited
JSON-RPC on standard input and output), for the gateway's tests of cmd:
upstreams. spawn_enemy {"count": N} spawns N enemies; with N over 100 the
pool overflows: an uncaught exception (a traceback on standard error, exit
status 1); with N over 1000 a native abort (faulthandler's "Fatal Python
error: Aborted" and SIGABRT); with N below 0 it quits with a message of its own
(sys.exit: the message on standard error, exit status 1). quit exits cleanly. With --linger it does not exit when its
standard input closes. With --log PATH it writes what it prints (its
traceback too) to the file PATH, appended, instead of standard error.
With --http PORT it serves MCP over Streamable HTTP instead, on
127.0.0.1:PORT/mcp, stateless, each answer plain JSON (no event stream),
and the crash ends the process under the call as it does over stdio."""

import faulthandler
import json
import os
import sys
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

enemies = []


class EnemyPool:
    def __init__(self, size):
        self.size = size

    def grow(self, count):
        if count < 0:
            sys.exit("spawn_enemy: the count is %d, below zero; quitting" % count)
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


def reply(msg):
    result = answer(msg)
    if result is None:
        return {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "method not found"}}
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


class HTTPGame(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):  # no event stream of the server's own
        self.send_response(405)
        self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if "id" not in msg:
            self.send_response(202)
            self.end_headers()
            return
        try:
            out = reply(msg)
        except Exception:
            traceback.print_exc()  # as if uncaught: the process ends under the call
            sys.stderr.flush()
            os._exit(1)
        body = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if quitting:
            self.wfile.flush()
            os._exit(0)


def main():
    if "--log" in sys.argv:
        sys.stderr = open(sys.argv[sys.argv.index("--log") + 1], "a", buffering=1)
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        print("http game %d listening on 127.0.0.1:%d" % (os.getpid(), port), file=sys.stderr, flush=True)
        ThreadingHTTPServer(("127.0.0.1", port), HTTPGame).serve_forever()
        return
    print("stdio game %d listening on stdin" % os.getpid(), file=sys.stderr, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue  # a notification
        out = reply(msg)
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
        if quitting:
            sys.exit(0)
    if "--linger" in sys.argv:
        time.sleep(60)


main()
