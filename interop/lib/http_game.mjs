// A small game that is its own MCP server over Streamable HTTP (the official
// TypeScript SDK's server, stateless), for game.test.mjs: `node http_game.mjs PORT`.
// spawn_enemy {count} spawns count enemies; with count over 100 the pool overflows: an
// uncaught RangeError thrown in the middle of the call, whose stack Node prints on standard
// error before it exits with status 1 (the call is never answered). quit answers, then
// exits with status 0.
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const port = Number(process.argv[2]);
let enemies = 0;

class EnemyPool {
  constructor(size) { this.size = size; }
  grow(count) {
    if (count > this.size) throw new RangeError(`enemy pool overflow: ${count} enemies, room for ${this.size}`);
    enemies += count;
  }
}

function spawnEnemy(count) {
  new EnemyPool(100).grow(count);
  return `spawned ${count} enemies (${enemies} in all)`;
}

function newServer() {
  const server = new McpServer({ name: 'http-game', version: '1.0.0' });
  server.registerTool('spawn_enemy', { description: 'spawns enemies', inputSchema: { count: z.number().int() } },
    async ({ count }) => {
      // Thrown outside the SDK's handler, as a game's own loop would: the process dies.
      if (count > 100) setImmediate(() => spawnEnemy(count));
      else return { content: [{ type: 'text', text: spawnEnemy(count) }] };
      return new Promise(() => {}); // never answered: the game dies first
    });
  server.registerTool('quit', { description: 'quits the game cleanly (exit status 0) once it has answered', inputSchema: {} },
    async () => {
      setTimeout(() => process.exit(0), 50);
      return { content: [{ type: 'text', text: 'bye' }] };
    });
  return server;
}

http.createServer(async (req, res) => {
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  const server = newServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => { transport.close(); server.close(); });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}).listen(port, '127.0.0.1', () => {
  console.error(`http game ${process.pid} listening on 127.0.0.1:${port}`);
});
