// The summaries an agent reads first, through the official TypeScript SDK client over HTTP, on a
// store shaped like a game's (a smaller cousin of internal/harness/agentload's, appended over the ingest
// API): a flood of one message template, numbered repeats, errors, a crash, and two runs of one
// source where run 1 has error A and run 2 has A fixed and a new error B. console_tail collapses
// the flood into one ×N entry and stays within 16 KB; log_stats names the noisiest template
// within 4 KB; compare_runs names A gone and B new; search_logs finds the crash; tools/list
// stays within 16 KiB.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { callOk, connectHTTP, removeDir, startServe, tempDir } from './lib/harness.mjs';

const FLOOD = 400;
const FLOOD_TEMPLATE = 'Snapshot <N> sent to peer <IP>';
const ERROR_A = 'NullReferenceException: Object reference not set to an instance of an object at PlayerController.Update';
const ERROR_B = 'IndexOutOfRangeException: Index was outside the bounds of the array at Inventory.AddItem';
const CRASH = 'Program crashed with signal 11 (SIGSEGV) in libphysics.so';

const textOf = (res) => (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const bytesOf = (res) => Buffer.byteLength(JSON.stringify(res), 'utf8');

describe('summaries on a game-shaped store (TypeScript SDK, HTTP)', () => {
  let dir;
  let srv;
  let client;
  let flood; // {first, last}: the flood's record IDs
  let beforeFlood; // the ID of the line just before the flood

  before(async () => {
    dir = await tempDir();
    srv = await startServe(dir);
    const post = (records) => srv.api('POST', '/api/v1/logs', records);

    // Source "game", run 1: startup lines, numbered repeats, error A three times.
    const run1 = [{ kind: 'marker', name: 'run', level: 'info', source: 'game', text: 'run started: game' }];
    for (let i = 0; i < 40; i++) run1.push({ level: 'info', source: 'game', name: 'Loader', text: `Loaded asset bundle ${i} of 40 (${1000 + 37 * i} KB)` });
    for (let i = 0; i < 3; i++) {
      run1.push({ level: 'error', source: 'game', name: 'Player', text: ERROR_A });
      run1.push({ level: 'info', source: 'game', name: 'Player', text: `Player respawned at checkpoint ${i}` });
    }
    await post(run1);

    // Run 2: A is fixed; a new error B.
    const run2 = [{ kind: 'marker', name: 'run', level: 'info', source: 'game', text: 'run started: game' }];
    for (let i = 0; i < 40; i++) run2.push({ level: 'info', source: 'game', name: 'Loader', text: `Loaded asset bundle ${i} of 40 (${1000 + 37 * i} KB)` });
    for (let i = 0; i < 2; i++) {
      run2.push({ level: 'error', source: 'game', name: 'Inventory', text: ERROR_B });
      run2.push({ level: 'warn', source: 'game', name: 'Inventory', text: `Inventory slot ${i + 7} rejected item id ${4000 + i}` });
    }
    await post(run2);

    // Source "server": a Lua/Minecraft-like server log with a crash, then the flood, then a line.
    const server = [];
    for (let i = 0; i < 60; i++) server.push({ level: 'info', source: 'server', name: 'World', text: `Saving chunk [${i}, ${-i}] to region r.0.${i % 4}.mca` });
    server.push({ level: 'fatal', source: 'server', name: 'Physics', text: CRASH });
    server.push({ level: 'info', source: 'server', name: 'Net', text: 'Listening on 0.0.0.0:7777' });
    const pre = await post(server);
    beforeFlood = pre.lastId;
    const lines = [];
    for (let i = 0; i < FLOOD; i++) lines.push({ level: 'info', source: 'server', name: 'Net', text: `Snapshot ${5000 + i} sent to peer 10.0.0.${i % 9 + 1}:7777` });
    const f = await post(lines);
    flood = { first: f.firstId, last: f.lastId };
    assert.equal(f.count, FLOOD, 'the flood was stored whole');
    await post([{ level: 'warn', source: 'server', name: 'Net', text: 'peer 10.0.0.3:7777 timed out' }]);

    client = await connectHTTP(srv.link);
  });

  after(async () => {
    await client?.close();
    await srv?.stop();
    await removeDir(dir);
  });

  test('console_tail: the flood is one ×N entry, the answer within 16 KB, its lastId the uncollapsed one', async () => {
    const res = await client.callTool({ name: 'console_tail', arguments: {} });
    assert.ok(!res.isError, textOf(res));
    const text = textOf(res);
    assert.ok(bytesOf(res) <= 16 << 10, `console_tail {}: ${bytesOf(res)} bytes, want ≤ 16 KB`);
    // The default limit counts records (200), so the newest part of the flood is one entry
    // #a..#b ×N, its N the records between a and b and b the flood's last.
    const m = new RegExp(`#(\\d+)\\.\\.#${flood.last} ×(\\d+) [^\\n]*${FLOOD_TEMPLATE.replace(/[<>]/g, '\\$&')}`).exec(text);
    assert.ok(m, `console_tail {}: the flood as one ×N entry ending at #${flood.last}:\n${text.slice(0, 1500)}`);
    assert.equal(Number(m[2]), flood.last - Number(m[1]) + 1, `console_tail {}: ${m[0]}`);
    assert.ok(Number(m[2]) >= 100, `console_tail {}: ${m[0]}: at least 100 of the flood's lines`);
    assert.ok(text.includes('peer 10.0.0.3:7777 timed out'), 'console_tail {}: the line after the flood');
    assert.equal(res.structuredContent.lines, undefined, 'console_tail {}: the entries are in the text block only');

    const plain = await callOk(client, 'console_tail', { collapse: false, maxBytes: 256 << 10 });
    assert.equal(res.structuredContent.lastId, plain.lastId, 'console_tail {}: lastId is the uncollapsed answer\'s');

    // Over one range given by sinceId: both answers end at the same record.
    const run = `#${flood.first}..#${flood.last} ×${FLOOD} `;
    const since = { sinceId: beforeFlood, limit: 1000 };
    const lean = await client.callTool({ name: 'console_tail', arguments: since });
    assert.ok(!lean.isError, textOf(lean));
    assert.ok(textOf(lean).includes(run), `console_tail ${JSON.stringify(since)}: the flood as ${run}`);
    assert.ok(bytesOf(lean) <= 16 << 10, `console_tail ${JSON.stringify(since)}: ${bytesOf(lean)} bytes, want ≤ 16 KB`);
    const full = await callOk(client, 'console_tail', { ...since, collapse: false, maxBytes: 256 << 10, format: 'json' });
    assert.equal(full.more, false, 'the uncollapsed answer holds the whole range');
    assert.equal(full.lines.length, FLOOD + 1, 'the uncollapsed answer: every line after sinceId');
    assert.equal(lean.structuredContent.more, false);
    assert.equal(lean.structuredContent.lastId, full.lastId, 'collapsed and uncollapsed answers over one range end at one lastId');
    assert.equal(full.lastId, full.lines.at(-1).id);
  });

  test('log_stats: within 4 KB, naming the noisiest template first', async () => {
    const res = await client.callTool({ name: 'log_stats', arguments: {} });
    assert.ok(!res.isError, textOf(res));
    assert.ok(bytesOf(res) <= 4 << 10, `log_stats {}: ${bytesOf(res)} bytes, want ≤ 4 KB`);
    const top = res.structuredContent.top ?? [];
    assert.equal(top[0]?.text, FLOOD_TEMPLATE, `log_stats {}: the noisiest template first: ${JSON.stringify(top)}`);
    assert.equal(top[0].count, FLOOD);
    assert.ok(textOf(res).includes(`top: info ×${FLOOD} ${FLOOD_TEMPLATE}`), `log_stats {} text:\n${textOf(res)}`);
  });

  test('compare_runs: error A gone, error B new', async () => {
    const res = await client.callTool({ name: 'compare_runs', arguments: { source: 'game' } });
    assert.ok(!res.isError, textOf(res));
    const text = textOf(res);
    const game = (res.structuredContent.sources ?? []).find((s) => s.source === 'game');
    assert.ok(game, `compare_runs {source: game}: the game source: ${text}`);
    const has = (list, needle) => (list ?? []).some((c) => c.text.includes(needle));
    // Long texts are cut in the answer: the exceptions' names are what identify A and B.
    assert.ok(has(game.gone, 'NullReferenceException'), `A gone: ${text}`);
    assert.ok(has(game.new, 'IndexOutOfRangeException'), `B new: ${text}`);
    assert.ok(!has(game.new, 'NullReferenceException'), `A not new: ${text}`);
    assert.ok(!has(game.gone, 'IndexOutOfRangeException'), `B not gone: ${text}`);
    assert.match(text, /gone: error ×3 NullReferenceException/);
    assert.match(text, /new: error ×2 IndexOutOfRangeException/);
  });

  test('search_logs {query: "crash"} finds the signal 11 crash', async () => {
    const res = await client.callTool({ name: 'search_logs', arguments: { query: 'crash' } });
    assert.ok(!res.isError, textOf(res));
    // The matched word is highlighted (**crashed**): compare without the marks.
    const text = textOf(res);
    assert.ok(text.replaceAll('**', '').includes(CRASH), `search_logs crash:\n${text.slice(0, 1500)}`);
  });

  test('tools/list within 16 KiB', async () => {
    const list = await client.listTools();
    const n = Buffer.byteLength(JSON.stringify(list), 'utf8');
    assert.ok(n <= 16 << 10, `tools/list: ${n} bytes, want ≤ 16 KiB`);
    for (const name of ['console_tail', 'log_stats', 'compare_runs', 'search_logs']) {
      assert.ok(list.tools.some((t) => t.name === name), `tools/list has ${name}`);
    }
  });
});
