// Every `wbsync …` command line the README and docs/*.md show, run as written (placeholders such as ID, N and
// FILE filled in with real values) against the emulator, as a child process in a scratch folder —
// and every synopsis it shows names a real command with real flags. A command line added to the
// README or a docs page without a case here fails the first test, so the docs stay true as they grow.

import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as age from 'age-encryption';
import Database from 'better-sqlite3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOBAL_FLAGS } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { docsText } from '../helpers/docs.js';
import { api, dumpOf, tempDir } from '../helpers/harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const README = docsText();

/** Command lines and synopses, as the README writes them (code blocks and inline code). */
export function readmeCommands(text: string): { runnable: string[]; synopses: string[] } {
  const found = new Set<string>();
  for (const block of text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').replace(/\s*&$/, '').trim();
      const m = /^(?:docker exec \S+ )?((?:[A-Z_]+=\S+\s+)*wbsync(?:\s.*)?)$/.exec(line);
      if (m && !/^wbsync\s*$/.test(m[1]!)) found.add(m[1]!);
    }
  }
  for (const m of text.matchAll(/`((?:[A-Z_]+=\S+\s+)*wbsync [^`]+)`/g)) found.add(m[1]!.replace(/\s+/g, ' '));
  const all = [...found];
  const synopsis = (c: string): boolean => /[[\]…|]|\.\.\./.test(c);
  return { runnable: all.filter((c) => !synopsis(c)), synopses: all.filter(synopsis) };
}

interface Env {
  emu: RunningEmulator;
  dir: string;
  moduleId: string;
  deletedModuleId: string;
  archivedRecordId: string;
}

/** Ids the erase lines of the README act on: the member Grace, a top-level record, the members. */
function readmeIds(env: Env): { user: string; record: string; members: string[] } {
  const db = new Database(join(env.dir, 'data', 'wbsync.db'), { readonly: true });
  try {
    const members = db.prepare('SELECT user_id FROM members').pluck().all() as string[];
    const user = (db.prepare(`SELECT user_id FROM member_versions WHERE first_name = 'Grace' LIMIT 1`).pluck().get() as string | undefined) ?? '';
    const record = db.prepare('SELECT id FROM records WHERE parent_record_id IS NULL ORDER BY id LIMIT 1').pluck().get() as string;
    return { user, record, members };
  } finally {
    db.close();
  }
}

/** Runs one command line to its end. Asynchronously: the emulator lives in this process. */
async function run(env: Env, line: string, timeoutMs = 60_000, extraEnv: Record<string, string> = {}): Promise<{ status: number | null; out: string; err: string }> {
  const argv = line.replace(/^wbsync\s*/, '').split(/\s+/).filter(Boolean);
  const proc = spawn(process.execPath, [MAIN, ...argv], {
    cwd: env.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, WBSYNC_BASE_URL: env.emu.baseUrl, WBSYNC_API_KEY: env.emu.apiKey, WBSYNC_LOG_LEVEL: 'warn', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const status = await new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  clearTimeout(timer);
  return { status, out, err };
}

/** A long-running command: started, waited on until `ready` appears, then stopped with SIGTERM. */
async function runUntil(env: Env, line: string, ready: RegExp, timeoutMs = 60_000): Promise<{ code: number | null; out: string; err: string }> {
  const argv = line.replace(/^wbsync\s*/, '').split(/\s+/).filter(Boolean);
  const proc = spawn(process.execPath, [MAIN, ...argv], {
    cwd: env.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, WBSYNC_BASE_URL: env.emu.baseUrl, WBSYNC_API_KEY: env.emu.apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  try {
    const until = Date.now() + timeoutMs;
    while (!ready.test(out + err)) {
      if (proc.exitCode !== null) throw new Error(`'${line}' exited ${proc.exitCode} before it was ready:\n${err.slice(-2000)}`);
      if (Date.now() > until) throw new Error(`'${line}' was not ready in time:\n${err.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    proc.kill('SIGTERM');
    return { code: await exited, out, err };
  } finally {
    if (proc.exitCode === null && proc.pid) process.kill(proc.pid, 'SIGKILL');
  }
}

describe('the README’s command lines', () => {
  const { runnable, synopses } = readmeCommands(README);
  let env: Env;
  let cleanup: () => void;

  beforeAll(async () => {
    const emu = await startEmulator({ dialect: 'observed', seed: 'demo' });
    const t = tempDir('wbsync-readme-');
    cleanup = t.cleanup;
    const d = dumpOf(emu);
    const modules = d.modules.filter((m) => !m.isDeleted);
    const rec = d.records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord && r.module === modules[0]!._id)!;
    env = { emu, dir: t.dir, moduleId: modules[0]!._id, deletedModuleId: modules[1]!._id, archivedRecordId: rec._id };
    writeFileSync(join(t.dir, 'wbsync.json'), JSON.stringify({ db: './data/wbsync.db', http: { concurrency: 8 } }));
  });
  // the offsite lines run against a real S3 server on loopback, with the README's configuration
  let s3: S3rver | undefined;
  let s3Env: Record<string, string> | undefined;
  async function offsite(): Promise<Record<string, string>> {
    if (s3Env) return s3Env;
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(env.dir, 's3'), configureBuckets: [{ name: 'acme-backups', configs: [] }] });
    const { port } = await s3.run();
    const identity = await age.generateIdentity();
    writeFileSync(join(env.dir, 'backup-key.txt'), `${identity}\n`, { mode: 0o600 });
    writeFileSync(join(env.dir, 'offsite.json'), JSON.stringify({ db: './data/wbsync.db', offsite: { bucket: 'acme-backups', prefix: 'wbsync/acme/', recipients: [await age.identityToRecipient(identity)], retention: { keepDaily: 7, keepWeekly: 5, keepMonthly: 12 }, endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true } }));
    s3Env = { WBSYNC_CONFIG: 'offsite.json', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    return s3Env;
  }

  afterAll(async () => {
    await s3?.close();
    await env?.emu.stop();
    cleanup?.();
  });

  it('finds the command lines and synopses it knows how to run', () => {
    expect(runnable.length).toBeGreaterThan(10);
    const known = new Set(CASES.map((c) => c.line));
    expect(runnable.filter((c) => !known.has(c)), 'README command lines without a case in this test').toEqual([]);
  });

  it('every synopsis names a real command and its real flags', () => {
    for (const s of synopses) {
      const words = s.replace(/\\\|/g, '|').split(/[\s[\]|…]+/).filter(Boolean);
      const top = COMMANDS.find((c) => c.name === words[1]);
      expect(top, s).toBeTruthy();
      // down the subcommands the synopsis names (`fleet tenant add`)
      let cmd = top!;
      for (let i = 2; cmd.subcommands; i++) {
        const sub = cmd.subcommands.find((c) => c.name === words[i]);
        if (!sub) break;
        cmd = sub;
      }
      const flags = new Set([...cmd.flags, ...GLOBAL_FLAGS].map((f) => `--${f.name}`));
      for (const w of words.filter((x) => x.startsWith('--'))) expect(flags.has(w), `${s}: ${w}`).toBe(true);
    }
  });

  // In README order of a user's day: mirror, look, export, diff, lose a board, restore it.
  const CASES: Array<{ line: string; check: () => Promise<unknown> }> = [
    { line: 'wbsync sync --full', check: async () => expect((await run(env, 'wbsync sync --full')).status).toBe(0) },
    { line: 'wbsync --version', check: async () => expect((await run(env, 'wbsync --version')).out).toMatch(/^wbsync \d+\.\d+\.\d+\n$/) },
    { line: 'wbsync sync', check: async () => expect((await run(env, 'wbsync sync')).status).toBe(0) },
    { line: 'wbsync --config wbsync.json sync', check: async () => expect((await run(env, 'wbsync --config wbsync.json sync')).status).toBe(0) },
    { line: 'wbsync snapshots', check: async () => expect((await run(env, 'wbsync snapshots')).out).toMatch(/^id\s+kind\s+status/) },
    { line: 'wbsync verify', check: async () => expect((await run(env, 'wbsync verify')).status).toBe(0) },
    {
      line: 'wbsync prune --keep-daily 7 --keep-weekly 5 --keep-monthly 12 --dry-run',
      check: async () => {
        const r = await run(env, 'wbsync prune --keep-daily 7 --keep-weekly 5 --keep-monthly 12 --dry-run');
        expect(r.status, r.err).toBe(0);
        expect(r.out).toMatch(/^would forget \d+ snapshot/m);
      },
    },
    {
      line: 'wbsync snapshots --release N',
      check: async () => {
        const db = new Database(join(env.dir, 'data', 'wbsync.db'));
        try {
          db.prepare(`INSERT INTO snapshot_holds (snapshot_id, reason, held_at, expires_at) VALUES (1, 'tripwire: readme', ?, ?)`).run(new Date().toISOString(), new Date(Date.now() + 86_400_000).toISOString());
        } finally {
          db.close();
        }
        expect((await run(env, 'wbsync snapshots')).out).toMatch(/HELD until .*tripwire: readme/);
        const r = await run(env, 'wbsync snapshots --release 1');
        expect(r.status, r.err).toBe(0);
        expect(r.out).toContain('released snapshot 1');
      },
    },
    {
      line: 'wbsync prune --keep-last 10 --keep-within 30d',
      check: async () => {
        const r = await run(env, 'wbsync prune --keep-last 10 --keep-within 30d');
        expect(r.status, r.err).toBe(0);
        expect((await run(env, 'wbsync verify')).status).toBe(0);
      },
    },
    { line: 'wbsync export --out before.db --snapshot N', check: async () => expect((await run(env, 'wbsync export --out before.db --snapshot 1')).status).toBe(0) },
    { line: 'wbsync export --out FILE --snapshot N', check: async () => expect((await run(env, 'wbsync export --out file.db --snapshot 2')).status).toBe(0) },
    {
      line: 'wbsync export --format csv --out reports',
      check: async () => {
        const r = await run(env, 'wbsync export --format csv --out reports');
        expect(r.status, r.err).toBe(0);
        expect(readdirSync(join(env.dir, 'reports'))).toContain('records.csv');
      },
    },
    {
      line: 'wbsync export --format jsonl --out as-of-12 --snapshot 12',
      check: async () => expect((await run(env, 'wbsync export --format jsonl --out as-of-1 --snapshot 1')).status).toBe(0),
    },
    ...['acme', 'globex'].map((name) => ({
      line: `wbsync --db ${name}/wbsync.db export --format jsonl --out exports/${name}`,
      check: async () => {
        expect((await run(env, `wbsync --db ${name}/wbsync.db sync --full`)).status).toBe(0);
        const r = await run(env, `wbsync --db ${name}/wbsync.db export --format jsonl --out exports/${name}`);
        expect(r.status, r.err).toBe(0);
        expect(readdirSync(join(env.dir, 'exports', name))).toContain('modules.jsonl');
      },
    })),
    {
      // docs/fleet.md: a fleet tenant's database, from its worker's data folder, is an ordinary one
      line: 'wbsync --db tenants/acme/wbsync.db verify',
      check: async () => {
        expect((await run(env, 'wbsync --db tenants/acme/wbsync.db sync --full')).status).toBe(0);
        const r = await run(env, 'wbsync --db tenants/acme/wbsync.db verify');
        expect(r.status, r.err).toBe(0);
      },
    },
    { line: 'wbsync diff --module ID', check: async () => expect((await run(env, `wbsync diff --module ${env.moduleId}`)).status).toBe(0) },
    {
      line: 'wbsync restore module ID --dry-run',
      check: async () => {
        expect((await api(env.emu, 'DELETE', `/modules/${env.deletedModuleId}`)).status).toBe(200);
        expect((await run(env, 'wbsync sync')).status).toBe(0);
        const r = await run(env, `wbsync restore module ${env.deletedModuleId} --dry-run`);
        expect(r.status, r.err).toBe(0);
      },
    },
    {
      line: 'wbsync rollback --module ID --to-snapshot N --column Stage --dry-run',
      check: async () => {
        const r = await run(env, `wbsync rollback --module ${env.moduleId} --to-snapshot 1 --column Stage --dry-run`);
        expect(r.status, r.err).toBe(0);
        expect(r.out).toMatch(/would roll back module .* to snapshot 1/);
      },
    },
    {
      // docs/rollback.md: the whole module, automations paused
      line: 'wbsync rollback --module ID --to-snapshot N --pause-automations --dry-run',
      check: async () => {
        const r = await run(env, `wbsync rollback --module ${env.moduleId} --to-snapshot 1 --pause-automations --dry-run`);
        expect([0, 5], r.err).toContain(r.status);
        expect(r.out).toMatch(/would roll back module .* to snapshot 1/);
      },
    },
    {
      line: 'wbsync diff --module ID --snapshot N --column Stage',
      check: async () => expect([0, 1]).toContain((await run(env, `wbsync diff --module ${env.moduleId} --snapshot 1 --column Stage`)).status),
    },
    { line: 'wbsync restore module ID --pause-automations', check: async () => expect((await run(env, `wbsync restore module ${env.deletedModuleId} --pause-automations`)).status).toBe(0) },
    {
      line: 'wbsync restore records ID…'.replace('…', ''),
      check: async () => {
        expect((await api(env.emu, 'DELETE', `/records/${env.archivedRecordId}`)).status).toBe(200);
        expect((await run(env, 'wbsync sync')).status).toBe(0);
        const r = await run(env, `wbsync restore records ${env.archivedRecordId}`);
        expect(r.status, r.err).toBe(0);
      },
    },
    {
      line: 'wbsync offsite push',
      check: async () => {
        const r = await run(env, 'wbsync offsite push', 60_000, await offsite());
        expect(r.status, r.err).toBe(0);
        expect(r.out).toMatch(/^pushed snapshot \d+ to s3:\/\/acme-backups\/wbsync\/acme\/: .* encrypted/);
      },
    },
    { line: 'wbsync offsite list', check: async () => expect((await run(env, 'wbsync offsite list', 60_000, await offsite())).out).toMatch(/^snapshot \d+ {2}taken /) },
    { line: 'wbsync offsite verify', check: async () => expect((await run(env, 'wbsync offsite verify', 60_000, await offsite())).out).toMatch(/^ok {2}snapshot \d+/) },
    {
      line: 'wbsync offsite fetch --identity backup-key.txt --out restored.db',
      check: async () => {
        const r = await run(env, 'wbsync offsite fetch --identity backup-key.txt --out restored.db', 60_000, await offsite());
        expect(r.status, r.err).toBe(0);
        const db = new Database(join(env.dir, 'restored.db'), { readonly: true });
        try {
          expect(db.prepare('SELECT count(*) FROM records').pluck().get()).toBeGreaterThan(0);
        } finally {
          db.close();
        }
      },
    },
    {
      line: 'wbsync restore workspace WS_ID --dry-run',
      check: async () => {
        // the bad day: the workspace is deleted (after a last sync)
        const ws = dumpOf(env.emu).workspaces[0]!._id as string;
        expect((await run(env, 'wbsync sync')).status).toBe(0);
        expect((await api(env.emu, 'DELETE', `/workspaces/${ws}`)).status).toBe(200);
        const r = await run(env, `wbsync restore workspace ${ws} --dry-run`);
        expect(r.status, r.err).toBe(0);
        expect(r.out).toMatch(/^plan \(dry run, nothing written/m);
      },
    },
    {
      line: 'wbsync restore workspace WS_ID',
      check: async () => {
        const ws = dumpOf(env.emu).workspaces[0]!._id as string;
        const r = await run(env, `wbsync restore workspace ${ws}`);
        expect(r.status, r.err).toBe(0);
        expect(r.out).toMatch(/^restored workspace .* as a new workspace/m);
        // the rest of the tour goes on in the restored workspace
        expect((await run(env, 'wbsync sync')).status).toBe(0);
      },
    },
    {
      line: 'wbsync drill',
      check: async () => {
        const r = await run(env, 'wbsync drill', 120_000);
        expect(r.status, r.out + r.err).toBe(0);
        expect(r.out).toMatch(/^drill of snapshot \d+ into the bundled emulator \(observed dialect\): everything restorable restored and equal/);
      },
    },
    {
      line: 'wbsync drill --workspace WS_ID --json',
      check: async () => {
        const ws = dumpOf(env.emu).workspaces.find((w) => !w.isDeleted)!._id as string;
        const r = await run(env, `wbsync drill --workspace ${ws} --json`, 120_000);
        expect(r.status, r.out + r.err).toBe(0);
        expect(JSON.parse(r.out)).toMatchObject({ ok: true, workspaces: [{ workspaceId: ws, ok: true }] });
      },
    },
    {
      line: 'wbsync erase --user USER_ID --dry-run',
      check: async () => {
        const r = await run(env, `wbsync erase --user ${readmeIds(env).user} --dry-run`);
        expect(r.status, r.err).toBe(0);
        expect(r.out).toMatch(/^would erase user /);
      },
    },
    {
      line: 'wbsync erase --user USER_ID --reason ticket-2026-114',
      check: async () => {
        const { user } = readmeIds(env);
        const r = await run(env, `wbsync erase --user ${user} --reason ticket-2026-114`);
        expect(r.status, r.err).toBe(0);
        expect(readmeIds(env).members).not.toContain(user);
        expect((await run(env, 'wbsync verify')).status).toBe(0);
      },
    },
    { line: 'wbsync erase --record ID', check: async () => expect((await run(env, `wbsync erase --record ${readmeIds(env).record}`)).status).toBe(0) },
    {
      line: 'wbsync erase --lift ID',
      check: async () => {
        const db = new Database(join(env.dir, 'data', 'wbsync.db'), { readonly: true });
        const id = db.prepare(`SELECT entity_id FROM erasures WHERE kind = 'record' AND lifted_at IS NULL`).pluck().get() as string;
        db.close();
        const r = await run(env, `wbsync erase --lift ${id}`);
        expect(r.status, r.err).toBe(0);
        expect(r.out).toContain(`lifted record ${id}`);
      },
    },
    {
      line: 'wbsync daemon',
      check: async () => {
        const r = await runUntil(env, 'wbsync daemon', /"msg":"pass finished"/);
        expect(r.code, r.err.slice(-2000)).toBe(0);
      },
    },
    {
      line: 'wbsync ui',
      check: async () => {
        // the default port may be taken on a shared machine: the same line with a free one
        const r = await runUntil(env, 'wbsync ui --listen 127.0.0.1:0', /wbsync console at http:\/\/127\.0\.0\.1:\d+\/ui\//);
        expect(r.code, r.err.slice(-2000)).toBe(0);
      },
    },
    {
      line: 'wbsync emulator --seed demo --port 4010',
      check: async () => {
        // the README's port may be taken on a shared machine: the same line with a free port
        const r = await runUntil(env, 'wbsync emulator --seed demo --port 0', /"baseUrl"/);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.out.split('\n')[0]!).baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      },
    },
    {
      line: 'wbsync demo',
      check: async () => {
        const r = await run(env, 'wbsync demo', 120_000);
        expect(r.status, r.err).toBe(0);
        // the tour ends with what to try next, and it runs: a drill of the demo's database passes
        const said = r.out + r.err;
        expect(said).toMatch(/wbsync ui --db \S+/);
        const db = /wbsync drill --db (\S+)/.exec(said)?.[1];
        expect(db, said.slice(-2000)).toBeTruthy();
        const drill = await run(env, `wbsync drill --db ${db}`, 120_000);
        expect(drill.status, drill.out + drill.err).toBe(0);
      },
    },
  ];

  it.each(CASES.map((c, i) => [c.line, i] as const))('%s', async (_line, i) => {
    await CASES[i]!.check();
  }, 150_000);
});
