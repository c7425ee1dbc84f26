// MCP 2026-07-28 (no initialize, no Mcp-Session-Id: server/discover, the protocol version and
// client info in each request's _meta, subscriptions/listen) against `mcplogd serve`, beside the
// TypeScript SDK client (1.32.2, which speaks 2025-11-25 sessions) on the same link. The SDK has
// no 2026-07-28 client yet, so these requests are written by hand as the specification words them.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { callOk, connectHTTP, removeDir, startServe, tempDir } from './lib/harness.mjs';

const VERSION = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'interop-2026', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let nextId = 1;

/** POST one 2026-07-28 request; answers the fetch Response. */
function post(link, method, params, signal) {
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'Mcp-Protocol-Version': VERSION,
    'Mcp-Method': method,
  };
  if (method === 'tools/call') headers['Mcp-Name'] = params.name;
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } };
  return fetch(link, { method: 'POST', headers, body: JSON.stringify(body), signal });
}

/** The JSON-RPC messages of an answer (JSON or an event stream). */
function messages(res, text) {
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) return [JSON.parse(text)];
  return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
}

/** Send a request and answer its result; fails on an HTTP or JSON-RPC error. */
async function request(link, method, params = {}) {
  const res = await post(link, method, params);
  const text = await res.text();
  assert.equal(res.status, 200, `${method}: HTTP ${res.status}: ${text}`);
  assert.equal(res.headers.get('mcp-session-id'), null, `${method}: 2026-07-28 has no session`);
  const answer = messages(res, text).find((m) => 'result' in m || 'error' in m);
  assert.ok(answer?.result, `${method}: ${text}`);
  return answer.result;
}

/** Call a tool at 2026-07-28 and answer its structuredContent. */
async function call(link, name, args = {}) {
  const r = await request(link, 'tools/call', { name, arguments: args });
  assert.ok(!r.isError, `${name}: ${JSON.stringify(r)}`);
  return r.structuredContent;
}

describe('MCP 2026-07-28 beside 2025-11-25 sessions (one link)', () => {
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
    await srv?.stop();
    await removeDir(dir);
  });

  test('server/discover names both generations, the capabilities and the server', async () => {
    const r = await request(srv.link, 'server/discover');
    for (const v of [VERSION, '2025-11-25', '2025-06-18', '2025-03-26']) {
      assert.ok(r.supportedVersions.includes(v), `supportedVersions has ${v}: ${JSON.stringify(r)}`);
    }
    assert.ok(r.capabilities?.tools && r.capabilities?.resources?.subscribe, JSON.stringify(r.capabilities));
    assert.equal(r._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'mcplogd');
  });

  test('each generation reads what the other wrote', async () => {
    const mine = await call(srv.link, 'append_log', { text: 'written at 2026-07-28' });
    const theirs = await callOk(client, 'append_log', { text: 'written at 2025-11-25' });
    const seenBySession = await callOk(client, 'console_tail', { sinceId: mine.id - 1, format: 'json', collapse: false });
    assert.deepEqual(seenBySession.lines.map((l) => l.text), ['written at 2026-07-28', 'written at 2025-11-25']);
    const seenStateless = await call(srv.link, 'get_log_details', { log_id: theirs.id });
    assert.equal(seenStateless.text, 'written at 2025-11-25');
    const tools = await request(srv.link, 'tools/list');
    assert.ok(tools.tools.length >= 15, `tools/list: ${tools.tools.length} tools`);
  });

  test('both clients use every tool, each with the example its help gives', async () => {
    const { tools } = await client.listTools();
    const stateless = await request(srv.link, 'tools/list');
    assert.deepEqual(stateless.tools.map((t) => t.name).sort(), tools.map((t) => t.name).sort());
    // Tool errors that are right on this store: no gateway, no such IDs; clear_logs is refused.
    const mayFail = new Set(['replay_operation', 'get_result', 'get_log_details', 'clear_logs']);
    for (const { name } of tools) {
      const help = await callOk(client, 'help', { tool: name });
      const args = name === 'clear_logs' ? { confirm: false } : help.tools[0].example;
      const session = await client.callTool({ name, arguments: args });
      const modern = await request(srv.link, 'tools/call', { name, arguments: args });
      for (const [who, r] of [['2025-11-25', session], ['2026-07-28', modern]]) {
        assert.ok(!r.isError || mayFail.has(name), `${name}(${JSON.stringify(args)}) at ${who}: ${JSON.stringify(r.content)}`);
        assert.ok(r.content?.length > 0, `${name} at ${who} answers`);
      }
      assert.equal(Boolean(modern.isError), Boolean(session.isError), `${name}: the same outcome in both generations`);
    }
  });

  test('subscriptions/listen tells of new console lines', async () => {
    const ctl = new AbortController();
    const res = await post(srv.link, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['mcplogd://console'] } }, ctl.signal);
    assert.equal(res.status, 200);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    const seen = [];
    const next = async (method) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = seen.find((m) => m.method === method);
        if (found) return found;
        assert.ok(Date.now() < deadline, `no ${method} on the listen stream; seen ${JSON.stringify(seen)}`);
        const { value, done } = await reader.read();
        assert.ok(!done, `the listen stream ended before ${method}`);
        buf += value;
        const lines = buf.split('\n');
        buf = lines.pop();
        for (const l of lines) if (l.startsWith('data: ')) seen.push(JSON.parse(l.slice(6)));
      }
    };
    const ack = await next('notifications/subscriptions/acknowledged');
    assert.deepEqual(ack.params.notifications.resourceSubscriptions, ['mcplogd://console']);
    await callOk(client, 'append_log', { text: 'a line for the listener' });
    const updated = await next('notifications/resources/updated');
    assert.equal(updated.params.uri, 'mcplogd://console');
    ctl.abort();
    await reader.cancel().catch(() => {});
  });
});
