// console_tail with default arguments against ping, through the official TypeScript SDK client
// over Streamable HTTP, on a store of N records (default 1,000,000) ingested over the HTTP API:
// how much slower the default console_tail is than ping. Not a test: run it with `make bench-mcp-ts` (RECORDS=N to change the
// size); it prints p50/p99 of each call and the ratio, medians of 3 rounds.
//
// The lines have the shape of the Go benchmarks' workload (internal/workload): ~120-byte messages from a vocabulary, 50 names,
// 4 sources, levels debug 30% / info 55% / warn 10% / error 5%, 10% with a ~1 KB stack.

import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';

import { connectHTTP, removeDir, startServe, tempDir } from './lib/harness.mjs';

// The SDK adds an abort listener per call on a shared signal; thousands of calls are intended here.
setMaxListeners(0);

const records = Number(process.env.RECORDS ?? 1_000_000);
const calls = Number(process.env.CALLS ?? 400);

let seed = 1;
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
const levels = (r) => (r < 0.3 ? 'debug' : r < 0.85 ? 'info' : r < 0.95 ? 'warn' : 'error');
const stack = Array.from({ length: 14 }, (_, i) => `  at Game.System${i}.Update () [0x000${i}] in Assets/Scripts/System${i}.cs:${40 + i}`).join('\n');

function line() {
  const level = levels(rand());
  const words20 = Array.from({ length: 20 }, () => words[Math.floor(rand() * words.length)]).join(' ');
  const l = { level, name: `Name${Math.floor(rand() * 50)}`, source: `src${Math.floor(rand() * 4)}`, text: words20.slice(0, 120) };
  if (level === 'error' || rand() < 0.06) l.stack = stack;
  return l;
}

async function measure(client, name, args) {
  const lat = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const res = await client.callTool({ name, arguments: args });
    lat.push(performance.now() - t);
    if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
  }
  lat.sort((a, b) => a - b);
  return { p50: lat[Math.floor(lat.length / 2)], p99: lat[Math.floor(lat.length * 0.99)] };
}

const dir = await tempDir();
const srv = await startServe(dir);
try {
  for (let n = 0; n < records; n += 1000) {
    await srv.api('POST', '/api/v1/logs', Array.from({ length: Math.min(1000, records - n) }, line));
  }
  const client = await connectHTTP(srv.link);
  const sizes = {};
  for (const [name, args] of [['console_tail', {}], ['ping', {}]]) {
    const res = await client.callTool({ name, arguments: args });
    sizes[name] = JSON.stringify(res).length;
  }
  const rounds = [];
  for (let r = 0; r < 3; r++) {
    const tail = await measure(client, 'console_tail', {});
    const ping = await measure(client, 'ping', {});
    rounds.push({ tail, ping, ratio: tail.p50 / ping.p50 });
    console.log(`round ${r + 1}: console_tail {} p50 ${tail.p50.toFixed(3)} ms p99 ${tail.p99.toFixed(3)} ms; ` +
      `ping p50 ${ping.p50.toFixed(3)} ms p99 ${ping.p99.toFixed(3)} ms; ratio ${(tail.p50 / ping.p50).toFixed(2)}`);
  }
  rounds.sort((a, b) => a.ratio - b.ratio);
  const m = rounds[1];
  console.log(`median of 3 (${records} records, ${calls} calls each, TypeScript SDK over HTTP): console_tail {} ` +
    `${m.tail.p50.toFixed(3)} ms (${sizes.console_tail} bytes), ping ${m.ping.p50.toFixed(3)} ms (${sizes.ping} bytes), ` +
    `ratio ${m.ratio.toFixed(2)}`);
  await client.close();
} finally {
  await srv.stop();
  await removeDir(dir);
}
