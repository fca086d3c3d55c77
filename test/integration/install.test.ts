// The install the README gives first: `npm pack` (its prepack builds and pins the dependencies with
// npm-shrinkwrap.json), then `npm install -g` of the tarball into a temporary prefix, then
// `wbsync --version` and the demo from that prefix's bin — outside the checkout, as an admin's
// server runs it. The pack runs in a copy of the repository so its build never rewrites the dist/
// other tests are running. The packages come from the npm cache (npm ci filled it); a global
// install asks for the registry's full metadata of each, which npm ci (abbreviated metadata, and a
// lock without download addresses) may not have cached, so those are fetched once
// (--prefer-offline; --offline failed on a fresh machine's cache). better-sqlite3's
// install finds its native module as a local prebuild made from the checkout's build, as it would
// find a downloaded one; compiling it is what `npm ci` in the checkout already did.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; files: string[]; bin: Record<string, string>; scripts: Record<string, string> };

function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, encoding: 'utf8', timeout: opts.timeout ?? 240_000 });
  if (r.error) throw r.error;
  return r;
}

describe('npm pack, then npm install -g of the tarball', () => {
  const t = tempDir('wbsync-install-');
  afterAll(() => t.cleanup());
  const prefix = join(t.dir, 'prefix');
  const bin = join(prefix, 'bin', Object.keys(PKG.bin)[0]!);
  const tarball = join(t.dir, `${PKG.name}-${PKG.version}.tgz`);

  it('packs the built CLI with its dependencies pinned', () => {
    // a copy of what the build and the package need; node_modules shared (read only here)
    const stage = join(t.dir, 'stage');
    mkdirSync(stage);
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'README.md', 'src', ...PKG.files]) {
      if (f === 'dist') continue; // the prepack builds it
      if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'));
    const r = run('npm', ['pack', '--pack-destination', t.dir], { cwd: stage });
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(tarball)).toBe(true);
    const list = run('tar', ['tzf', tarball], { cwd: t.dir }).stdout.split('\n');
    expect(list).toContain(`package/${PKG.bin.wbsync!}`);
    expect(list).toContain('package/npm-shrinkwrap.json');
    expect(list).toContain('package/config/default.json');
    expect(list).toContain('package/deploy/systemd/wbsync.service');
    expect(list.filter((f) => f.startsWith('package/src/'))).toEqual([]);
    // the postpack leaves no shrinkwrap behind to shadow package-lock.json
    expect(existsSync(join(stage, 'npm-shrinkwrap.json'))).toBe(false);
  }, 300_000);

  it('installs into a prefix, and wbsync --version answers from its bin', () => {
    // better-sqlite3's prebuild-install looks for <name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz
    const sqlite = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string };
    const prebuilds = join(t.dir, 'prebuilds');
    mkdirSync(prebuilds);
    const name = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    const made = run('tar', ['czf', join(prebuilds, name), '-C', join(ROOT, 'node_modules/better-sqlite3'), 'build/Release/better_sqlite3.node'], { cwd: t.dir });
    expect(made.status, made.stderr).toBe(0);

    const r = run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: t.dir,
      env: { npm_config_better_sqlite3_local_prebuilds: prebuilds },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const installed = join(prefix, 'lib/node_modules', PKG.name);
    // the pinned versions, no dev dependency
    expect(readdirSync(join(installed, 'node_modules'))).not.toContain('vitest');
    expect(JSON.parse(readFileSync(join(installed, 'node_modules/better-sqlite3/package.json'), 'utf8')).version).toBe(sqlite.version);

    const v = run(bin, ['--version'], { cwd: t.dir, env: { PATH: `${join(prefix, 'bin')}:${process.env.PATH}` } });
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(`wbsync ${PKG.version}`);
  }, 300_000);

  it('runs the demo from there', () => {
    const r = run(bin, ['demo', '--json', '--db', join(t.dir, 'demo', 'wbsync.db')], { cwd: t.dir, timeout: 180_000 });
    expect(r.status, r.stderr.slice(-2000)).toBe(0);
    const doc = JSON.parse(r.stdout) as { differences: number; restoredModuleId: string };
    expect(doc.differences).toBe(0);
    expect(doc.restoredModuleId).toMatch(/^[0-9a-f]{24}$/);
  }, 200_000);
});
