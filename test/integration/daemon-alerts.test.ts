// Alerts that reach a person, through a real daemon (child process) and a local receiver on
// 127.0.0.1: each event fires once, not once per pass; recovered follows a failure; healthchecks
// pings frame each pass; a bulk overwrite and a module deletion trip the tripwire (the snapshot
// before is held, the alert names the undo command); a normal day's edits do not; a dead or
// hanging receiver neither slows nor fails passes, and no URL ever reaches the log.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as age from 'age-encryption';
import Database from 'better-sqlite3';
import S3rver from 's3rver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf, tempDir } from '../helpers/harness.js';
import { eventually, getJson, killAll, startDaemon, writeConfig } from './daemon-harness.js';

interface Hit {
  path: string;
  body: string;
  type: string | undefined;
}

/** A webhook receiver; `hang` paths never answer. */
async function receiver(hang: string[] = []): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', body, type: req.headers['content-type'] });
      if (hang.includes(req.url ?? '')) return; // never answers
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const alertsAt = (hits: Hit[], path: string, event?: string): Array<Record<string, any>> =>
  hits.filter((h) => h.path === path).map((h) => JSON.parse(h.body) as Record<string, any>).filter((a) => !event || a.event === event);

describe('daemon alerts and tripwire', () => {
  let dir: string;
  let cleanup: () => void;
  const emus: RunningEmulator[] = [];
  const closers: Array<() => Promise<void>> = [];
  beforeAll(() => {
    ({ dir, cleanup } = tempDir('wbsync-daemon-alerts-'));
  });
  afterEach(async () => {
    await killAll();
    for (const c of closers.splice(0)) await c();
  });
  afterAll(async () => {
    await killAll();
    for (const e of emus) await e.stop();
    cleanup?.();
  });

  it('fires each event once per episode, recovered after, and trips on a bulk overwrite and a deleted module but not on a normal day', { timeout: 120_000 }, async () => {
    const emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
    emus.push(emu);
    const rx = await receiver();
    closers.push(rx.close);
    const db = join(dir, 'a', 'wbsync.db');
    const cfg = writeConfig(dir, 'a', {
      db,
      extra: {
        alerts: {
          webhooks: [
            { url: `${rx.url}/json-hook-s3cret`, format: 'json' },
            { url: `${rx.url}/slack-hook-s3cret`, format: 'slack', events: ['pass_failed', 'recovered'] },
          ],
          healthchecksUrl: `${rx.url}/hc-s3cret`,
          afterFailures: 2,
          timeoutMs: 2000,
        },
        tripwire: { minCells: 5, minRecords: 5 },
      },
    });
    const d = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    const passes = (): number => d.lines.filter((l) => l.msg === 'pass finished').length;
    // (failed passes are logged once a minute with a count: count the healthchecks fail pings instead)
    const failures = (): number => rx.hits.filter((h) => h.path === '/hc-s3cret/fail').length;
    await eventually(() => passes() >= 2, 30_000, 'two passes');
    await eventually(() => rx.hits.some((h) => h.path === '/hc-s3cret/start') && rx.hits.some((h) => h.path === '/hc-s3cret'), 10_000, 'healthchecks pings');
    expect(alertsAt(rx.hits, '/json-hook-s3cret')).toEqual([]);

    // an outage: every request fails; pass_failed once after two failures, however long it lasts
    emu.faults.setFailRate(1);
    await eventually(() => alertsAt(rx.hits, '/json-hook-s3cret', 'pass_failed').length === 1, 30_000, 'pass_failed');
    const f0 = failures();
    await eventually(() => failures() >= f0 + 2, 30_000, 'two more failed passes');
    expect(alertsAt(rx.hits, '/json-hook-s3cret', 'pass_failed')).toHaveLength(1);
    const failed = alertsAt(rx.hits, '/json-hook-s3cret', 'pass_failed')[0]!;
    expect(failed).toMatchObject({ event: 'pass_failed', database: db, details: { consecutiveFailures: 2 } });
    expect(rx.hits.some((h) => h.path === '/hc-s3cret/fail')).toBe(true);
    const slack = rx.hits.filter((h) => h.path === '/slack-hook-s3cret');
    expect(slack).toHaveLength(1);
    expect(JSON.parse(slack[0]!.body)).toEqual({ text: expect.stringMatching(/^\*wbsync pass failed\* — 2 passes in a row failed/) });

    emu.faults.clear();
    await eventually(() => alertsAt(rx.hits, '/json-hook-s3cret', 'recovered').length === 1, 30_000, 'recovered');
    const p0 = passes();
    await eventually(() => passes() >= p0 + 2, 30_000, 'two more passes');
    expect(alertsAt(rx.hits, '/json-hook-s3cret', 'recovered')).toHaveLength(1);
    expect(rx.hits.filter((h) => h.path === '/slack-hook-s3cret').map((h) => JSON.parse(h.body).text as string)[1]).toMatch(/recovered/);

    // a normal day: a rename, one cell — no tripwire
    const dump = dumpOf(emu);
    const mod = dump.modules.find((m) => !m.isDeleted)!;
    const live = dump.records.filter((r) => r.module === mod._id && !r.isDeleted && !r.isArchived);
    expect((await api(emu, 'PUT', `/records/${live[0]!._id}`, { name: 'renamed on a normal day' })).status).toBe(200);
    const p1 = passes();
    await eventually(() => passes() >= p1 + 2, 30_000, 'passes after a normal day');
    expect(alertsAt(rx.hits, '/json-hook-s3cret', 'tripwire')).toEqual([]);

    // a bulk overwrite of one column: every cell of it set to the same value
    const counts = new Map<string, number>();
    const text = new Set(dump.columns.filter((c) => !c.isDeleted && c.module === mod._id && c.type === 'text').map((c) => c._id as string));
    for (const v of dump.values.filter((x) => !x.isDeleted && text.has(x.column as string))) counts.set(v.column as string, (counts.get(v.column as string) ?? 0) + 1);
    const [column, n] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect(n).toBeGreaterThanOrEqual(5);
    for (const v of dump.values.filter((x) => !x.isDeleted && x.column === column)) {
      expect((await api(emu, 'PUT', `/record-values/${v._id}`, { value: 'overwritten by an import' })).status).toBe(200);
    }
    const trip = await eventually(() => alertsAt(rx.hits, '/json-hook-s3cret', 'tripwire')[0], 30_000, 'tripwire on the overwrite');
    expect(trip).toMatchObject({ moduleId: mod._id, workspaceId: mod.workspace, details: { held: true } });
    expect(trip.undo).toBe(`wbsync rollback --incident ${trip.details.incident} --pause-automations`);
    expect(trip.undoArgv).toEqual(['wbsync', 'rollback', '--incident', String(trip.details.incident), '--pause-automations']);
    expect(trip.details.columns).toEqual([column]);
    expect(trip.summary).toMatch(new RegExp(`^mass change in module .*: column .*: 0 added · ${n} changed · 0 removed`));
    const held = new Database(db, { readonly: true });
    try {
      expect(held.prepare('SELECT snapshot_id FROM snapshot_holds WHERE released_at IS NULL').pluck().all()).toEqual([trip.details.snapshot]);
    } finally {
      held.close();
    }
    const p2 = passes();
    await eventually(() => passes() >= p2 + 2, 30_000, 'passes after the overwrite');
    expect(alertsAt(rx.hits, '/json-hook-s3cret', 'tripwire')).toHaveLength(1); // once

    // a deleted module
    expect((await api(emu, 'DELETE', `/modules/${mod._id}`)).status).toBe(200);
    const gone = await eventually(() => alertsAt(rx.hits, '/json-hook-s3cret', 'tripwire').find((a) => a.summary.startsWith('module ')), 30_000, 'tripwire on the deletion');
    expect(gone.undo).toBe(`wbsync restore module ${mod._id} --snapshot ${gone.details.snapshot} --pause-automations`);

    // the URLs are secrets: never in the log
    expect(d.stderr()).not.toContain('s3cret');
  });

  it('a dead or hanging receiver neither slows nor fails passes', { timeout: 60_000 }, async () => {
    const emu = await startEmulator({ dialect: 'observed', seed: 'demo' });
    emus.push(emu);
    const rx = await receiver(['/hang-s3cret']);
    closers.push(rx.close);
    const dead = await receiver();
    const deadUrl = dead.url;
    await dead.close(); // nothing listens there any more
    const cfg = writeConfig(dir, 'b', {
      db: join(dir, 'b', 'wbsync.db'),
      extra: {
        alerts: { webhooks: [{ url: `${rx.url}/hang-s3cret` }, { url: `${deadUrl}/dead-s3cret` }], healthchecksUrl: `${deadUrl}/hc-s3cret`, afterFailures: 1, timeoutMs: 1000 },
      },
    });
    const d = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    await d.waitForLog((l) => l.msg === 'pass finished', 30_000, 'first pass');
    emu.faults.setFailRate(1);
    await d.waitForLog((l) => l.msg === 'alert' && l.event === 'pass_failed', 30_000, 'pass_failed');
    emu.faults.clear();
    // while both deliveries retry in the background (3 attempts, 1 s timeout each), passes go on
    const since = d.lines.length;
    await eventually(() => d.lines.slice(since).filter((l) => l.msg === 'pass finished').length >= 3, 20_000, 'three passes while deliveries retry');
    const took = d.lines.slice(since).filter((l) => l.msg === 'pass finished').map((l) => Number(l.durationMs));
    expect(Math.max(...took)).toBeLessThan(1000);
    await d.waitForLog((l) => l.msg === 'alert not delivered' && l.target === 'webhook 1', 20_000, 'the hanging receiver given up on');
    await d.waitForLog((l) => l.msg === 'alert not delivered' && l.target === 'webhook 2', 20_000, 'the dead receiver given up on');
    // three attempts of pass_failed, each timed out
    expect(rx.hits.filter((h) => h.path === '/hang-s3cret' && JSON.parse(h.body).event === 'pass_failed')).toHaveLength(3);
    expect(d.stderr()).not.toContain('s3cret');
  });

  it('prunes after each full pass when a retention policy is set', { timeout: 60_000 }, async () => {
    const emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
    emus.push(emu);
    const db = join(dir, 'c', 'wbsync.db');
    const cfg = writeConfig(dir, 'c', { db, full: '*/3 * * * * *', extra: { retention: { keepLast: 2 } } });
    const d = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    const pruned = await d.waitForLog((l) => l.msg === 'pruned' && Array.isArray(l.forgotten) && l.forgotten.length > 0, 30_000, 'a prune that forgot something');
    expect(pruned.rows).toEqual(expect.any(Object));
    const after = new Database(db, { readonly: true });
    try {
      const complete = after.prepare(`SELECT id FROM snapshot_runs WHERE status = 'complete' AND id NOT IN (SELECT snapshot_id FROM snapshot_forgets)`).pluck().all() as number[];
      expect(complete.length).toBeGreaterThanOrEqual(2);
      // kept: the last two at the prune, plus passes finished since
      expect(complete.every((id) => !(pruned.forgotten as number[]).includes(id))).toBe(true);
    } finally {
      after.close();
    }
  });

  it('pushes an encrypted offsite copy after a full pass; a push that fails raises offsite_failed', { timeout: 60_000 }, async () => {
    const emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
    emus.push(emu);
    const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'backups', configs: [] }] });
    const { port } = await s3.run();
    closers.push(() => s3.close());
    const rx = await receiver();
    closers.push(rx.close);
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    closers.push(async () => {
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    });
    const recipient = await age.identityToRecipient(await age.generateIdentity());
    const offsite = (endpoint: string) => ({ bucket: 'backups', prefix: 'd/', endpoint, forcePathStyle: true, recipients: [recipient] });
    const good = startDaemon(writeConfig(dir, 'os', { db: join(dir, 'os', 'wbsync.db'), extra: { offsite: offsite(`http://127.0.0.1:${port}`) } }), emu.baseUrl, emu.apiKey);
    const pushed = await good.waitForLog((l) => l.msg === 'offsite copy pushed', 30_000, 'offsite copy pushed');
    expect(pushed.sha256).toMatch(/^[0-9a-f]{64}$/);
    const metrics = await getJson(await good.port(), '/metrics');
    expect(metrics.text).toMatch(/^wbsync_offsite_pushes_total\{status="ok"\} 1$/m);
    expect(metrics.text).toMatch(/^wbsync_offsite_last_success_timestamp_seconds [1-9]/m);

    const dead = await receiver();
    const deadUrl = dead.url;
    await dead.close();
    const bad = startDaemon(
      writeConfig(dir, 'os2', { db: join(dir, 'os2', 'wbsync.db'), extra: { offsite: offsite(deadUrl), alerts: { webhooks: [{ url: `${rx.url}/hook` }], timeoutMs: 2000 } } }),
      emu.baseUrl,
      emu.apiKey,
    );
    await bad.waitForLog((l) => l.msg === 'offsite push failed', 60_000, 'offsite push failed');
    const alert = await eventually(() => alertsAt(rx.hits, '/hook', 'offsite_failed')[0], 15_000, 'offsite_failed alert');
    expect(alert.summary).toMatch(/^offsite copy of snapshot 1 failed/);
    expect(bad.stderr()).not.toContain('S3RVER');
  });
});

