// "Did my call crash the game?" with the official TypeScript SDK client as the agent: a game
// that is its own MCP server crashes in the middle of spawn_enemy in runs 1 and 3 and quits
// cleanly in run 2, its crash printed on standard error. Three ways the calls and the game's
// output reach mcplogd:
//   - a stdio game behind the gateway (serve --upstream game=cmd:...): the gateway runs it and
//     reads its standard error;
//   - an HTTP game behind the gateway (serve --upstream game=http://...), launched by
//     `mcplogd run --name Game`, another name, declared one game with --game game=Game;
//   - the same HTTP game called by a bridge that records its calls through
//     POST /api/v1/operations, no gateway.
// Each time: the crashing call is answered (or settled) within 2 s with the crash; the
// instructions' first call names the crash and the call in flight with its arguments, within
// 4 KB; get_result says the call crashed the game; the recurrence line says spawn_enemy {count}
// was in flight in 2 of 2 crashed runs and 0 of 1 clean; store_info shows the game crashed,
// then running again.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {
  callOk, connectHTTP, exited, instructedCrashCall, interopDir, mcplogdBin, removeDir, resultBytes, startServe,
  tempDir, track, waitFor,
} from './lib/harness.mjs';

const stdioGame = path.join(interopDir, '..', 'gateway', 'testdata', 'stdio_game.py');
const httpGame = path.join(interopDir, 'lib', 'http_game.mjs');

function text(res) {
  return (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** The game's line of store_info's games. */
async function health(client, name = 'game') {
  const res = await client.callTool({ name: 'store_info', arguments: {} });
  assert.ok(!res.isError, `store_info: ${text(res)}`);
  return (res.structuredContent.games ?? []).find((g) => g.name === name);
}

/** Waits until spawn_enemy {count: 5} works: the game is up (again) and reached. */
async function spawned(call, run) {
  await waitFor(`a clean spawn_enemy in run ${run}`, async () => {
    try {
      const res = await call('spawn_enemy', { count: 5 });
      return !res.isError && text(res).includes('spawned 5 enemies');
    } catch {
      return false;
    }
  }, { timeout: 60_000, interval: 200 });
}

/** What the agent reads after the second crash: the instructed first call, then get_result. */
async function agentReads(client, crashingID, crash) {
  const first = instructedCrashCall(client);
  const res = await client.callTool(first);
  const body = text(res);
  assert.ok(!res.isError, `${first.name}: ${body}`);
  assert.ok(resultBytes(res) <= 4096, `the first call's answer is ${resultBytes(res)} bytes, over 4 KB:\n${body}`);
  assert.ok(body.includes(crash), `the first call names the crash (${crash}):\n${body}`);
  const group = res.structuredContent.groups[0];
  assert.ok(group.inFlight.some((c) => c.includes('spawn_enemy {"count":250}')),
    `the first call names the call in flight with its arguments: ${JSON.stringify(group.inFlight)}\n${body}`);
  assert.ok(group.recurrence?.[0]?.startsWith('spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean'),
    `recurrence: ${JSON.stringify(group.recurrence)}\n${body}`);
  const r = await callOk(client, 'get_result', { log_id: crashingID });
  assert.equal(r.status, 'crashed', `get_result of the crashing call: ${JSON.stringify(r)}`);
  assert.ok(r.error.includes('the game crashed during this call') && r.error.includes(crash), `get_result's error: ${r.error}`);
}

/** `mcplogd run --name NAME -- node http_game.mjs PORT` against the data directory. */
function runHTTPGame(dir, name, port) {
  const child = track(spawn(mcplogdBin(), ['run', '--data', dir, '--name', name, '--', process.execPath, httpGame, String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { out += d; });
  return { child, output: () => out };
}

describe('a game that is its own MCP server crashes in a call', () => {
  const cleanup = [];
  after(async () => {
    for (const f of cleanup.reverse()) await f();
  });

  test('over stdio, behind the gateway (cmd: upstream)', async () => {
    const dir = await tempDir();
    cleanup.push(() => removeDir(dir));
    const srv = await startServe(dir, ['--upstream', `game=cmd:python3 ${stdioGame}`]);
    cleanup.push(() => srv.stop());
    const client = await connectHTTP(srv.link);
    cleanup.push(() => client.close());
    const { tools } = await client.listTools();
    const listBytes = Buffer.byteLength(JSON.stringify({ tools }), 'utf8');
    assert.ok(listBytes <= 16 * 1024, `tools/list with the game's tools is ${listBytes} bytes, over 16 KiB`);

    const call = (name, args) => client.callTool({ name, arguments: args });
    const crashes = async (count) => {
      const t0 = Date.now();
      const res = await call('spawn_enemy', { count });
      const ms = Date.now() - t0;
      const body = text(res);
      assert.ok(res.isError && body.includes('the game crashed during this call') && body.includes('OverflowError'),
        `spawn_enemy {count: ${count}}: ${body}`);
      assert.ok(!/EOF|timed out/.test(body), `the crash, not a broken pipe: ${body}`);
      assert.ok(ms <= 2000, `the crashing call was answered in ${ms} ms, over 2 s`);
      return res._meta.log_id;
    };

    await spawned(call, 1);
    await crashes(500);
    await waitFor('run 2 running after run 1 crashed', async () => {
      const g = await health(client);
      return g?.state === 'running' && g.run === 2 && /exited with status 1/.test(g.end ?? '');
    }, { timeout: 60_000, interval: 100 });
    await spawned(call, 2);
    assert.ok(!(await call('quit', {})).isError);
    await waitFor('run 3 running after run 2 quit', async () => (await health(client))?.run === 3, { timeout: 60_000, interval: 100 });
    await spawned(call, 3);
    const id = await crashes(250);
    await agentReads(client, id, 'OverflowError');
  });

  test('over HTTP, behind the gateway, launched under another name declared one game', async () => {
    const dir = await tempDir();
    cleanup.push(() => removeDir(dir));
    const port = await freePort();
    const srv = await startServe(dir, ['--upstream', `game=http://127.0.0.1:${port}/mcp`, '--game', 'game=Game']);
    cleanup.push(() => srv.stop());
    const client = await connectHTTP(srv.link);
    cleanup.push(() => client.close());
    const call = (name, args) => client.callTool({ name, arguments: args });

    const launch = () => {
      const g = runHTTPGame(dir, 'Game', port);
      cleanup.push(() => (g.child.exitCode === null ? g.child.kill('SIGKILL') : undefined));
      return g;
    };
    const crashes = async (game, count) => {
      const t0 = Date.now();
      const res = await call('spawn_enemy', { count });
      const ms = Date.now() - t0;
      const body = text(res);
      assert.ok(res.isError && body.includes('the game crashed during this call') && body.includes('RangeError'),
        `spawn_enemy {count: ${count}}: ${body}\n${game.output()}`);
      assert.ok(!/EOF|timed out/.test(body), `the crash, not a broken connection: ${body}`);
      assert.ok(ms <= 2000, `the crashing call was answered in ${ms} ms, over 2 s`);
      const end = await exited(game.child, 10_000);
      assert.equal(end.code, 1, `mcplogd run exits as the game did\n${game.output()}`);
      const g = await health(client);
      assert.equal(g?.state, 'crashed', `store_info right after the crash: ${JSON.stringify(g)}`);
      return res._meta.log_id;
    };

    let game = launch();
    await spawned(call, 1);
    await crashes(game, 500);
    game = launch();
    await spawned(call, 2);
    assert.equal((await health(client))?.state, 'running', 'store_info once the game is back');
    assert.ok(!(await call('quit', {})).isError);
    assert.equal((await exited(game.child, 10_000)).code, 0);
    game = launch();
    await spawned(call, 3);
    const id = await crashes(game, 250);
    await agentReads(client, id, 'RangeError');
  });

  test('over HTTP, the calls recorded by a bridge through POST /api/v1/operations', async () => {
    const dir = await tempDir();
    cleanup.push(() => removeDir(dir));
    const port = await freePort();
    const srv = await startServe(dir);
    cleanup.push(() => srv.stop());
    const agent = await connectHTTP(srv.link);
    cleanup.push(() => agent.close());

    // The bridge: it records each call as an operation of the game, calls the game, and
    // completes the operation with the answer; a call the game never answers it leaves to mcplogd.
    let bridge;
    cleanup.push(() => bridge?.close());
    const connectBridge = async () => {
      await bridge?.close();
      bridge = new Client({ name: 'bridge', version: '1.0.0' });
      await bridge.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    };
    const call = async (name, args) => {
      const op = await srv.api('POST', '/api/v1/operations', { source: 'game', tool: name, arguments: args });
      const res = await bridge.callTool({ name, arguments: args });
      await srv.api('POST', `/api/v1/operations/${op.id}/complete`, res.isError ? { error: text(res) } : { result: res });
      return res;
    };
    const launch = async (run) => {
      const g = runHTTPGame(dir, 'game', port);
      cleanup.push(() => (g.child.exitCode === null ? g.child.kill('SIGKILL') : undefined));
      await waitFor(`the game's run ${run} to listen`, async () => {
        try {
          await connectBridge();
          return true;
        } catch {
          return false;
        }
      }, { timeout: 30_000, interval: 100 });
      return g;
    };
    const crashes = async (game, count) => {
      const op = await srv.api('POST', '/api/v1/operations', { source: 'game', tool: 'spawn_enemy', arguments: { count } });
      bridge.callTool({ name: 'spawn_enemy', arguments: { count } }, undefined, { timeout: 5_000 }).catch(() => {}); // never answered
      const t0 = Date.now();
      const r = await srv.api('GET', `/api/v1/operations/${op.id}?waitMs=10000`);
      const ms = Date.now() - t0;
      assert.equal(r.status, 'crashed', `the bridge's call: ${JSON.stringify(r)}\n${game.output()}`);
      assert.ok(r.error.includes('RangeError'), `the crash is named: ${r.error}`);
      assert.ok(ms <= 2000, `the bridge's call was settled ${ms} ms after it was asked, over 2 s`);
      await exited(game.child, 10_000);
      assert.equal((await health(agent))?.state, 'crashed', 'store_info right after the crash');
      return op.id;
    };

    let game = await launch(1);
    assert.ok(!(await call('spawn_enemy', { count: 5 })).isError);
    await crashes(game, 500);
    game = await launch(2);
    assert.ok(!(await call('spawn_enemy', { count: 5 })).isError);
    assert.equal((await health(agent))?.state, 'running', 'store_info once the game is back');
    await call('quit', {});
    await exited(game.child, 10_000);
    game = await launch(3);
    assert.ok(!(await call('spawn_enemy', { count: 5 })).isError);
    const id = await crashes(game, 250);
    await agentReads(agent, id, 'RangeError');
  });
});
