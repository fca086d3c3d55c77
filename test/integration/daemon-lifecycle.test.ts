// `wbsync daemon` as a child process against the in-process emulator: first full pass, catching
// up with writes, /healthz and /metrics, one daemon per database, SIGTERM mid-pass, and kill -9
// mid-pass followed by a restart that resumes from the stored cursor.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLockHeld } from '../../src/store/lock.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { expectedViews } from '../helpers/expected-views.js';
import { api, tempDir } from '../helpers/harness.js';
import { eventually, getJson, killAll, runCliSync, startDaemon, writeConfig, type DaemonChild, type LogLine } from './daemon-harness.js';

function readDb<T>(db: string, fn: (d: Database.Database) => T): T {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return fn(d);
  } finally {
    d.close();
  }
}

const finished = (l: LogLine) => l.msg === 'pass finished';

describe('daemon lifecycle', () => {
  let emu: RunningEmulator;
  let dir: string;
  let cleanup: () => void;
  beforeAll(async () => {
    emu = await startEmulator({ dialect: 'spec', seed: 'demo' });
    ({ dir, cleanup } = tempDir('wbsync-daemon-'));
  });
  afterEach(async () => {
    await killAll();
    emu.faults.clear();
  });
  afterAll(async () => {
    await killAll();
    await emu?.stop();
    cleanup?.();
  });

  it('should run a full pass at once on an empty database, catch up with writes, serve health and metrics, refuse a second daemon, and stop cleanly on SIGTERM', async () => {
    const db = join(dir, 'a', 'wbsync.db');
    const cfg = writeConfig(dir, 'a', { db });
    const d = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    const port = await d.port();
    const first = await d.waitForLog(finished, 20_000, 'first pass');
    expect(first).toMatchObject({ kind: 'full', status: 'complete' });
    for (const k of ['snapshot', 'counts', 'requests', 'retries', 'durationMs']) expect(first).toHaveProperty(k);
    expect(d.lines.find((l) => l.msg === 'pass started')).toMatchObject({ kind: 'full', reason: expect.stringContaining('no complete snapshot') });

    const health = await getJson(port, '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', lastPass: { kind: expect.any(String), status: 'complete' } });
    for (const k of ['snapshot', 'counts', 'requests', 'durationMs', 'finishedAt']) expect(health.body.lastPass).toHaveProperty(k);
    expect(health.body.lastSuccess).toEqual(expect.any(String));

    // a write through plain HTTP reaches the database on a later pass
    const rec = emu.dump().records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord)!;
    expect((await api(emu, 'PUT', `/records/${rec._id}`, { name: 'Renamed while the daemon runs' })).status).toBe(200);
    await eventually(() => readDb(db, (x) => x.prepare('SELECT name FROM records WHERE id = ?').pluck().get(rec._id) === 'Renamed while the daemon runs'), 15_000, 'the rename in the database');
    expect(d.lines.filter(finished).some((l) => l.kind === 'incremental')).toBe(true);

    const metrics = await getJson(port, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    expect(metrics.text).toMatch(/^wbsync_passes_total\{kind="full",status="complete"\} 1$/m);
    expect(metrics.text).toMatch(/^wbsync_passes_total\{kind="incremental",status="complete"\} \d+$/m);
    expect(metrics.text).toMatch(/^wbsync_http_requests_total\{class="2xx"\} \d+$/m);
    expect(metrics.text).toMatch(/^wbsync_entities\{view="records"\} [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^wbsync_last_success_timestamp_seconds \d+/m);
    expect(metrics.text).toMatch(/^wbsync_activity_lag_seconds \d/m);
    // label order is the exposition library's (prom-client writes le first); Prometheus reads either
    expect(metrics.text).toMatch(/^wbsync_pass_duration_seconds_bucket\{(kind="full",le="\+Inf"|le="\+Inf",kind="full")\} 1$/m);
    expect((await getJson(port, '/nope')).status).toBe(404);

    // one daemon per database
    const second = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    expect(await second.exited).toBe(2);
    expect(second.stderr()).toContain(`pid ${d.pid}`);
    expect(isLockHeld(db, 'daemon')).toBe(true);

    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(d.lines.some((l) => l.msg === 'stopped')).toBe(true);
    expect(isLockHeld(db, 'daemon') || isLockHeld(db)).toBe(false);
    const verify = runCliSync(['verify', '--db', db]);
    expect(verify.stderr + verify.stdout).not.toContain('problem(s)');
    expect(verify.status).toBe(0);
    // the key never reaches the log
    expect(d.stderr()).not.toContain(emu.apiKey);
  });

  it('should stop within 10 s and exit 0 on SIGTERM in the middle of a pass, leaving a database that verifies', async () => {
    const db = join(dir, 'b', 'wbsync.db');
    emu.faults.setLatency(40); // a slow service: the first full pass takes seconds
    const d = startDaemon(writeConfig(dir, 'b', { db }), emu.baseUrl, emu.apiKey);
    await d.waitForLog((l) => l.msg === 'pass started', 15_000, 'pass started');
    await new Promise((r) => setTimeout(r, 700));
    expect(d.lines.some(finished)).toBe(false);
    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(d.lines.some((l) => String(l.msg).startsWith('pass interrupted'))).toBe(true);
    expect(isLockHeld(db, 'daemon') || isLockHeld(db)).toBe(false);
    const statuses = readDb(db, (x) => x.prepare('SELECT status FROM snapshots').pluck().all());
    expect(statuses).toEqual(['failed']);
    const verify = runCliSync(['verify', '--db', db]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  });

  it('should resume from the stored cursor after kill -9 mid-pass: nothing missing, no activity row twice', async () => {
    const db = join(dir, 'c', 'wbsync.db');
    const cfg = writeConfig(dir, 'c', { db });
    const d1 = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    await d1.waitForLog((l) => finished(l) && l.kind === 'full', 20_000, 'full pass');

    // changes, then a slow service, so that the next incremental pass is caught in the middle
    const records = emu.dump().records.filter((r) => !r.isDeleted && !r.isArchived && !r.parentRecord);
    for (let i = 0; i < 6; i++) expect((await api(emu, 'PUT', `/records/${records[i]._id}`, { name: `before crash ${i}` })).status).toBe(200);
    emu.faults.setLatency(150);
    const seen = d1.lines.length;
    await d1.waitForLog((l) => l.msg === 'pass started' && d1.lines.indexOf(l) >= seen, 10_000, 'a pass after the writes');
    await new Promise((r) => setTimeout(r, 400));
    process.kill(d1.pid, 'SIGKILL');
    expect(await d1.exited).toBe('SIGKILL');
    expect(existsSync(`${db}.lock`)).toBe(true); // the killed daemon's lock file stays; the kernel let go of the lock
    expect(isLockHeld(db, 'daemon') || isLockHeld(db)).toBe(false);
    emu.faults.setLatency(0);
    for (let i = 6; i < 9; i++) expect((await api(emu, 'PUT', `/records/${records[i]._id}`, { name: `after crash ${i}` })).status).toBe(200);

    const d2 = startDaemon(cfg, emu.baseUrl, emu.apiKey);
    await d2.waitForLog((l) => String(l.msg).includes('stale lock'), 10_000, 'stale lock taken over');
    await d2.waitForLog((l) => finished(l) && l.status === 'complete', 20_000, 'a pass after the restart');
    const resumed = d2.lines.find(finished)!;
    expect(resumed.kind).toBe('incremental');

    await emu.idle();
    const expected = expectedViews(emu.dump(), emu.users[0].id, 'spec');
    const { names, activityIds, twice, versionsTwice } = readDb(db, (x) => ({
      names: new Map((x.prepare('SELECT id, name FROM records').all() as Array<{ id: string; name: string }>).map((r) => [r.id, r.name])),
      activityIds: new Set(x.prepare('SELECT id FROM activity').pluck().all() as string[]),
      twice: x.prepare('SELECT id FROM activity GROUP BY id HAVING count(*) > 1').all(),
      versionsTwice: x.prepare('SELECT id FROM activity_versions GROUP BY id HAVING count(*) > 1').all(),
    }));
    for (let i = 0; i < 9; i++) expect(names.get(records[i]._id as string)).toBe(`${i < 6 ? 'before' : 'after'} crash ${i}`);
    const missing = expected.activity.map((a) => String(a.id)).filter((id) => !activityIds.has(id));
    expect(missing).toEqual([]);
    expect(twice).toEqual([]);
    expect(versionsTwice).toEqual([]);
    d2.proc.kill('SIGTERM');
    expect(await d2.exited).toBe(0);
    const verify = runCliSync(['verify', '--db', db]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  });
});
