// The npm packages `make npm` packs (npm/pack.mjs), installed from their .tgz files into a temporary
// prefix offline (a temporary npm cache, a registry nobody answers at, and a PATH of node, npm,
// npx and sh only: no Go), then run through the launcher: `npx mcplogd version`, `serve` (its
// HTTP API answers; SIGTERM to the launcher stops the binary cleanly; a signal that kills the
// binary kills the launcher), `stdio` (the TypeScript SDK client's initialize, tools/list and a
// large append and read back through npx), and the launcher's message when the platform's package
// is missing. make interop packs this platform's packages into $MCPLOGD_DIST first.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { npmVersion } from '../npm/pack.mjs';
import {
  alive, api, callOk, checkToolList, exited, interopDir, removeDir, stop, tempDir, track, waitFor,
} from './lib/harness.mjs';

const dist = process.env.MCPLOGD_DIST || path.join(interopDir, '.bin', 'dist');
const platformPkg = `@mcplogd/${process.platform}-${process.arch}`;

test('npmVersion: release tags keep their version, every other build is 0.0.0-dev.<commit>', () => {
  const cases = [
    ['v1.2.3', '1.2.3'],
    ['1.2.3', '1.2.3'],
    ['v1.2.3-rc.1', '1.2.3-rc.1'],
    ['v1.2.3-4-g5de4503', '0.0.0-dev.5de4503'],
    ['v1.2.3-4-g5de4503-dirty', '0.0.0-dev.5de4503.dirty'],
    ['v1.2.3-dirty', '0.0.0-dev.dirty'],
    ['5de4503', '0.0.0-dev.5de4503'],
    ['5de4503-dirty', '0.0.0-dev.5de4503.dirty'],
    ['0123456', '0.0.0-dev.g0123456'], // a numeric identifier may not start with 0
    ['1234567', '0.0.0-dev.1234567'],
    ['dev', '0.0.0-dev'],
    ['v01.2.3', '0.0.0-dev'],
  ];
  for (const [stamp, want] of cases) assert.equal(npmVersion(stamp), want, `npmVersion(${stamp})`);
});

/** Runs cmd with the prefix's environment; answers spawnSync's result, asserting it ran. */
function run(env, cwd, cmd, args) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  assert.ifError(r.error);
  return r;
}

/** Processes (pids) whose command line mentions every one of parts (a data directory, a command). */
async function processesWith(...parts) {
  const pids = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (parts.every((s) => cmdline.includes(s))) pids.push(Number(pid));
  }
  return pids;
}

async function parentOf(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Waits for `serve` to print its link; answers the data directory's server.json and token. */
async function served(proc, dir, output) {
  await waitFor('serve to print its link', () => {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`serve ended: ${proc.exitCode ?? proc.signalCode}\n${output()}`);
    return /^\s*link:\s+http/m.test(output());
  });
  const server = JSON.parse(await readFile(path.join(dir, 'server.json'), 'utf8'));
  const token = (await readFile(path.join(dir, 'token'), 'utf8')).trim();
  return { server, token, base: `http://${server.addr}` };
}

function capture(proc) {
  let out = '';
  proc.stdout?.setEncoding('utf8').on('data', (d) => { out += d; });
  proc.stderr?.setEncoding('utf8').on('data', (d) => { out += d; });
  return () => out;
}

describe('npm packages installed offline, run through the launcher', () => {
  let prefix;
  let env;
  let proj;
  let version;
  let distBinary;
  const procs = [];

  before(async () => {
    const manifest = path.join(dist, 'npm', 'mcplogd', 'package.json');
    if (!existsSync(manifest)) throw new Error(`${manifest} not found: run make interop (it runs make npm for this platform) or set MCPLOGD_DIST`);
    version = JSON.parse(await readFile(manifest, 'utf8')).version;
    const launcherTgz = path.join(dist, `mcplogd-${version}.tgz`);
    const platformTgz = path.join(dist, `${platformPkg.slice(1).replace('/', '-')}-${version}.tgz`);
    for (const f of [launcherTgz, platformTgz]) assert.ok(existsSync(f), `${f} exists (make npm packs it)`);
    distBinary = path.join(dist, `mcplogd-${{ win32: 'windows' }[process.platform] ?? process.platform}-${{ x64: 'amd64' }[process.arch] ?? process.arch}`);

    prefix = await tempDir('mcplogd-npm-');
    // PATH holds only node, npm, npx and sh, so that nothing from the build (Go) is in reach.
    const tools = path.join(prefix, 'tools');
    await mkdir(tools);
    await symlink(process.execPath, path.join(tools, 'node'));
    for (const t of ['npm', 'npx', 'sh']) {
      const found = spawnSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).stdout.trim();
      assert.ok(found, `${t} is on PATH`);
      await symlink(await realpath(found), path.join(tools, t));
    }
    env = {
      PATH: tools,
      HOME: path.join(prefix, 'home'),
      TMPDIR: path.join(prefix, 'tmp'),
      npm_config_cache: path.join(prefix, 'npm-cache'),
      npm_config_registry: 'http://127.0.0.1:9/', // nothing listens: any fetch fails at once
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    await mkdir(env.HOME);
    await mkdir(env.TMPDIR);
    assert.equal(spawnSync('go', ['version'], { env }).error?.code, 'ENOENT', 'no go on the runs\' PATH');

    proj = path.join(prefix, 'proj');
    await mkdir(proj);
    const r = run(env, proj, path.join(tools, 'npm'), ['install', platformTgz, launcherTgz]);
    assert.equal(r.status, 0, `npm install of the tarballs, offline\n${r.stdout}${r.stderr}`);
  });

  after(async () => {
    for (const p of procs) await stop(p);
    // A binary a broken launcher left behind would hold the test's pipes open for good.
    if (prefix) for (const pid of await processesWith(prefix)) process.kill(pid, 'SIGKILL');
    await removeDir(prefix);
  });

  test('npx mcplogd version is the packed binary\'s', () => {
    const want = run(process.env, dist, distBinary, ['version']);
    assert.equal(want.status, 0, want.stderr);
    assert.match(want.stdout, /^mcplogd \S+ \(go/);
    const r = run(env, proj, 'npx', ['-y', 'mcplogd', 'version']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, want.stdout);
  });

  test('the launcher exits with the binary\'s code and runs the platform package\'s binary', async () => {
    const r = run(env, proj, 'npx', ['mcplogd', 'no-such-command']);
    assert.equal(r.status, 2, `a usage error is 2\n${r.stderr}`);
    assert.match(r.stderr, /unknown command "no-such-command"/);
    const bin = path.join(proj, 'node_modules', ...platformPkg.split('/'), 'bin', 'mcplogd');
    assert.equal((await readFile(bin)).equals(await readFile(distBinary)), true, `${bin} is make dist's binary`);
  });

  test('serve answers through npx; SIGTERM to the launcher stops the binary cleanly', async () => {
    const dir = path.join(prefix, 'data-serve');
    const proc = track(spawn('npx', ['-y', 'mcplogd', 'serve', '--data', dir, '--addr', '127.0.0.1:0'], {
      cwd: proj, env, stdio: ['ignore', 'pipe', 'pipe'],
    }));
    procs.push(proc);
    const output = capture(proc);
    const { server, token, base } = await served(proc, dir, output);
    const { ids } = await api(base, token, 'POST', '/api/v1/logs', [{ level: 'info', text: 'through npx' }]);
    const tail = await api(base, token, 'GET', `/api/v1/tail?sinceId=${ids[0] - 1}`);
    assert.deepEqual(tail.lines.map((l) => l.text), ['through npx']);

    // The binary is the launcher's child (npx runs the launcher under a shell); signal the launcher.
    const launcher = await parentOf(server.pid);
    assert.match(await readFile(`/proc/${launcher}/cmdline`, 'utf8'), /node.*mcplogd/, 'the binary\'s parent is the Node launcher');
    process.kill(launcher, 'SIGTERM');
    assert.deepEqual(await exited(proc, 20_000), { code: 0, signal: null }, `npx exits 0 as serve did\n${output()}`);
    assert.equal(alive(server.pid), false, 'the binary has exited');
    const after = JSON.parse(await readFile(path.join(dir, 'server.json'), 'utf8'));
    assert.equal(after.pid, undefined, 'serve stopped cleanly (server.json keeps no pid)');
  });

  test('a signal that kills the binary kills the launcher with it', async () => {
    const dir = path.join(prefix, 'data-kill');
    const launcher = path.join(proj, 'node_modules', '.bin', 'mcplogd');
    const proc = track(spawn(launcher, ['serve', '--data', dir, '--addr', '127.0.0.1:0'], {
      cwd: proj, env, stdio: ['ignore', 'pipe', 'pipe'],
    }));
    procs.push(proc);
    const output = capture(proc);
    const { server } = await served(proc, dir, output);
    assert.equal(await parentOf(server.pid), proc.pid);
    process.kill(server.pid, 'SIGKILL');
    assert.deepEqual(await exited(proc, 20_000), { code: null, signal: 'SIGKILL' });
  });

  test('stdio through npx: initialize, tools/list, and an 18 KB line of multi-byte text appended and read back whole', async () => {
    const dir = path.join(prefix, 'data-stdio');
    const transport = new StdioClientTransport({
      command: path.join(env.PATH, 'npx'), args: ['-y', 'mcplogd', 'stdio', '--data', dir, '--create'], cwd: proj, env, stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const client = new Client({ name: 'mcplogd-npm', version: '1.0.0' });
    try {
      await client.connect(transport);
      assert.match(client.getServerVersion()?.name ?? '', /mcplogd/);
      await checkToolList(client);
      // 18 KB of text with multi-byte characters and JSON escapes (within details' answer budget).
      const text = 'Ünïcödé ✓ 🎮 "quoted" \\ tab\t'.repeat(500);
      const appended = await callOk(client, 'append_log', { level: 'info', text });
      const d = await callOk(client, 'get_log_details', { log_id: appended.id });
      assert.ok(d.text === text, `the line read back is the line appended (${d.text.length} of ${text.length} characters)`);
      await client.close();
      await waitFor('npx, the launcher and mcplogd stdio to exit once the client closed',
        async () => (await processesWith(dir, '\0stdio\0')).length === 0);
    } catch (e) {
      e.message += `\n--- stderr ---\n${stderr}`;
      throw e;
    } finally {
      await client.close();
      // stdio may have started a recorder (serve) for the data directory; it outlives the session.
      const server = JSON.parse(await readFile(path.join(dir, 'server.json'), 'utf8').catch(() => '{}'));
      if (server.pid) {
        process.kill(server.pid, 'SIGTERM');
        await waitFor('the recorder stdio started to stop', () => !alive(server.pid));
      }
    }
  });

  test('without the platform package, or on a platform with none, the launcher says so and why', async () => {
    const bare = path.join(prefix, 'no-optional');
    await mkdir(bare);
    const tgz = path.join(dist, `mcplogd-${version}.tgz`);
    const i = run(env, bare, 'npm', ['install', '--omit=optional', tgz]);
    assert.equal(i.status, 0, `${i.stdout}${i.stderr}`);
    const r = run(env, bare, 'npx', ['mcplogd', 'version']);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.includes(`${platformPkg}@${version}`), `names the package: ${r.stderr}`);
    assert.match(r.stderr, /--omit=optional/);

    // A platform with no package: the launcher as it would be there (its optionalDependencies lack it).
    const manifest = path.join(bare, 'node_modules', 'mcplogd', 'package.json');
    const m = JSON.parse(await readFile(manifest, 'utf8'));
    delete m.optionalDependencies[platformPkg];
    await writeFile(manifest, JSON.stringify(m));
    const u = run(env, bare, 'npx', ['mcplogd', 'version']);
    assert.equal(u.status, 1);
    assert.ok(u.stderr.includes(`no binary is published for ${process.platform} ${process.arch}`), u.stderr);
    assert.match(u.stderr, /go install github\.com\/mcplogd\/mcplogd\/cmd\/mcplogd@latest/);
  });
});
