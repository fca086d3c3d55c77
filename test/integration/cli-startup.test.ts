// What the built CLI really loads at start (src/cli/startup-imports.test.ts checks the sources'
// imports; this counts the modules node loads, through a module hook in the child): `--version` and
// a command's --help load the parser and the commands' declarations, never a command's action, the
// store, the service client or their libraries. The test suite spawns the CLI hundreds of times.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/config/heap-policy.js';
import { BACKGROUND_NICE_STEPS } from '../../src/config/thread-priority.js';
import { THREAD_NICES_SOURCE } from '../../src/store/fixtures.js';

const MAIN = join(import.meta.dirname, '../../dist/cli/main.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'wbsync-startup-'));
  dirs.push(d);
  return d;
}

/** The modules (ESM through the hook, CommonJS through require.cache) one CLI run loads. */
let runs = 0;
function loaded(argv: string[], cwd: string): { status: number | null; modules: string[] } {
  const log = join(cwd, `loaded-${(runs += 1)}.txt`);
  const hooks = join(cwd, 'hooks.mjs');
  writeFileSync(hooks, "import { appendFileSync } from 'node:fs';\nlet out;\nexport function initialize(d) { out = d.out; }\nexport async function load(url, context, next) { appendFileSync(out, url + '\\n'); return next(url, context); }\n");
  const register = join(cwd, 'register.mjs');
  writeFileSync(
    register,
    [
      "import { createRequire, register } from 'node:module';",
      "import { appendFileSync } from 'node:fs';",
      `register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { out: ${JSON.stringify(log)} } });`,
      'const require = createRequire(import.meta.url);',
      `process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(require.cache).map((f) => 'file://' + f + '\\n').join('')));`,
    ].join('\n'),
  );
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, MAIN, ...argv], { cwd, env: { PATH: process.env.PATH, HOME: cwd }, encoding: 'utf8' });
  return { status: r.status, modules: [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))] };
}

const packageOf = (url: string): string | null => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? null;
const distOf = (url: string): string | null => /\/dist\/(.+)$/.exec(url)?.[1] ?? null;

describe('the CLI at start', () => {
  it('run by its path (as `wbsync`, the unit and the image run it), node gets NODE_FLAGS in the same process, arguments intact', () => {
    const dir = tempDir();
    const out = join(dir, 'seen.json');
    const probe = join(dir, 'probe.mjs');
    // before the CLI's own code runs, and at its exit: each thread's nice value (Linux)
    writeFileSync(
      probe,
      [
        "import fs, { writeFileSync } from 'node:fs';",
        `const nices = () => (${THREAD_NICES_SOURCE})(fs);`,
        'const before = nices();',
        `process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(2), before, after: nices() })));`,
      ].join('\n'),
    );
    const hostile = ['--version', 'a b', '"$(id)"', "c'd", ''];
    const r = spawnSync(MAIN, hostile, { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, NODE_OPTIONS: `--import=${pathToFileURL(probe).href}` }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const seen = JSON.parse(readFileSync(out, 'utf8')) as { pid: number; execArgv: string[]; argv: string[]; before: Record<string, number>; after: Record<string, number> };
    expect(seen.pid).toBe(r.pid);
    expect(seen.execArgv).toEqual([...NODE_FLAGS]);
    expect(seen.argv).toEqual(hostile);
    if (process.platform === 'linux') {
      // applyRuntimePolicy: the event loop's thread as it was, the threads node started with (V8's, libuv's) below it
      const base = seen.before[String(seen.pid)]!;
      expect(seen.after[String(seen.pid)]).toBe(base);
      const others = Object.keys(seen.before).filter((t) => t !== String(seen.pid) && t in seen.after);
      expect(others.length).toBeGreaterThan(0);
      for (const t of others) expect(seen.after[t], `thread ${t}`).toBe(Math.min(19, seen.before[t]! + BACKGROUND_NICE_STEPS));
    }
  });

  it('--version and a command\'s --help load no command action and no library but commander', () => {
    const dir = tempDir();
    for (const argv of [['--version'], ['sync', '--help'], ['restore', 'workspace', '--help'], ['fleet', 'tenant', 'add', '--help']]) {
      const { status, modules } = loaded(argv, dir);
      expect(status, argv.join(' ')).toBe(0);
      expect(modules.some((u) => distOf(u) === 'cli/registry.js'), argv.join(' ')).toBe(true);
      expect([...new Set(modules.map(packageOf).filter(Boolean))], argv.join(' ')).toEqual(['commander']);
      const dist = modules.map(distOf).filter((f): f is string => f !== null);
      expect(dist.filter((f) => !/^(cli\/(?!actions\/|open)|domain\/|config\/(heap-policy|thread-priority|scrub-secrets)\.js)/.test(f)), argv.join(' ')).toEqual([]);
    }
  });

  it('a command loads its own action only: verify, not the service client, restore, fleet or the console', () => {
    const dir = tempDir();
    const { status, modules } = loaded(['verify', '--db', join(dir, 'none.db')], dir);
    expect(status).not.toBe(0); // no database there: refused, after loading what verify needs
    const dist = modules.map(distOf).filter((f): f is string => f !== null);
    expect(dist).toContain('cli/actions/verify.js');
    expect(dist.filter((f) => /^(cli\/actions\/(?!verify)|api\/|restore\/|fleet\/|offsite\/|ui\/|drill\/|emulator\/|daemon\/)/.test(f))).toEqual([]);
    expect(modules.map(packageOf).filter((p) => p && ['undici', 'pg', 'pg-boss', '@aws-sdk/client-s3', 'age-encryption'].includes(p))).toEqual([]);
  });
});
