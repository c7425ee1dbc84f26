// The official TypeScript SDK client against `mcplogd serve` over Streamable HTTP.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  callErr, callOk, checkToolList, connectHTTP, mentions, removeDir, startServe, tailStart,
  tailWhileIngesting, tempDir, waitFor,
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
    const pending = callOk(client, 'console_tail', { sinceId, waitMs: 30_000 });
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
    const t = await callOk(client, 'console_tail', { sinceId: id - 1, limit: 1 });
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
    const instructions = client.getInstructions() ?? '';
    const first = /Why did it crash\? (\w+) (\{[^}]*\})/.exec(instructions);
    assert.ok(first, `the instructions answer "why did it crash?" with a call: ${instructions}`);
    assert.equal(first[1], 'find_crashes', 'the instructions lead with find_crashes');
    const args = JSON.parse(first[2].replace(/(\w+):/g, '"$1":'));
    const res = await client.callTool({ name: first[1], arguments: args });
    const bytes = JSON.stringify(res).length;
    assert.ok(bytes <= 4096, `one call, ${bytes} bytes (want ≤ 4 KB)`);
    const text = res.content.map((c) => c.text).join('');
    assert.ok(text.includes('IndexOutOfRangeException') && text.includes('Assets/Scripts/Inventory.cs:88') && text.includes(`#${newest}`),
      `the text names the newest crash, its ID and its top frame with file:line: ${text}`);
    const [g] = res.structuredContent.groups;
    assert.equal(g.lastId, newest, 'the newest group is the newest crash');
    assert.equal(g.stack, stack, 'its whole stack comes with it');
  });
});
