// Tested docs (README.md and docs/*.md): every command's help, refusals with suggestions, the
// reporting queries run against the demo database, the demo's claims checked against that
// database, the emulator example, and the README's test line being the one CI runs.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTING_QUERIES } from '../../src/store/read/index.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { docsText } from '../helpers/docs.js';
import { tempDir, runCliCaptured } from '../helpers/harness.js';

const README = docsText();

const cli = runCliCaptured;

describe('help and refusals', () => {
  it('wbsync --help lists every command', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.out).toContain(`  ${c.name}`);
  });

  it.each(COMMANDS.map((c) => c.name))('wbsync %s --help shows usage, options and an example', async (name) => {
    const r = await cli([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^usage: wbsync ${name}`));
    expect(r.out.split('\n')[0], 'the command named once').not.toMatch(new RegExp(`^usage: wbsync ${name} ${name}\\b`));
    expect(r.out).toMatch(/examples:\n  .*wbsync /);
    expect(r.out).toContain('--json');
    expect(README).toContain(`wbsync ${name}`);
  });

  it('refuses an unknown command with a suggestion, exit 2', async () => {
    const r = await cli(['snapshot']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command 'snapshot'; did you mean 'snapshots'?");
  });

  it('refuses an unknown flag with a suggestion, exit 2, and --json errors are one document', async () => {
    const r = await cli(['sync', '--ful', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error.message).toBe("unknown flag --ful for 'sync'; did you mean --full?");
  });

  it('refuses a bad configuration listing each problem, exit 2', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const r = await cli(['snapshots', '--db', join(dir, 'x.db'), '--log-level', 'loud']);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/log\.level: /);
    } finally {
      cleanup();
    }
  });

  it('says what is missing when no service is configured, exit 2 / 3', async () => {
    const { dir, cleanup } = tempDir();
    try {
      expect((await cli(['sync', '--db', join(dir, 'x.db')])).code).toBe(2);
      const r = await cli(['sync', '--db', join(dir, 'x.db')], { WBSYNC_BASE_URL: 'http://127.0.0.1:9' });
      expect(r.code).toBe(3);
      expect(r.err).toContain('no API key is configured');
    } finally {
      cleanup();
    }
  });
});

describe('the demo and the README queries', () => {
  const t = tempDir();
  const dbPath = join(t.dir, 'demo', 'wbsync.db');
  let doc: Record<string, any>;
  let code: number;
  beforeAll(async () => {
    const r = await cli(['demo', '--json', '--db', dbPath]);
    code = r.code;
    doc = JSON.parse(r.out);
  });
  afterAll(() => t.cleanup());

  it('finishes with no difference left after the restore', () => {
    expect(code).toBe(0);
    expect(doc.differences).toBe(0);
    expect(doc.restoredModuleId).toMatch(/^[0-9a-f]{24}$/);
    expect(doc.restoredModuleId).not.toBe(doc.deletedModuleId);
  });

  it('mirrored what it says it mirrored, and the restore is recorded', () => {
    const db = new Database(dbPath, { readonly: true });
    try {
      for (const [viewName, n] of Object.entries(doc.mirrored as Record<string, number>)) {
        const rows = db.prepare(`SELECT COUNT(*) FROM ${viewName}`).pluck().get() as number;
        if (viewName === 'modules' || viewName === 'activity') expect(rows, viewName).toBeGreaterThanOrEqual(n);
        else expect(rows, viewName).toBe(n);
        expect(n, viewName).toBeGreaterThan(0);
      }
      // the deleted module's records stay in history, and the restore brought back every one
      const deleted = db.prepare('SELECT COUNT(DISTINCT id) FROM record_versions WHERE module_id = ?').pluck().get(doc.deletedModuleId) as number;
      expect(deleted).toBeGreaterThan(0);
      expect(doc.restoredCounts.records).toBe(deleted);
    } finally {
      db.close();
    }
  });

  it.each(REPORTING_QUERIES.map((q) => [q.title, q.sql]))('README query "%s" is in the README and answers on the demo data', (_title, sql) => {
    expect(README).toContain(sql);
    const db = new Database(dbPath, { readonly: true });
    try {
      const rows = db.prepare(sql).all();
      expect(rows.length).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});

describe('the README emulator example', () => {
  it('wbsync emulator --seed demo answers curl with the demo data, and stops on SIGTERM', async () => {
    const cliPath = new URL('../../dist/cli/main.js', import.meta.url).pathname;
    const child = spawn(process.execPath, [cliPath, 'emulator', '--seed', 'demo', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0]);
        });
        child.once('exit', (c) => reject(new Error(`emulator exited ${c}`)));
      });
      const ready = JSON.parse(line) as { baseUrl: string; apiKey: string; users: unknown[] };
      expect(ready.users.length).toBeGreaterThanOrEqual(2);
      const res = await fetch(`${ready.baseUrl}/api/workspaces`, { headers: { 'x-api-key': ready.apiKey } });
      const body = (await res.json()) as { workspaces: Array<{ workspace: { name: string } }> };
      expect(body.workspaces.map((w) => w.workspace.name)).toEqual(['Acme Co']);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('the README\'s two commands', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const ci = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8');

  it('CI runs exactly the README\'s test line, and the README shows install and test as one line each', () => {
    const commands = ci.split('\n').filter((l) => l.trim() && !l.startsWith('#') && !/^(set |cd )/.test(l));
    expect(commands).toEqual(['scripts/test-deps.sh && npm ci && npm test']);
    const block = /## Try it \(two commands\)\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const lines = block.split('\n').filter(Boolean).map((l) => l.replace(/\s+#.*$/, ''));
    expect(lines).toEqual(['npm ci && npm run demo', commands[0]]);
  });

  it('the test line\'s script installs the Debian packages the tests drive, by those names', () => {
    const script = readFileSync(new URL('../../scripts/test-deps.sh', import.meta.url), 'utf8');
    for (const pkg of ['prometheus', 'age', 'sqlite3', 'chromium', 'systemd', 'docker-compose']) {
      expect(script).toMatch(new RegExp(`need\\+=\\(${pkg}\\)`));
      expect(readme).toContain(`\`${pkg}\``);
    }
  });
});
