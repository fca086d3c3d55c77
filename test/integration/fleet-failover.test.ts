// Workers lost and joining, with real processes (`wbsync fleet worker`, stopped by pid), a real
// Postgres, a real S3 server (s3rver) and real age:
//  - kill -9 of a worker mid-pass: restarted with the same folder, the tenant's next pass completes
//    there and `wbsync verify` passes;
//  - the worker gone for good: `wbsync fleet adopt` brings the tenant up on another worker from its
//    latest fleet copy, says the gap, runs a full pass; verify passes; every snapshot in the copy
//    exports the same as on the lost worker's volume; the lost worker, back, no longer runs it;
//  - a worker joining takes tenants (rebalancing) with their history, no pass missed beyond an
//    interval or so.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import * as age from 'age-encryption';
import Database from 'better-sqlite3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFleetCopies } from '../../src/fleet/copy.js';
import { createS3Store, type ObjectStore } from '../../src/offsite/object-store.js';
import { openStore } from '../../src/store/index.js';
import { runCliCaptured, tempDir } from '../helpers/harness.js';
import { CLI, spawnWorker, startService, waitFor, writeFleetFiles, writeKey, type FleetFiles, type TenantService, type WorkerProcess } from '../helpers/fleet-kit.js';
import { exportsOf } from '../helpers/fleet-exports.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { S3RVER_CREDENTIALS, useS3rverCredentials } from '../helpers/s3-credentials.js';

type Run = { tenant: string; worker: string; kind: string; started_at: Date; finished_at: Date | null; ok: boolean | null; snapshot_id: string | null };
const INTERVAL_S = 2;
const S3_ENV = S3RVER_CREDENTIALS;
const COPY_ROOT = 'wbsync-fleet/';

describe('fleet: a worker killed, lost, and joining (real processes)', () => {
  let pgs: RunningPostgres;
  let s3: InstanceType<typeof S3rver>;
  const tmp = tempDir('wbsync-fleet-failover-');
  let files: FleetFiles;
  /** The bucket of the fleet copies, as the workers see it. */
  let copies: ObjectStore;
  const services = new Map<string, TenantService>();
  const workers: WorkerProcess[] = [];
  let restoreEnv: (() => void) | undefined;
  const cli = (...argv: string[]) => runCliCaptured(['--config', files.config, ...argv], S3_ENV);
  const runs = (tenant: string): Promise<Run[]> => pgs.query<Run>(`select tenant, worker, kind, started_at, finished_at, ok, snapshot_id from wbsync_fleet.runs where tenant = $1 and kind in ('full', 'incremental') order by id`, [tenant]);
  const homeOf = async (tenant: string): Promise<string | undefined> => (await pgs.query<{ worker: string }>(`select worker from wbsync_fleet.homes where tenant = $1`, [tenant]))[0]?.worker;
  const dbOf = (worker: string, tenant: string): string => join(tmp.dir, worker, 'tenants', tenant, 'wbsync.db');
  const start = (id: string): WorkerProcess => {
    const w = spawnWorker(files, id, join(tmp.dir, id), 10, S3_ENV);
    workers.push(w);
    return w;
  };
  const verify = (db: string): { status: number | null; out: string } => {
    const r = spawnSync(process.execPath, [CLI, '--db', db, 'verify'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    return { status: r.status, out: r.stdout + r.stderr };
  };
  async function addTenant(name: string, dialect: 'spec' | 'observed'): Promise<TenantService> {
    const svc = await startService(dialect);
    services.set(name, svc);
    writeKey(files, name, svc.emu.apiKey);
    const settings = join(tmp.dir, 'tenant.json');
    fs.writeFileSync(settings, JSON.stringify({ schedule: { incremental: `*/${INTERVAL_S} * * * * *`, full: '0 0 1 1 *' } }));
    const r = await cli('fleet', 'tenant', 'add', name, '--base-url', svc.emu.baseUrl, '--tenant-config', settings);
    expect(r.code, r.err).toBe(0);
    return svc;
  }

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(tmp.dir, 's3'), configureBuckets: [{ name: 'fleet', configs: [] }] });
    const [{ port }, pg] = await Promise.all([s3.run(), startPostgres({ maxConnections: 60 })]);
    pgs = pg;
    const identity = await age.generateIdentity();
    const idFile = join(tmp.dir, 'fleet-identity.txt');
    fs.writeFileSync(idFile, `${identity}\n`, { mode: 0o600 });
    files = writeFleetFiles(tmp.dir, pgs, {
      fleet: { workerTtlSeconds: 4, copyRecipient: await age.identityToRecipient(identity), copyIdentityFile: idFile, copies: { bucket: 'fleet', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, everyMinutes: 0.02 } },
    });
    restoreEnv = useS3rverCredentials();
    copies = createS3Store({ bucket: 'fleet', prefix: COPY_ROOT, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true });
  }, 60_000);

  afterAll(async () => {
    for (const w of workers) await w.kill9();
    for (const s of services.values()) await s.emu.stop();
    copies?.close();
    await pgs?.destroy();
    await s3?.close();
    tmp.cleanup();
    restoreEnv?.();
  });

  it('kill -9 mid-pass: restarted with the same folder, the next pass completes there and verify passes', { timeout: 60_000 }, async () => {
    const svc = await addTenant('acme', 'spec');
    let w1 = start('w-1');
    await waitFor('a full pass of acme on w-1', 30_000, async () => (await runs('acme')).some((r) => r.ok && r.kind === 'full'));
    // passes slow enough to be caught in the middle
    svc.emu.faults.setLatency(300);
    // killed while its database holds the pass's snapshot, begun and not finished
    const killedAt = await waitFor('a pass of acme in flight', 20_000, async () => {
      const db = new Database(dbOf('w-1', 'acme'), { readonly: true, fileMustExist: true });
      try {
        const running = db.prepare(`SELECT id FROM snapshot_runs WHERE status = 'running'`).pluck().get();
        if (running === undefined) return undefined;
      } finally {
        db.close();
      }
      await w1.kill9();
      return Date.now();
    }, 50);
    svc.emu.faults.setLatency(0);
    // the database holds the interrupted snapshot: still 'running', owner dead
    const s = openStore(dbOf('w-1', 'acme'), { readonly: true });
    const interrupted = s.listSnapshots().filter((x) => x.status === 'running').map((x) => x.id);
    s.close();
    expect(interrupted.length).toBe(1);

    w1 = start('w-1');
    const next = await waitFor('a pass of acme completed on the restarted w-1', 30_000, async () => (await runs('acme')).find((r) => r.ok && r.worker === 'w-1' && r.started_at.getTime() > killedAt));
    expect(next.worker).toBe('w-1');
    expect(await homeOf('acme')).toBe('w-1');
    const v = verify(dbOf('w-1', 'acme'));
    expect(v.status, v.out).toBe(0);
    const after = openStore(dbOf('w-1', 'acme'), { readonly: true });
    try {
      expect(after.getSnapshot(interrupted[0]!)).toMatchObject({ status: 'failed' });
    } finally {
      after.close();
    }
  });

  it('gone for good: fleet adopt brings it up elsewhere from its fleet copy, says the gap, a full pass; the history exports the same', { timeout: 120_000 }, async () => {
    const w1 = workers.find((w) => w.id === 'w-1' && w.proc.exitCode === null && w.proc.signalCode === null)!;
    // a fleet copy written by its home between passes, holding two passes (so that it carries
    // history). Judged by the copies' manifests, as fleet adopt lists them: the files in s3rver's
    // folder are no count of copies (each object has a sidecar ending in .json, and beyond
    // fleet.copies.keep a new copy deletes the oldest, so their number stops growing)
    const passed = await waitFor('two passes of acme on w-1', 20_000, async () => (await runs('acme')).filter((r) => r.worker === 'w-1' && r.ok).at(1));
    const second = Number(passed.snapshot_id);
    const copy = await waitFor(`a fleet copy of acme by w-1 holding snapshot ${second}`, 20_000, async () => (await listFleetCopies(copies, 'acme', COPY_ROOT)).find((c) => c.worker === 'w-1' && c.snapshot !== null && c.snapshot >= second));
    expect(copy.lastSnapshotId).toBeGreaterThanOrEqual(second);
    start('w-2');
    await waitFor('w-2 registered', 20_000, async () => (await pgs.query(`select 1 from wbsync_fleet.workers where id = 'w-2'`)).length > 0);
    await w1.kill9();
    const refused = await cli('fleet', 'adopt', 'acme', '--to', 'w-2');
    expect(refused.code).toBe(6);
    expect(refused.err).toMatch(/home w-1 is alive/);
    await new Promise((r) => setTimeout(r, 4_500)); // past fleet.workerTtlSeconds
    const adopted = await cli('fleet', 'adopt', 'acme', '--to', 'w-2');
    expect(adopted.code, adopted.err).toBe(0);
    // the newest copy: the one waited for or a later one of w-1's (each holds all before it)
    const from = /tenant acme adopted by w-2 \(epoch \d+\), from its fleet copy of snapshot (\d+)/.exec(adopted.out);
    expect(from, adopted.out).not.toBeNull();
    expect(Number(from![1])).toBeGreaterThanOrEqual(copy.snapshot!);
    expect(adopted.out).toMatch(/^gap: /m);
    expect(adopted.out).toMatch(/first pass of acme is a full pass/);
    expect(await homeOf('acme')).toBe('w-2');

    const first = await waitFor('a pass of acme on w-2', 30_000, async () => (await runs('acme')).find((r) => r.worker === 'w-2' && r.ok));
    // (the job asked for the usual catch-up; with no cursor after the adoption the pass was full)
    const placed = openStore(dbOf('w-2', 'acme'), { readonly: true });
    try {
      expect(placed.getSnapshot(Number(first.snapshot_id))).toMatchObject({ kind: 'full', status: 'complete' });
    } finally {
      placed.close();
    }
    const v = verify(dbOf('w-2', 'acme'));
    expect(v.status, v.out).toBe(0);
    // every snapshot the copy holds exports the same from the lost volume and the new home
    const lost = await exportsOf(dbOf('w-1', 'acme'), tmp.dir);
    const now = await exportsOf(dbOf('w-2', 'acme'), tmp.dir);
    const carried = Object.keys(now).filter((id) => Number(id) < Number(first.snapshot_id));
    expect(carried.length).toBeGreaterThanOrEqual(2);
    for (const id of carried) expect(now[Number(id)], `snapshot ${id}`).toEqual(lost[Number(id)]);

    // w-1 comes back with its volume: fenced, it does not run acme any more
    const back = start('w-1');
    await waitFor('w-1 heartbeating again', 20_000, async () => (await pgs.query<{ age: number }>(`select extract(epoch from now() - heartbeat_at)::float8 as age from wbsync_fleet.workers where id = 'w-1'`))[0]!.age < 2);
    await new Promise((r) => setTimeout(r, INTERVAL_S * 1000 + 1000));
    expect((await runs('acme')).filter((r) => r.worker === 'w-1' && r.started_at.getTime() > Date.now() - INTERVAL_S * 1000 - 1000)).toEqual([]);
    await back.stop();
  });

  it('a worker joining takes tenants with their history, no pass missed beyond an interval', { timeout: 60_000 }, async () => {
    for (const t of ['beta', 'gamma']) await addTenant(t, 'observed');
    // w-2 has acme and (having room) takes beta and gamma
    await waitFor('beta and gamma passing on w-2', 30_000, async () => {
      for (const t of ['beta', 'gamma']) if (!(await runs(t)).some((r) => r.ok && r.worker === 'w-2' && r.kind === 'incremental')) return undefined;
      return true;
    });
    const w3 = start('w-3');
    // 3 tenants, 2 live workers: w-3 asks for one
    const moved = await waitFor('a tenant moved to w-3 and passing there', 40_000, async () => {
      for (const t of ['acme', 'beta', 'gamma']) {
        if ((await homeOf(t)) === 'w-3' && (await runs(t)).some((r) => r.ok && r.worker === 'w-3')) return t;
      }
      return undefined;
    });
    expect(w3.proc.exitCode).toBeNull();
    const all = await runs(moved);
    const lastOld = all.filter((r) => r.worker === 'w-2' && r.ok).at(-1)!;
    const firstNew = all.find((r) => r.worker === 'w-3' && r.ok)!;
    // the gap between the old home's last pass and the new home's first: at most one interval
    // missed, besides the time the move itself took (stop, copy, upload, download, verify, place)
    const [move] = await pgs.query<{ started_at: Date; finished_at: Date }>(`select started_at, finished_at from wbsync_fleet.moves where tenant = $1 and state = 'done' order by id desc limit 1`, [moved]);
    const moveS = (move!.finished_at.getTime() - Math.max(move!.started_at.getTime(), lastOld.finished_at!.getTime())) / 1000;
    const gapS = (firstNew.started_at.getTime() - lastOld.finished_at!.getTime()) / 1000;
    expect(gapS, `gap ${gapS} s, the move ${moveS} s`).toBeLessThan(INTERVAL_S * 2 + Math.max(0, moveS) + 1);
    expect(firstNew.kind).toBe('incremental'); // moved with its cursors: no full pass needed
    // with its history: every snapshot the old home had, the same on the new
    const old = await exportsOf(dbOf('w-2', moved), tmp.dir);
    const now = await exportsOf(dbOf('w-3', moved), tmp.dir);
    for (const id of Object.keys(old)) expect(now[Number(id)], `snapshot ${id}`).toEqual(old[Number(id)]);
    expect(Object.keys(now).length).toBeGreaterThanOrEqual(Object.keys(old).length);
    const v = verify(dbOf('w-3', moved));
    expect(v.status, v.out).toBe(0);
    // never two homes: the old home runs it no more
    const since = Date.now();
    await new Promise((r) => setTimeout(r, INTERVAL_S * 1000 + 500));
    expect((await runs(moved)).filter((r) => r.worker === 'w-2' && r.started_at.getTime() > since)).toEqual([]);

    // fleet drain w-3: it goes back to w-2 with its history, and the command waits for it
    const before = await exportsOf(dbOf('w-3', moved), tmp.dir);
    const drained = await cli('fleet', 'drain', 'w-3', '--wait', '30');
    expect(drained.code, drained.err).toBe(0);
    expect(drained.out).toContain(`worker w-3 draining: 1 tenant(s) to move (${moved})`);
    expect(drained.out).toContain(`${moved}: done → w-2`);
    expect(await homeOf(moved)).toBe('w-2');
    const back = await exportsOf(dbOf('w-2', moved), tmp.dir);
    for (const id of Object.keys(before)) expect(back[Number(id)], `snapshot ${id}`).toEqual(before[Number(id)]);
    await waitFor(`${moved} passing on w-2 again`, 20_000, async () => (await runs(moved)).some((r) => r.ok && r.worker === 'w-2' && r.started_at.getTime() > since));
  });
});
