// A fleet tenant that is never idle still gets its periodic fleet copy, with real processes (`wbsync
// fleet worker`, stopped by pid), a real Postgres, a real S3 server (s3rver) and real age: passes
// made slow (the emulator's latency) on a schedule more frequent than a pass takes, so a job of the
// tenant runs at every round of the worker. Its next job is held once the copy is due: the copy is
// written within a couple of rounds of the pass in flight ending, holds that pass, and the passes go
// on after it. One tenant per dialect, on one worker (two held at once: one copy per round).

import fs from 'node:fs';
import { join } from 'node:path';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFleetCopies } from '../../src/fleet/copy.js';
import { createS3Store, type ObjectStore } from '../../src/offsite/object-store.js';
import { runCliCaptured, tempDir } from '../helpers/harness.js';
import { spawnWorker, startService, waitFor, writeFleetFiles, writeKey, type FleetFiles, type TenantService, type WorkerProcess } from '../helpers/fleet-kit.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { S3RVER_CREDENTIALS, useS3rverCredentials } from '../helpers/s3-credentials.js';

type Run = { id: string; kind: string; started_at: Date; finished_at: Date | null; ok: boolean | null; snapshot_id: string | null };
const COPY_ROOT = 'wbsync-fleet/';
/** Each request of the service answered this late: a pass takes seconds, its schedule is every second. */
const LATENCY_MS = 1_500;
/** From the end of the pass in flight when the copy fell due to the copy: the worker's next idle
 * round (fleet.heartbeatSeconds 1), one per round with two tenants held, and the copy's own time. */
const WITHIN_MS = 6_000;

describe('fleet: the periodic copy of a tenant whose passes run back to back (real processes)', () => {
  let pgs: RunningPostgres;
  let s3: InstanceType<typeof S3rver>;
  const tmp = tempDir('wbsync-fleet-copy-busy-');
  let files: FleetFiles;
  let copies: ObjectStore;
  let worker: WorkerProcess | undefined;
  const services: TenantService[] = [];
  let restoreEnv: (() => void) | undefined;
  const cli = (...argv: string[]) => runCliCaptured(['--config', files.config, ...argv], S3RVER_CREDENTIALS);
  const runs = (tenant: string): Promise<Run[]> => pgs.query<Run>(`select id, kind, started_at, finished_at, ok, snapshot_id from wbsync_fleet.runs where tenant = $1 and kind in ('full', 'incremental') order by id`, [tenant]);

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(tmp.dir, 's3'), configureBuckets: [{ name: 'fleet', configs: [] }] });
    const [{ port }, pg] = await Promise.all([s3.run(), startPostgres()]);
    pgs = pg;
    restoreEnv = useS3rverCredentials();
    const identity = await age.generateIdentity();
    const idFile = join(tmp.dir, 'fleet-identity.txt');
    fs.writeFileSync(idFile, `${identity}\n`, { mode: 0o600 });
    // a copy due 1.2 s after the last one: due in the middle of every slow pass
    files = writeFleetFiles(tmp.dir, pgs, {
      fleet: { copyRecipient: await age.identityToRecipient(identity), copyIdentityFile: idFile, copies: { bucket: 'fleet', prefix: COPY_ROOT, endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, everyMinutes: 0.02 } },
    });
    copies = createS3Store({ bucket: 'fleet', prefix: COPY_ROOT, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true });
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    for (const s of services) await s.emu.stop();
    copies?.close();
    await pgs?.destroy();
    await s3?.close();
    tmp.cleanup();
    restoreEnv?.();
  });

  it('its next job waits for the copy, which is written right after the pass in flight and holds it; the passes go on after it', { timeout: 120_000 }, async () => {
    const tenants = [
      { name: 'spec-t', dialect: 'spec' as const },
      { name: 'observed-t', dialect: 'observed' as const },
    ];
    const settings = join(tmp.dir, 'tenant.json');
    fs.writeFileSync(settings, JSON.stringify({ schedule: { incremental: '* * * * * *', full: '0 0 1 1 *' } }));
    for (const t of tenants) {
      const svc = await startService(t.dialect);
      services.push(svc);
      writeKey(files, t.name, svc.emu.apiKey);
      const r = await cli('fleet', 'tenant', 'add', t.name, '--base-url', svc.emu.baseUrl, '--tenant-config', settings);
      expect(r.code, r.err).toBe(0);
    }
    worker = spawnWorker(files, 'w-1', join(tmp.dir, 'w-1'), 4, S3RVER_CREDENTIALS);
    for (const t of tenants) await waitFor(`a first pass of ${t.name}`, 40_000, async () => (await runs(t.name)).some((r) => r.ok));
    // slow passes from now on: each takes seconds, the schedule asks every second
    for (const s of services) s.emu.faults.setLatency(LATENCY_MS);
    const slowFrom = Date.now();

    const healthUrl = (await pgs.query<{ health_url: string }>(`select health_url from wbsync_fleet.workers where id = 'w-1'`))[0]!.health_url;
    type Health = { tenants: Record<string, { running: unknown; waitingForCopySince: string | null }> };
    for (const t of tenants) {
      // a slow pass in flight (begun after the latency was set)
      const inFlight = await waitFor(`a slow pass of ${t.name} in flight`, 30_000, async () => (await runs(t.name)).find((r) => r.started_at.getTime() > slowFrom && r.finished_at === null));
      // /healthz says the next job waits for the copy while the pass runs
      await waitFor(`/healthz showing ${t.name} waiting for its copy`, 30_000, async () => {
        const h = (await (await fetch(`${healthUrl}/healthz`)).json()) as Health;
        return h.tenants[t.name]?.waitingForCopySince ? h.tenants[t.name] : undefined;
      });
      const ended = await waitFor(`pass ${inFlight.id} of ${t.name} ended`, 60_000, async () => (await runs(t.name)).find((r) => r.id === inFlight.id && r.finished_at !== null));
      expect(ended.ok).toBe(true);
      const endedAt = ended.finished_at!.getTime();
      expect(endedAt - ended.started_at.getTime(), 'the pass was slow (longer than the copy falls due after the last one)').toBeGreaterThan(3_000);
      // the copy: written after that pass, within a couple of rounds, and holding it
      const copy = await waitFor(`a fleet copy of ${t.name} after pass ${inFlight.id}`, WITHIN_MS + 10_000, async () => (await listFleetCopies(copies, t.name, COPY_ROOT)).find((c) => Date.parse(c.takenAt) >= endedAt));
      const takenAt = Date.parse(copy.takenAt);
      expect(takenAt - endedAt, `copy taken ${takenAt - endedAt} ms after pass ${inFlight.id} ended`).toBeLessThan(WITHIN_MS);
      expect(copy.lastSnapshotId).toBeGreaterThanOrEqual(Number(ended.snapshot_id));
      expect(copy.snapshot).toBeGreaterThanOrEqual(Number(ended.snapshot_id));
      // the next pass waited for the copy (nothing ran between), and the passes go on after it
      const after = await waitFor(`a pass of ${t.name} after its copy, completed`, 60_000, async () => (await runs(t.name)).find((r) => r.started_at.getTime() >= takenAt - 50 && r.ok));
      expect((await runs(t.name)).filter((r) => r.started_at.getTime() > endedAt && r.started_at.getTime() < takenAt - 50)).toEqual([]);
      expect(Number(after.snapshot_id)).toBeGreaterThan(Number(ended.snapshot_id));
      // the copy written, /healthz no longer says the tenant waits for it (it may be due again: a
      // copy falls due 1.2 s after the last, so a later hold shows a later time)
      const h = (await (await fetch(`${healthUrl}/healthz`)).json()) as Health;
      const since = h.tenants[t.name]!.waitingForCopySince;
      expect(since === null || Date.parse(since) > takenAt, `waiting since ${since}`).toBe(true);
    }
    // an operator sees why a pass waited
    const out = worker.output();
    for (const t of tenants) expect(out).toMatch(new RegExp(`"tenant":"${t.name}"[^\\n]*the next job waits for the tenant's fleet copy: due, and written between passes`));
    expect(out).not.toMatch(/fleet copy not written/);
    expect(worker.proc.exitCode).toBeNull();
  });
});
