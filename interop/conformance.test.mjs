// The official MCP conformance suite (@modelcontextprotocol/conformance, run with Node 22) against
// `mcplogd serve`: the server scenarios that need none of the suite's fixture tools, resources or
// prompts. CONFORMANCE.md says what each one checks and what mcplogd must do to pass it.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { exited, interopDir, node22, removeDir, startServe, stop, tempDir, track } from './lib/harness.mjs';

export const SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'prompts-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
  'completion-complete',
];

const CLI = path.join(interopDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** Run one scenario; answer its checks (from checks.json), exit code and output. */
async function runScenario(node, url, scenario, outDir) {
  const child = track(spawn(node, [CLI, 'server', '--url', url, '--scenario', scenario, '-o', outDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { output += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { output += d; });
  let how;
  try {
    how = await exited(child, 90_000);
  } catch (e) {
    await stop(child, 2_000);
    throw new Error(`${scenario}: ${e.message}\n${output}`);
  }
  const runs = (await readdir(outDir)).filter((d) => d.startsWith(`server-${scenario}-`));
  assert.equal(runs.length, 1, `${scenario}: one result folder in ${outDir}; output:\n${output}`);
  const checks = JSON.parse(await readFile(path.join(outDir, runs[0], 'checks.json'), 'utf8'));
  return { checks, code: how.code, output };
}

describe('MCP conformance suite (server scenarios)', { concurrency: 3 }, () => {
  let dir;
  let srv;
  let node;
  let outRoot;

  before(async () => {
    node = node22();
    dir = await tempDir();
    outRoot = await tempDir('mcplogd-conformance-');
    srv = await startServe(dir);
  });

  after(async () => {
    await srv?.stop();
    await removeDir(dir);
    await removeDir(outRoot);
  });

  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      const outDir = path.join(outRoot, scenario);
      const { checks, code, output } = await runScenario(node, srv.link, scenario, outDir);
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      const summary = bad.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''} ${c.details ? JSON.stringify(c.details) : ''}`).join('\n');
      assert.ok(checks.some((c) => c.status === 'SUCCESS'), `${scenario}: at least one check succeeds\n${output}`);
      assert.equal(bad.length, 0, `${scenario}: failing checks:\n${summary}`);
      assert.equal(code, 0, `${scenario}: the suite exits 0\n${output}`);
    });
  }
});
