// The official TypeScript SDK client against `mcplogd serve` over Streamable HTTP.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { followGameLogs, insertLines } from './lib/gamelogs.mjs';
import {
  callErr, callOk, checkToolList, connectHTTP, instructedCrashCall, mentions, removeDir, resultBytes,
  startServe, tailStart, tailWhileIngesting, tempDir, waitFor,
} from './lib/harness.mjs';

describe('Streamable HTTP (TypeScript SDK client)', () => {
  let dir;
  let srv;
  let client;

  before(async () => {
    dir = await tempDir();
    srv = await startServe(dir);
    client = await connectHTTP(srv.link);
  });

  after(async () => {
    await client?.close();
    if (srv) {
      const how = await srv.stop();
      assert.equal(how.code, 0, `serve exits 0 on SIGTERM (${JSON.stringify(how)})\n${srv.output()}`);
    }
    await removeDir(dir);
  });

  test('initialize negotiates a protocol version and names the server', () => {
    const info = client.getServerVersion();
    assert.ok(info?.name, `serverInfo has a name: ${JSON.stringify(info)}`);
    const caps = client.getServerCapabilities();
    assert.ok(caps?.tools, 'server declares tools');
    assert.ok(caps?.resources?.subscribe, 'server declares resources.subscribe');
    assert.ok(caps?.completions, 'server declares completions');
  });

  test('lists every tool with schemas and annotations', async () => {
    await checkToolList(client);
  });

  test('console_tail pages with sinceId while lines are ingested: each line once, in order', async () => {
    const r = await tailWhileIngesting(client, srv, { tag: 'http' });
    assert.equal(r.lines, 4 * 20 * 7);
  });

  test('console_tail with waitMs answers with a line that arrives during the wait', async () => {
    const { lastId: sinceId } = await tailStart(client);
    const pending = callOk(client, 'console_tail', { sinceId, waitMs: 30_000, format: 'json' });
    const { ids } = await srv.api('POST', '/api/v1/logs', [{ level: 'warn', text: 'long-poll wake-up' }]);
    const r = await pending;
    assert.deepEqual(r.lines.map((l) => [l.id, l.text, l.level]), [[ids[0], 'long-poll wake-up', 'warn']]);
  });

  test('get_log_details returns one record in full, by log_id and by logId', async () => {
    const line = {
      level: 'Exception', name: 'Player', source: 'unity', text: 'NullReferenceException: details-probe',
      stackTrace: 'at Player.Update () in Player.cs:42', data: { scene: 'MainDetails' },
    };
    const { ids: [id] } = await srv.api('POST', '/api/v1/logs', [line]);
    const d = await callOk(client, 'get_log_details', { log_id: id });
    assert.deepEqual(
      { id: d.id, kind: d.kind, level: d.level, name: d.name, source: d.source, text: d.text, stack: d.stack, data: d.data },
      { id, kind: 'line', level: 'error', name: 'Player', source: 'unity', text: line.text, stack: line.stackTrace, data: line.data },
      `get_log_details(${id}) has the whole record: ${JSON.stringify(d)}`);
    assert.ok(!Number.isNaN(Date.parse(d.time)), `time is a timestamp: ${d.time}`);
    assert.ok(d.prev > 0 && d.prev < id, `prev is the record before: ${d.prev}`);
    assert.equal(d.next, 0, 'no record after the newest');
    assert.deepEqual(await callOk(client, 'get_log_details', { logId: id }), d, 'logId is the same as log_id');

    // The tail never carries stack traces; it marks lines that have one.
    const t = await callOk(client, 'console_tail', { sinceId: id - 1, limit: 1, format: 'json' });
    assert.equal(t.lines[0].id, id);
    assert.ok(!mentions(t, 'Player.cs:42'), 'tail lines carry no stack trace');
    assert.equal(t.lines[0].hasStack, true, 'tail marks the line that has a stack');

    const msg = await callErr(client, 'get_log_details', { log_id: id + 1_000_000 });
    assert.match(msg, /log_?id|not found|no (such )?record/i, 'unknown ID is a tool error naming it');
  });

  test('get_result follows an operation from pending to success', async () => {
    const op = await srv.api('POST', '/api/v1/operations', { tool: 'run_lua', arguments: { code: 'return world:count()' }, source: 'interop' });
    assert.equal(typeof op.id, 'number', `operation created: ${JSON.stringify(op)}`);

    const pending = await callOk(client, 'get_result', { log_id: op.id });
    assert.equal(pending.status, 'pending');
    assert.equal(pending.isComplete, false);
    // A wait that runs out answers the pending state; it is not an error.
    const stillPending = await callOk(client, 'get_result', { log_id: op.id, waitMs: 200 });
    assert.deepEqual([stillPending.status, stillPending.isComplete], ['pending', false]);

    // A waiting get_result answers once the operation completes.
    const waiting = callOk(client, 'get_result', { logId: op.id, waitMs: 30_000 });
    await srv.api('POST', `/api/v1/operations/${op.id}/complete`, { status: 'success', result: { count: 12 } });
    const done = await waiting;
    assert.equal(done.status, 'success');
    assert.equal(done.isComplete, true);
    assert.deepEqual(done.result, { count: 12 });

    const d = await callOk(client, 'get_log_details', { log_id: op.id });
    assert.deepEqual(
      { kind: d.kind, tool: d.tool, arguments: d.arguments, status: d.status, isComplete: d.isComplete, result: d.result },
      { kind: 'op', tool: 'run_lua', arguments: { code: 'return world:count()' }, status: 'success', isComplete: true, result: { count: 12 } },
      `details of an operation: ${JSON.stringify(d)}`);

    const { ids: [lineId] } = await srv.api('POST', '/api/v1/logs', [{ level: 'info', text: 'not an operation' }]);
    await callErr(client, 'get_result', { log_id: lineId });
  });

  test('resources: console and records/{id} read; a console subscription is told about new lines', async () => {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'mcplogd://console'), `mcplogd://console is listed: ${JSON.stringify(resources)}`);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'mcplogd://records/{id}'),
      `mcplogd://records/{id} is a template: ${JSON.stringify(resourceTemplates)}`);

    const updated = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updated.push(n.params.uri); });
    await client.subscribeResource({ uri: 'mcplogd://console' });
    const { ids: [id] } = await srv.api('POST', '/api/v1/logs', [{ level: 'info', name: 'Sub', text: 'subscription probe' }]);
    await waitFor('notifications/resources/updated for mcplogd://console', () => updated.includes('mcplogd://console'));

    const console = await client.readResource({ uri: 'mcplogd://console' });
    assert.ok(mentions(console.contents, 'subscription probe'), 'mcplogd://console has the newest line');
    const rec = await client.readResource({ uri: `mcplogd://records/${id}` });
    assert.equal(rec.contents.length, 1);
    const recJSON = JSON.parse(rec.contents[0].text);
    assert.deepEqual([recJSON.id, recJSON.text, recJSON.name], [id, 'subscription probe', 'Sub'], `mcplogd://records/${id} is the record as JSON`);

    await client.unsubscribeResource({ uri: 'mcplogd://console' });
  });

  test('completion offers the stored log names', async () => {
    await srv.api('POST', '/api/v1/logs', ['PlayerController', 'PlayerInput', 'NetworkManager'].map((name) => ({ level: 'info', name, text: `from ${name}` })));
    const { prompts } = await client.listPrompts();
    const prompt = prompts.find((p) => p.arguments?.some((a) => a.name === 'log_name'));
    assert.ok(prompt, `a prompt takes log_name: ${JSON.stringify(prompts)}`);
    const { completion } = await client.complete({ ref: { type: 'ref/prompt', name: prompt.name }, argument: { name: 'log_name', value: 'Play' } });
    assert.ok(completion.values.includes('PlayerController') && completion.values.includes('PlayerInput'),
      `completion of "Play": ${JSON.stringify(completion)}`);
    assert.ok(!completion.values.includes('NetworkManager'), 'completion keeps to the prefix');
  });
  test('why did the game crash? the instructions\' first call answers with the newest crash and its stack, small', async () => {
    const nre = (line) => `NullReferenceException: Object reference not set to an instance of an object
  at Enemy.Chase () [0x00021] in Assets/Scripts/Enemy.cs:${line}
  at Enemy.Update () [0x00003] in Assets/Scripts/Enemy.cs:17`;
    for (let i = 0; i < 30; i++) {
      await srv.api('POST', '/api/v1/logs', [
        { level: 'info', name: 'Wave', source: 'unity', text: `wave ${i} spawned` },
        { level: 'Exception', name: 'Enemy', source: 'unity', text: 'NullReferenceException', stack_trace: nre(40 + (i % 3)) },
      ]);
    }
    const stack = `IndexOutOfRangeException: Index was outside the bounds of the array.
  at Inventory.Equip (System.Int32 slot) [0x0000c] in Assets/Scripts/Inventory.cs:88
  at PlayerInput.OnKey (UnityEngine.KeyCode key) [0x00041] in Assets/Scripts/PlayerInput.cs:132
  at PlayerInput.Update () [0x00010] in Assets/Scripts/PlayerInput.cs:51`;
    const { ids: [newest] } = await srv.api('POST', '/api/v1/logs',
      [{ level: 'Exception', name: 'Inventory', source: 'unity', text: 'IndexOutOfRangeException', stack_trace: stack }]);

    // An agent reads the instructions and makes the call they name first for a crash.
    const call = instructedCrashCall(client);
    assert.equal(call.name, 'find_crashes', 'the instructions lead with find_crashes');
    const res = await client.callTool(call);
    const bytes = resultBytes(res);
    assert.ok(bytes <= 4096, `one call, ${bytes} bytes (want ≤ 4 KB)`);
    const text = res.content.map((c) => c.text).join('');
    assert.ok(text.includes('IndexOutOfRangeException') && text.includes('Assets/Scripts/Inventory.cs:88') && text.includes(`#${newest}`),
      `the text names the newest crash, its ID and its top frame with file:line: ${text}`);
    const [g] = res.structuredContent.groups;
    assert.equal(g.lastId, newest, 'the newest group is the newest crash');
    assert.equal(g.stack, stack, 'its whole stack comes with it');
  });
});

// "Why did the game crash?" on a store made as users make one: mcplogd following the log files
// of four runs, written in this order (none of the logs has timestamps, so a record's time is
// when it was read):
//   1. a LÖVE game whose Lua error ended its run (fatal): a crash, but not the latest;
//   2. RimWorld's Player.log (Unity 2019.4): allocation failures, then the native `Crash!!!` dump
//      that ended the run: the crash that ended the latest crashed run, the one to name;
//   3. a later Godot run: handled script errors with their at: lines, amid 2,000 lines of output;
//   4. a later Unity Editor run: handled exceptions with stacks and `error CS1002` compile errors.
// Newer errors than the crash exist, and none of them ended a run.
describe('Why did the game crash? followed game logs (TypeScript SDK client)', () => {
  let dir;
  let srv;
  let client;
  const flood = Array.from({ length: 2000 }, (_, i) => `Frame ${1000 + i}: 60 fps, ${300 + (i % 50)} nodes`);
  // Messages of the records that are not the crash to name.
  const decoys = [/attempt to index local 'player'/, /Invalid get index/, /Node not found/, /NullReferenceException/,
    /InvalidOperationException/, /error CS\d/];

  before(async () => {
    dir = await tempDir();
    srv = await followGameLogs(dir, [
      { parser: 'lua', source: 'Love', file: 'love.txt', fixture: 'love/error_update.txt' },
      { parser: 'unity', source: 'RimWorld', file: 'Player.log', fixture: 'unity/player-2019.4-oom-crash.log' },
      { parser: 'godot', source: 'Godot', file: 'godot.log', fixture: 'godot.log',
        edit: (b) => insertLines(b.toString(), 'Level loaded in', flood) },
      { parser: 'unity', source: 'Editor', file: 'Editor.log', fixture: 'unity_editor.log' },
    ]);
    client = await connectHTTP(srv.link);
  });

  after(async () => {
    await client?.close();
    if (srv) {
      const how = await srv.stop();
      assert.equal(how.code, 0, `serve exits 0 on SIGTERM (${JSON.stringify(how)})\n${srv.output()}`);
    }
    await removeDir(dir);
  });

  // What the answer must name, from the runs mcplogd recorded (GET /api/v1/runs), checked first
  // against the story above so that the question has one right answer.
  async function expectedCrash() {
    const { runs } = await srv.api('GET', '/api/v1/runs');
    const bySource = Object.fromEntries(runs.map((r) => [r.source, r]));
    const crashed = runs.filter((r) => r.outcome === 'crashed').sort((a, b) => Date.parse(b.end) - Date.parse(a.end));
    assert.deepEqual(crashed.map((r) => `${r.source}#${r.run}`), ['RimWorld#1', 'Love#1'],
      `two runs crashed, RimWorld's last: ${JSON.stringify(runs)}`);
    const [run, older] = crashed;
    assert.ok(Date.parse(run.end) > Date.parse(older.end), `RimWorld's crash is later than LÖVE's: ${run.end} > ${older.end}`);
    for (const s of ['Godot', 'Editor']) {
      const r = bySource[s];
      assert.ok(r && r.outcome !== 'crashed' && r.errors > 0 && Date.parse(r.start) > Date.parse(run.end),
        `${s} ran later with errors and did not crash: ${JSON.stringify(r)}`);
    }
    const rec = await srv.api('GET', `/api/v1/records/${run.crashId}`);
    assert.equal(rec.level, 'fatal', `the crash record: ${JSON.stringify(rec).slice(0, 300)}`);
    assert.ok(rec.stack.includes('UnityEngine.Texture2D:Compress') && rec.stack.includes('Verse.StaticTextureAtlas:Bake'),
      'the crash record is the fixture\'s Crash!!! dump');
    return { run, older, rec };
  }

  test('the instructions\' first call names the crash that ended the latest crashed run, within 4 KB', async (t) => {
    const { run, rec } = await expectedCrash();

    // An agent reads the instructions and makes the call they name first, as they name it.
    const call = instructedCrashCall(client);
    assert.equal(call.name, 'find_crashes', 'the instructions lead with find_crashes');
    const res = await client.callTool(call);
    const bytes = resultBytes(res);
    t.diagnostic(`${call.name} ${JSON.stringify(call.arguments)}: ${bytes} bytes`);
    assert.ok(bytes <= 4096, `one call, ${bytes} bytes (want ≤ 4096)`);
    assert.ok(!res.isError, `no tool error: ${JSON.stringify(res).slice(0, 300)}`);

    const g = res.structuredContent.groups[0];
    assert.ok(g, `a group: ${JSON.stringify(res.structuredContent)}`);
    assert.equal(g.class, 'crash');
    assert.ok(g.runsEnded >= 1, `it ended a run: runsEnded ${g.runsEnded}`);
    assert.equal(g.lastId, rec.id, `the newest occurrence is RimWorld's crash record #${rec.id}: ${JSON.stringify(g)}`);
    assert.equal(g.run, `${run.source}#${run.run}`, 'run names the source and the run it ended');
    assert.deepEqual(g.sources, ['RimWorld']);

    // The title (or, when the title does not carry it, the message) names this crash and no other.
    const named = `${g.title}\n${g.text ?? ''}`;
    assert.match(named, /Crash!!!|Texture2D|StaticTextureAtlas/, `title names the native crash: ${named}`);
    for (const d of decoys) assert.doesNotMatch(named, d, `title is not a handled error, a compile error or LÖVE's crash: ${named}`);

    // The dump has managed frames of the game, so frame is set: one of the crash's own frames,
    // managed code rather than UnityPlayer's or Windows' native frames.
    assert.ok(g.frame, `frame is set: ${JSON.stringify(g)}`);
    assert.ok(rec.stack.includes(g.frame), `frame is a line of the crash's stack: ${g.frame}`);
    assert.match(g.frame, /\(Mono JIT Code\)/, 'frame is managed code');

    // before: the lines just before the crash in RimWorld's log, oldest first, ending with the
    // allocator's report that came just before the dump.
    assert.ok(Array.isArray(g.before) && g.before.length > 0, `before is present: ${JSON.stringify(g)}`);
    const ids = g.before.map((l) => Number(/^#(\d+) /.exec(l)?.[1]));
    for (const id of ids) assert.ok(id >= run.firstId && id < rec.id, `before ${id} is of the crashed run, before #${rec.id}: ${g.before}`);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'before is oldest first');
    assert.match(g.before.at(-1), /Could not allocate memory/, 'the last line before is the allocator\'s report');

    // The text block says the same to a reader of text alone.
    const text = res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    for (const want of [g.title, `#${rec.id}`, g.run, ...g.before]) {
      assert.ok(text.includes(want), `the text mentions ${JSON.stringify(want)}: ${text}`);
    }
    assert.match(text.split('\n')[1], /^crash /, 'its first group is a crash');
    for (const d of decoys) assert.doesNotMatch(text, d, 'the text names no other group');
  });

  test('class compile lists the compile errors, apart from the crashes and handled errors', async () => {
    const { groups } = await callOk(client, 'find_crashes', { class: 'compile' });
    assert.ok(groups.length > 0 && groups.every((g) => g.class === 'compile'), `only compile groups: ${JSON.stringify(groups)}`);
    const cs = groups.find((g) => g.title.includes('error CS1002'));
    assert.ok(cs, `the Editor's error CS1002 is a group: ${JSON.stringify(groups)}`);
    assert.deepEqual(cs.sources, ['Editor']);
    assert.equal(cs.runsEnded, 0, 'a compile error ends no run');

    const all = await callOk(client, 'find_crashes', {});
    assert.ok(!all.groups.some((g) => g.class === 'compile'), 'without class, compile errors are left out');
  });

  test('level fatal keeps the crashes and leaves out the handled exceptions', async () => {
    const { run, older, rec } = await expectedCrash();
    const all = await callOk(client, 'find_crashes', {});
    const handled = all.groups.filter((g) => g.class === 'error' && (g.sources.includes('Godot') || g.sources.includes('Editor')));
    assert.ok(handled.length >= 2, `the later runs' handled errors are groups of class error: ${JSON.stringify(all.groups)}`);
    for (const g of handled) {
      assert.ok(Date.parse(g.lastSeen) > Date.parse(run.end) && g.lastId > rec.id, `${g.title} is newer than the crash`);
    }

    const fatal = await callOk(client, 'find_crashes', { level: 'fatal' });
    assert.ok(fatal.groups.every((g) => g.level === 'fatal'), `only fatal groups: ${JSON.stringify(fatal.groups)}`);
    assert.deepEqual(fatal.groups.map((g) => g.lastId), [rec.id, older.crashId], 'RimWorld\'s crash, then LÖVE\'s');
    for (const h of handled) {
      assert.ok(!fatal.groups.some((g) => g.signature === h.signature), `level fatal leaves out ${h.title}`);
    }
  });
});

// At the session cap the least recently used idle session makes room for a new client. A live
// TypeScript client keeps its GET stream open, so it is never evicted: only one that lost its
// stream and then sent nothing for 2 minutes is (api/mcp_sessions_test.go evicts on a clock it
// moves; this suite runs the real binary and does not wait 2 minutes). What an evicted client sees
// is a 404 for its session, which the second test causes the way eviction does, by closing the
// session on the server: a DELETE of its ID from outside the client. SDK 1.32.2 does not open a
// new session on that 404: the call rejects with StreamableHTTPError code 404, the transport keeps
// the dead session ID, and every later call rejects too. The application has to connect a new
// Client with a new transport, which works.
describe('Session cap and a closed session (TypeScript SDK client)', () => {
  let dir;
  let srv;
  let transport;
  let client;
  let fresh;

  before(async () => {
    dir = await tempDir();
    srv = await startServe(dir, ['--max-mcp-sessions', '1']);
    transport = new StreamableHTTPClientTransport(new URL(srv.link));
    client = new Client({ name: 'mcplogd-interop-evicted', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
    await fresh?.close();
    if (srv) {
      const how = await srv.stop();
      assert.equal(how.code, 0, `serve exits 0 on SIGTERM (${JSON.stringify(how)})\n${srv.output()}`);
    }
    await removeDir(dir);
  });

  test('at the cap, with the one session in use, a new client gets 503 saying what to do', async () => {
    await callOk(client, 'ping');
    await assert.rejects(connectHTTP(srv.link), (e) => {
      assert.equal(e.code, 503, `the refusal's status: ${e.message}`);
      assert.match(e.message, /all 1 are in use/);
      assert.match(e.message, /--max-mcp-sessions/);
      return true;
    });
  });

  test('a session closed on the server: the call rejects with 404, no new session; a new client connects', async () => {
    const id = transport.sessionId;
    assert.ok(id, 'the transport has a session ID');
    const res = await fetch(srv.link, { method: 'DELETE', headers: { 'Mcp-Session-Id': id } });
    assert.equal(res.status, 204, 'DELETE of the session');
    for (let i = 0; i < 2; i++) {
      await assert.rejects(client.callTool({ name: 'ping', arguments: {} }), (e) => {
        assert.equal(e.code, 404, `call ${i + 1} after the session closed: ${e.message}`);
        return true;
      });
      assert.equal(transport.sessionId, id, 'SDK 1.32.2 keeps the closed session\'s ID');
    }
    fresh = await connectHTTP(srv.link);
    assert.ok((await callOk(fresh, 'ping')), 'ping of the new client');
  });
});
