// Moves between workers against a real Postgres (test/helpers/postgres.ts), a real S3 server
// (s3rver) and real age, with real tenant databases filled by passes against the emulator; the
// workers' side (Mover) driven here step by step, so each state can be looked at:
//  - drain: the old home stops the tenant, writes the copy, hands the home over with a new epoch in
//    one transaction; the new home places it; every snapshot exports the same on both;
//  - adopt: refused while the home is alive or with no copy; with the home gone, the latest copy is
//    homed elsewhere, the gap said (passes the old home made after it), the first pass full;
//  - rebalance: a worker joining with room asks the busiest for tenants, down to the fair share.

import fs from 'node:fs';
import { join } from 'node:path';
import * as age from 'age-encryption';
import type pg from 'pg';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { fleetCopySettings } from '../../src/fleet/copy-settings.js';
import { listFleetCopies } from '../../src/fleet/copy.js';
import { adoptTenant, movesOf, requestDrain } from '../../src/fleet/move.js';
import { Mover } from '../../src/fleet/mover.js';
import { openFleetDb, type FleetDb } from '../../src/fleet/pg.js';
import { ensureFleetSchema, FLEET_SCHEMA as S } from '../../src/fleet/schema.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { runPass } from '../../src/sync/pass.js';
import { createLogger } from '../../src/config/logger.js';
import { makeClient, silentLogger, tempDir } from '../helpers/harness.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { exportsOf } from '../helpers/fleet-exports.js';

describe('fleet moves (Postgres, s3rver, age)', { timeout: 60_000 }, () => {
  let pgs: RunningPostgres;
  let s3: InstanceType<typeof S3rver>;
  let db: FleetDb;
  let pool: pg.Pool;
  let config: Config;
  let scratch: { dir: string; cleanup: () => void };
  let emu: RunningEmulator;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  const dbPath = (worker: string, tenant: string): string => join(scratch.dir, worker, 'tenants', tenant, 'wbsync.db');
  const open = new Map<string, Store>();
  const stopped: string[] = [];

  function mover(worker: string): Mover {
    return new Mover({
      workerId: worker,
      pool,
      logger: createLogger({ level: 'silent' }),
      workerConfig: config,
      dbPathOf: (t) => dbPath(worker, t),
      stopTenant: async (t) => {
        stopped.push(`${worker}/${t}`);
        open.get(`${worker}/${t}`)?.close();
        open.delete(`${worker}/${t}`);
      },
    });
  }
  async function pass(worker: string, tenant: string, full = false): Promise<void> {
    const key = `${worker}/${tenant}`;
    if (!open.has(key)) open.set(key, openStore(dbPath(worker, tenant)));
    const client = makeClient(emu);
    try {
      await runPass({ client, store: open.get(key)!, logger: silentLogger }, { full });
    } finally {
      await client.close();
    }
  }
  async function worker(id: string, capacity = 10, ageSeconds = 0): Promise<void> {
    await pool.query(
      `insert into ${S}.workers(id, capacity, heartbeat_at, started_at) values ($1, $2, now() - make_interval(secs => $3), now())
       on conflict (id) do update set capacity = $2, heartbeat_at = now() - make_interval(secs => $3), draining = false`,
      [id, capacity, ageSeconds],
    );
  }
  async function home(tenant: string): Promise<{ worker: string; epoch: number }> {
    const r = await pool.query<{ worker: string; epoch: string }>(`select worker, epoch from ${S}.homes where tenant = $1`, [tenant]);
    return { worker: r.rows[0]!.worker, epoch: Number(r.rows[0]!.epoch) };
  }
  async function tenant(name: string, on: string): Promise<void> {
    await pool.query(`insert into ${S}.tenants(name, base_url) values ($1, $2)`, [name, emu.baseUrl]);
    await pool.query(`insert into ${S}.homes(tenant, worker, epoch) values ($1, $2, nextval('${S}.home_epoch'))`, [name, on]);
  }

  beforeAll(async () => {
    scratch = tempDir('wbsync-fleet-move-');
    [pgs, emu] = await Promise.all([startPostgres({ maxConnections: 40 }), startEmulator({ dialect: 'spec', seed: 'demo' })]);
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch.dir, 's3'), configureBuckets: [{ name: 'fleet', configs: [] }] });
    const { port } = await s3.run();
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const identity = await age.generateIdentity();
    const idFile = join(scratch.dir, 'fleet-identity.txt');
    fs.writeFileSync(idFile, `${identity}\n`, { mode: 0o600 });
    config = ConfigSchema.parse({
      fleet: { postgresUrlFile: pgs.urlFile, copyRecipient: await age.identityToRecipient(identity), copyIdentityFile: idFile, workerTtlSeconds: 30, copies: { bucket: 'fleet', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true } },
    });
    db = openFleetDb(config);
    pool = db.pool;
    await ensureFleetSchema(pool);
  });
  afterAll(async () => {
    for (const s of open.values()) s.close();
    await db?.close();
    await pgs?.destroy();
    await s3?.close();
    await emu?.stop();
    scratch?.cleanup();
    for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('drain: the old home copies between passes and hands over with a new epoch; the new home places it with every snapshot', async () => {
    await worker('w-1');
    await worker('w-2');
    await tenant('acme', 'w-1');
    await pass('w-1', 'acme', true);
    await pass('w-1', 'acme');
    const before = await home('acme');

    const drained = await requestDrain(pool, 'w-1', 30);
    expect(drained).toMatchObject({ alive: true, requested: [{ tenant: 'acme', from: 'w-1', state: 'requested' }] });
    // a drained worker asks for nothing and is offered nothing
    expect((await pool.query(`select draining from ${S}.workers where id = 'w-1'`)).rows[0]).toEqual({ draining: true });

    const m1 = mover('w-1');
    await m1.tick();
    expect(stopped).toContain('w-1/acme');
    const after = await home('acme');
    expect(after.worker).toBe('w-2');
    expect(after.epoch).toBeGreaterThan(before.epoch);
    const [move] = await movesOf(pool, ['acme']);
    expect(move).toMatchObject({ state: 'copied', from: 'w-1', to: 'w-2', copyKey: expect.stringMatching(/^wbsync-fleet\/fleet\/acme\/.+\.json$/) });
    const [copy] = await listFleetCopies(fleetCopySettings(config).objects, 'acme', 'wbsync-fleet/');
    expect(copy).toMatchObject({ worker: 'w-1', epoch: before.epoch, manifestKey: move!.copyKey });

    // the old home, fenced: its epoch is not the home any more; a second tick does nothing
    await m1.tick();
    expect((await movesOf(pool, ['acme'])).length).toBe(1);

    const m2 = mover('w-2');
    const arrival = await m2.arrive('acme');
    expect(arrival).toMatchObject({ full: false, placed: { manifestKey: move!.copyKey } });
    expect((await movesOf(pool, ['acme']))[0]).toMatchObject({ state: 'done' });
    expect(await exportsOf(dbPath('w-2', 'acme'), scratch.dir)).toEqual(await exportsOf(dbPath('w-1', 'acme'), scratch.dir));
    // the tenant goes on at its new home
    await pass('w-2', 'acme');
    const s = openStore(dbPath('w-2', 'acme'), { readonly: true });
    try {
      expect(s.verify().ok).toBe(true);
      expect(s.listSnapshots().filter((x) => x.status === 'complete')).toHaveLength(3);
    } finally {
      s.close();
    }
    // arriving again (a restart) places nothing more
    expect((await m2.arrive('acme')).placed).toBeNull();
    m1.close();
    m2.close();
  });

  it('adopt: refused while the home lives or with no copy; with the home gone, the latest copy elsewhere, the gap said, a full pass first', async () => {
    await worker('w-3');
    const copies = fleetCopySettings(config);
    try {
      await expect(adoptTenant(pool, copies, 'acme', 'w-3', 30)).rejects.toMatchObject({ code: 'restore_refused', message: expect.stringMatching(/home w-2 is alive/) });
      // w-2 made a pass after the copy, and recorded it; then it vanished
      await pool.query(`insert into ${S}.runs(tenant, worker, epoch, kind, started_at, finished_at, ok) values ('acme', 'w-2', $1, 'incremental', now(), now(), true)`, [(await home('acme')).epoch]);
      await worker('w-2', 10, 3600);
      const before = await home('acme');
      const r = await adoptTenant(pool, copies, 'acme', 'w-3', 30);
      expect(r).toMatchObject({ tenant: 'acme', from: 'w-2', to: 'w-3', lostRuns: 1, copy: { worker: 'w-1' } });
      expect(r.epoch).toBeGreaterThan(before.epoch);
      expect(await home('acme')).toEqual({ worker: 'w-3', epoch: r.epoch });

      const arrival = await mover('w-3').arrive('acme');
      expect(arrival).toMatchObject({ full: true, reason: expect.stringMatching(/full pass covers the gap/) });
      // its next pass, asked for as an ordinary one, is a full pass (no cursor survives the adoption)
      await pass('w-3', 'acme');
      const s = openStore(dbPath('w-3', 'acme'), { readonly: true });
      try {
        expect(s.listSnapshots().at(-1)).toMatchObject({ kind: 'full', status: 'complete' });
        expect(s.verify().ok).toBe(true);
      } finally {
        s.close();
      }

      // no copy at all: refused, nothing changes
      await tenant('solo', 'w-2');
      const solo = await home('solo');
      await expect(adoptTenant(pool, copies, 'solo', 'w-3', 30)).rejects.toMatchObject({ code: 'restore_refused', message: expect.stringMatching(/no fleet copy of tenant solo/) });
      expect(await home('solo')).toEqual(solo);
      await expect(adoptTenant(pool, copies, 'nobody', 'w-3', 30)).rejects.toMatchObject({ code: 'usage' });
    } finally {
      copies.close();
    }
  });

  it('rebalance: a worker joining with room asks the busiest live worker for tenants, down to the fair share', async () => {
    await pool.query(`delete from ${S}.tenants`);
    await pool.query(`delete from ${S}.workers`);
    await worker('a');
    for (const t of ['t-1', 't-2', 't-3', 't-4']) await tenant(t, 'a');
    await worker('b');
    const mb = mover('b');
    await mb.rebalance();
    const asked = (await movesOf(pool)).filter((m) => m.state === 'requested');
    expect(asked.map((m) => [m.from, m.to])).toEqual([['a', 'b'], ['a', 'b']]);
    // asked again: nothing more while those are open (2 of 4 is the fair share)
    await mb.rebalance();
    expect((await movesOf(pool)).filter((m) => m.state === 'requested')).toHaveLength(2);
    mb.close();
  });
});
