// The official TypeScript SDK client launching `mcplogd stdio --data DIR` (StdioClientTransport),
// both when no server holds the data directory (with --in-process, stdio opens the store itself) and
// when one does (stdio forwards to it over HTTP).

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import {
  callOk, checkToolList, connectStdio, removeDir, startServe, tailWhileIngesting, tempDir,
} from './lib/harness.mjs';

describe('stdio --in-process with no server: opens the store itself', () => {
  let dir;
  const cleanup = [];
  after(async () => {
    for (const f of cleanup.reverse()) await f();
    await removeDir(dir);
  });

  test('reads what a server wrote, appends, and leaves it for the next server', async () => {
    dir = await tempDir();
    // Write some records with a server, then stop it so that the directory is free.
    let srv = await startServe(dir);
    cleanup.push(() => srv.stop());
    const lines = [
      { level: 'info', name: 'Boot', text: 'stdio-seed one' },
      { level: 'error', name: 'Player', text: 'stdio-seed two', stackTrace: 'at Player.Jump () in Player.cs:7' },
      { level: 'debug', name: 'Boot', text: 'stdio-seed three' },
    ];
    const { ids } = await srv.api('POST', '/api/v1/logs', lines);
    assert.equal((await srv.stop()).code, 0, `serve exits 0 on SIGTERM\n${srv.output()}`);

    const s = await connectStdio(dir, ['--in-process']);
    cleanup.push(() => s.close());
    await checkToolList(s.client);

    const t = await callOk(s.client, 'console_tail', { sinceId: 0, format: 'json', collapse: false });
    assert.equal(t.reset, false);
    assert.deepEqual(t.lines.map((l) => [l.id, l.text]), ids.map((id, i) => [id, lines[i].text]),
      'stdio tails the lines in the store, oldest first');

    const d = await callOk(s.client, 'get_log_details', { log_id: ids[1] });
    assert.deepEqual([d.id, d.text, d.stack, d.prev, d.next], [ids[1], 'stdio-seed two', 'at Player.Jump () in Player.cs:7', ids[0], ids[2]],
      `details of ${ids[1]}: ${JSON.stringify(d)}`);

    const appended = await callOk(s.client, 'append_log', { level: 'info', text: 'written through stdio' });
    const t2 = await callOk(s.client, 'console_tail', { sinceId: t.lastId, format: 'json', collapse: false });
    assert.deepEqual(t2.lines.map((l) => [l.id, l.text]), [[appended.id, 'written through stdio']],
      'append_log answers the ID of the line, which is tailed after the last line');
    const markerId = appended.id;

    // Closing the client ends the child; the store must then be free for a server, with the line in it.
    await s.close();
    srv = await startServe(dir);
    const tail = await srv.api('GET', `/api/v1/tail?sinceId=${markerId - 1}`);
    assert.deepEqual(tail.lines.map((l) => [l.id, l.text]), [[markerId, 'written through stdio']],
      'the line appended through stdio is durable and visible to the next server');
  });
});

describe('stdio with a server running: forwards to it', () => {
  let dir;
  let srv;
  let s;
  after(async () => {
    await s?.close();
    await srv?.stop();
    await removeDir(dir);
  });

  test('lists tools, tails lines ingested over HTTP, details, results, and appends through the server', async () => {
    dir = await tempDir();
    srv = await startServe(dir);
    await srv.api('POST', '/api/v1/logs', [{ level: 'info', text: 'before stdio' }]);
    s = await connectStdio(dir);
    await checkToolList(s.client);

    // The server holds the bbolt file, so everything below goes through it.
    const r = await tailWhileIngesting(s.client, srv, { tag: 'stdio', writers: 3, batches: 12, batchSize: 5, limit: 17 });
    assert.equal(r.lines, 3 * 12 * 5);

    const { ids: [id] } = await srv.api('POST', '/api/v1/logs', [
      { level: 'error', name: 'Net', text: 'socket closed', stackTrace: 'at Net.Read () in Net.cs:99', data: { peer: 'p-17' } },
    ]);
    const d = await callOk(s.client, 'get_log_details', { log_id: id });
    assert.deepEqual([d.id, d.level, d.name, d.text, d.stack, d.data], [id, 'error', 'Net', 'socket closed', 'at Net.Read () in Net.cs:99', { peer: 'p-17' }],
      `details through the server: ${JSON.stringify(d)}`);

    const op = await srv.api('POST', '/api/v1/operations', { tool: 'run_lua', arguments: { code: 'return 1' } });
    // A wait that runs out answers the pending state; it is not an error.
    const pending = await callOk(s.client, 'get_result', { log_id: op.id, waitMs: 200 });
    assert.deepEqual([pending.status, pending.isComplete], ['pending', false]);
    await srv.api('POST', `/api/v1/operations/${op.id}/complete`, { status: 'success', result: { one: 1 } });
    const res = await callOk(s.client, 'get_result', { log_id: op.id });
    assert.equal(res.isComplete, true);
    assert.deepEqual(res.result, { one: 1 });

    await callOk(s.client, 'append_log', { level: 'warn', text: 'appended via stdio to the server' });
    const tail = await srv.api('GET', `/api/v1/tail?sinceId=${op.id}`);
    assert.deepEqual(tail.lines.map((l) => [l.text, l.level]), [['appended via stdio to the server', 'warn']],
      'the running server has the line that stdio appended');
  });
});
