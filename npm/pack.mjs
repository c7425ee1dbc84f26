// Packs the npm packages of mcplogd from the binaries `make dist` wrote: one package per
// platform, @mcplogd/<platform>-<arch> (Node's names for them, which its os and cpu fields
// use too), holding bin/mcplogd, and the launcher package mcplogd (npm/mcplogd), whose
// optionalDependencies name them all at the same version. The package directories are made
// under dist/npm/ and `npm pack` writes their .tgz files into dist/ ($DIST_DIR, relative to the
// repository, if set). Nothing is fetched. dist/npm/packages.json then lists the tarballs in the
// order they are published (every platform package before the launcher, whose optional
// dependencies must be on the registry first), for scripts/release-publish.
//
//   node npm/pack.mjs VERSION GOOS/GOARCH...         (make npm passes $(VERSION) $(DIST_TARGETS))
//   node npm/pack.mjs --plan VERSION GOOS/GOARCH...  (prints that list as JSON; packs nothing)
//
// VERSION is the binary's stamp (git describe); the packages' semver is npmVersion(VERSION).
// --plan is how scripts/release reads this file's platform table and version rule instead of
// keeping copies of them: its check fails when they and the release's targets disagree.

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const npmDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(npmDir);
const dist = path.resolve(root, process.env.DIST_DIR || 'dist');

// Go's names → Node's (process.platform, process.arch).
const nodePlatform = { linux: 'linux', darwin: 'darwin', windows: 'win32' };
const nodeArch = { amd64: 'x64', arm64: 'arm64' };

/**
 * npmVersion turns the binary's stamp into the packages' semver: an exact release tag (v1.2.3,
 * v1.2.3-rc.1) is its version without the v; any other build (commits past a tag, a bare commit,
 * a dirty tree) is 0.0.0-dev.<commit>, plus .dirty for a dirty tree; no stamp at all is 0.0.0-dev.
 */
export function npmVersion(stamp) {
  const dirty = stamp.endsWith('-dirty');
  const s = dirty ? stamp.slice(0, -'-dirty'.length) : stamp;
  const past = /-\d+-g([0-9a-f]{4,40})$/.exec(s); // git describe: tag-N-gHASH
  const tag = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)$/.exec(s);
  if (tag && !past && !dirty && !hasLeadingZero(tag[1])) return tag[1];
  let commit = past?.[1] ?? (/^[0-9a-f]{4,40}$/.test(s) ? s : '');
  // A numeric prerelease identifier may not start with 0, and a short hash can be all digits.
  if (/^0\d*$/.test(commit)) commit = `g${commit}`;
  return ['0.0.0-dev', commit, dirty ? 'dirty' : ''].filter(Boolean).join('.');
}

function hasLeadingZero(v) {
  return v.split(/[.-]/).some((id) => /^0\d+$/.test(id));
}

/** The package of one Go target: its npm name, directory under dist/npm, and binary names. */
export function platformPackage(target) {
  const [goos, goarch] = target.split('/');
  const platform = nodePlatform[goos];
  const arch = nodeArch[goarch];
  if (!platform || !arch) throw new Error(`no npm package for ${target}: known are ${Object.keys(nodePlatform).join(', ')} × ${Object.keys(nodeArch).join(', ')}`);
  const exe = goos === 'windows' ? '.exe' : '';
  return {
    name: `@mcplogd/${platform}-${arch}`,
    dir: path.join(dist, 'npm', `${platform}-${arch}`),
    platform,
    arch,
    distBinary: path.join(dist, `mcplogd-${goos}-${goarch}${exe}`),
    binary: `mcplogd${exe}`,
  };
}

/** The name of the .tgz `npm pack` writes for a package: @scope/name-x becomes scope-name-x-VERSION.tgz. */
export function tarballName(name, version) {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * plan answers what main packs for VERSION and the targets, in publishing order: every platform
 * package, then the launcher (last, so that its optional dependencies exist when it appears).
 * It throws, naming the target, for a target with no npm platform (see platformPackage) or one
 * the launcher's optionalDependencies lack.
 */
export function plan(stamp, targets, launcher) {
  const version = npmVersion(stamp);
  const pkgs = targets.map(platformPackage);
  for (const p of pkgs) {
    if (!(p.name in launcher.optionalDependencies)) throw new Error(`npm/mcplogd/package.json's optionalDependencies lack ${p.name}`);
  }
  return {
    version,
    packages: [
      ...pkgs.map((p, i) => ({ name: p.name, target: targets[i], platform: p.platform, arch: p.arch, binary: p.binary, file: tarballName(p.name, version) })),
      { name: launcher.name, launcher: true, file: tarballName(launcher.name, version) },
    ],
  };
}

function writeJSON(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function pack(dir) {
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dist, dir], {
    cwd: dist, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32',
  });
  const [{ filename, size }] = JSON.parse(out);
  console.log(`${path.relative(root, dist)}/${filename} (${Math.round(size / 1024)} KiB)`);
  return filename;
}

function main(args) {
  const planOnly = args[0] === '--plan';
  const [stamp, ...targets] = planOnly ? args.slice(1) : args;
  if (!stamp || targets.length === 0) throw new Error('usage: node npm/pack.mjs [--plan] VERSION GOOS/GOARCH...');
  const launcher = JSON.parse(readFileSync(path.join(npmDir, 'mcplogd', 'package.json'), 'utf8'));
  const planned = plan(stamp, targets, launcher);
  if (planOnly) {
    process.stdout.write(`${JSON.stringify(planned, null, 2)}\n`);
    return;
  }
  const { version } = planned;
  const pkgs = targets.map(platformPackage);
  for (const p of pkgs) {
    if (!existsSync(p.distBinary)) throw new Error(`${path.relative(root, p.distBinary)} is missing: run make dist with ${targets.join(' ')}`);
  }
  rmSync(path.join(dist, 'npm'), { recursive: true, force: true });

  for (const p of pkgs) {
    mkdirSync(path.join(p.dir, 'bin'), { recursive: true });
    copyFileSync(p.distBinary, path.join(p.dir, 'bin', p.binary));
    chmodSync(path.join(p.dir, 'bin', p.binary), 0o755);
    writeJSON(path.join(p.dir, 'package.json'), {
      name: p.name,
      version,
      description: `mcplogd's binary for ${p.platform} ${p.arch}; install mcplogd, which runs it`,
      homepage: launcher.homepage,
      repository: launcher.repository,
      os: [p.platform],
      cpu: [p.arch],
      files: [`bin/${p.binary}`],
      preferUnplugged: true,
    });
    writeFileSync(path.join(p.dir, 'README.md'),
      `# ${p.name}\n\nThe mcplogd ${version} binary for ${p.platform} ${p.arch}. Install \`mcplogd\` instead: its launcher finds this package.\n`);
  }

  const dir = path.join(dist, 'npm', 'mcplogd');
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  copyFileSync(path.join(npmDir, 'mcplogd', 'bin', 'mcplogd.js'), path.join(dir, 'bin', 'mcplogd.js'));
  chmodSync(path.join(dir, 'bin', 'mcplogd.js'), 0o755);
  copyFileSync(path.join(npmDir, 'mcplogd', 'README.md'), path.join(dir, 'README.md'));
  const optional = Object.fromEntries(Object.keys(launcher.optionalDependencies).map((n) => [n, version]));
  writeJSON(path.join(dir, 'package.json'), { ...launcher, version, optionalDependencies: optional });

  // The tarballs in publishing order, with the names npm gave them (plan only predicts those).
  const files = [...pkgs.map((p) => pack(p.dir)), pack(dir)];
  const packed = planned.packages.map((p, i) => ({ name: p.name, version, file: files[i] }));
  writeJSON(path.join(dist, 'npm', 'packages.json'), packed);
  console.log(`npm packages of mcplogd ${version} (binary ${stamp}) in ${path.relative(root, dist)}/`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    console.error(`npm/pack.mjs: ${e.message}`);
    process.exit(1);
  }
}
