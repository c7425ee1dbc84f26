#!/usr/bin/env node
// The npm launcher of mcplogd: finds the Go binary in the package of this platform
// (@mcplogd/<process.platform>-<process.arch>, one of the optionalDependencies, which npm
// installs only where its os and cpu fields match) and runs it with the same arguments.
//
// The child inherits stdin, stdout and stderr, so `mcplogd stdio`'s MCP bytes go straight between
// the client and the binary: Node never reads, buffers or re-encodes them. SIGINT, SIGTERM and
// SIGHUP sent to the launcher are passed on (a Ctrl-C in a terminal reaches both, and mcplogd
// takes a second signal as the first); the launcher ends as the child did, with its exit code or,
// where the platform has signals, by the same signal. Like esbuild's and biome's launchers it has
// no install script, so --ignore-scripts installs work.
'use strict';

const { spawn } = require('child_process');
const os = require('os');
const path = require('path');

const manifest = require('../package.json');

const pkg = `@mcplogd/${process.platform}-${process.arch}`;
const exe = process.platform === 'win32' ? 'mcplogd.exe' : 'mcplogd';

function fail(message) {
  process.stderr.write(`mcplogd: ${message}\n`);
  process.exit(1);
}

function binaryPath() {
  const known = Object.keys(manifest.optionalDependencies || {});
  if (!known.includes(pkg)) {
    fail(`no binary is published for ${process.platform} ${process.arch} (the npm packages are ` +
      `${known.join(', ')}).\nBuild one with Go instead: go install github.com/mcplogd/mcplogd/cmd/mcplogd@latest`);
  }
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(`the package ${pkg}@${manifest.version}, which holds mcplogd's binary for this platform, ` +
      'is not installed.\nnpm installs it with mcplogd as an optional dependency: mcplogd was ' +
      'probably installed with --no-optional or --omit=optional (or from a lockfile made on ' +
      `another platform). Install mcplogd again without that flag, or add ${pkg}@${manifest.version} beside it.`);
  }
  return ''; // not reached: fail exits
}

const bin = binaryPath();
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });

const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
// On Windows the console sends Ctrl-C and its closing to the child as well, and child.kill
// would terminate it outright instead: there the handler only keeps the launcher alive until
// the child has stopped in its own way.
const forward = process.platform === 'win32' ? () => {} : (signal) => {
  try {
    child.kill(signal);
  } catch {
    // already gone: its exit event ends the launcher
  }
};
for (const signal of forwarded) process.on(signal, forward);

child.on('error', (err) => {
  fail(`could not run ${path.relative(process.cwd(), bin) || bin}: ${err.message}`);
});

child.on('exit', (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Die of the same signal, so that whoever started the launcher sees what happened; Node ignores
  // some signals (SIGPIPE), and Windows has none to raise, hence the shell's 128+N after it.
  for (const s of forwarded) process.removeListener(s, forward);
  if (process.platform !== 'win32') {
    try {
      process.kill(process.pid, signal);
    } catch {
      // fall through to the exit code
    }
  }
  process.exit(128 + (os.constants.signals[signal] || 0));
});
