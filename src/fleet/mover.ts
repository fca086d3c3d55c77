// The worker's side of moves (see move.ts for the states). Each tick of the worker loop:
//  - departures: for each move requested FROM this worker, stop the tenant between passes, write a
//    fleet copy, then in one transaction — still home at that epoch? — re-home it to the target
//    with a new epoch and mark the move copied. A failure leaves the move requested (the reason
//    on it) and the tenant homed here: the loop starts it again, the next tick tries again.
//  - rebalance: a worker below the fair share (homed tenants / live workers) asks for tenants from
//    the busiest live worker, a couple at a time.
// And before a tenant newly homed here starts: arrive() places the copy its move left.

import type pg from 'pg';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import { WbsyncError } from '../domain/errors.js';
import { openStore } from '../store/index.js';
import { listFleetCopies, placeFleetCopy, writeFleetCopy } from './copy.js';
import { fleetCopySettings, type FleetCopySettings } from './copy-settings.js';
import type { ListedCopy } from './copy.js';
import { copyOrder, copyStep } from './copy-hold.js';
import { rehome } from './homes.js';
import { workersWithRoom } from './move.js';
import { inTransaction } from './pg.js';
import { FLEET_SCHEMA as S } from './schema.js';

/** Moves a joining worker asks for at once (each stops a tenant between passes on its old home). */
const REBALANCE_IN_FLIGHT = 2;

export interface MoveHost {
  workerId: string;
  pool: pg.Pool;
  logger: Logger;
  workerConfig: Config;
  /** `<data>/tenants/<name>/wbsync.db` */
  dbPathOf(tenant: string): string;
  /** Stops the tenant here between passes: waits for its running job to end, starts no other,
   * closes its database and releases its locks. */
  stopTenant(tenant: string): Promise<void>;
  /** Tenants started here (for the periodic fleet copy): whether a job of theirs runs now, and
   * whether their next job is held for their copy. */
  startedTenants?(): CopyCandidate[];
  /** Holds (true) or lets go (false) the tenant's next job for its fleet copy: while held, no job of
   * it is queued or started here (the one running ends as it would). Answers whether a job of it
   * runs now; null when the tenant is not started here. */
  holdJobs?(tenant: string, held: boolean): { running: boolean } | null;
}

export interface CopyCandidate {
  tenant: string;
  epoch: number;
  running: boolean;
  held: boolean;
}

export interface Arrival {
  /** The first pass must be full (adopted: it covers the gap since the copy). */
  full: boolean;
  reason: string;
  placed: ListedCopy | null;
}


function forgetCursors(dbPath: string): void {
  const store = openStore(dbPath);
  try {
    store.db.prepare('DELETE FROM cursors').run();
  } finally {
    store.close();
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class Mover {
  private copies: FleetCopySettings | null = null;

  constructor(private readonly host: MoveHost) {}

  private settings(): FleetCopySettings {
    if (!this.copies) {
      this.copies = fleetCopySettings(this.host.workerConfig);
      for (const w of this.copies.warnings) this.host.logger.warn({}, w);
    }
    return this.copies;
  }

  /** Whether moves can happen at all here (fleet.copies.bucket and fleet.copyRecipient set). */
  get enabled(): boolean {
    const f = this.host.workerConfig.fleet;
    return Boolean(f.copies.bucket && f.copyRecipient);
  }

  async tick(): Promise<void> {
    await this.departures();
    if (this.enabled) {
      await this.rebalance();
      await this.periodicCopy();
    }
  }

  /** When each tenant's newest fleet copy was taken (ms), as far as this worker knows. */
  private readonly lastCopy = new Map<string, number>();
  /** Tenants whose copy failed: not held for it again before then (ms); tried when idle meanwhile. */
  private readonly holdAgainAt = new Map<string, number>();

  /** One tenant per tick whose newest copy is older than fleet.copies.everyMinutes gets a new one
   * (a consistent read between its passes), then copies beyond fleet.copies.keep are deleted. A
   * tenant due and running a job now (passes back to back: it may never be idle at a tick) has its
   * next job held until its copy is written, at the first tick it is idle; the hold is let go
   * whether the copy was written or not. Held tenants go first. */
  async periodicCopy(): Promise<void> {
    const every = this.host.workerConfig.fleet.copies.everyMinutes * 60_000;
    const host = this.host;
    if (!every || !host.startedTenants || !host.holdJobs) return;
    const copies = this.settings();
    for (const { tenant, epoch } of copyOrder(host.startedTenants())) {
      if (!this.lastCopy.has(tenant)) {
        try {
          const newest = (await listFleetCopies(copies.objects, tenant, copies.root)).at(-1);
          this.lastCopy.set(tenant, newest ? Date.parse(newest.takenAt) : 0);
        } catch (e) {
          this.host.logger.warn({ tenant, err: message(e) }, 'fleet copies not listed (tried again next tick)');
          continue;
        }
      }
      // whether a job runs is read again after the list's await: a job may have begun meanwhile
      const running = host.startedTenants().find((t) => t.tenant === tenant)?.running;
      if (running === undefined) continue; // stopped meanwhile
      const step = copyStep({ running, lastCopyMs: this.lastCopy.get(tenant)!, holdAgainAtMs: this.holdAgainAt.get(tenant) }, Date.now(), every);
      if (step === 'not-due') continue;
      if (step === 'hold') {
        host.holdJobs(tenant, true); // its next job waits; copied at the first round it is idle
        continue;
      }
      if (step === 'copy-held') {
        // held while it copies too: no job of it starts meanwhile (a copy mid-pass is refused)
        const now = host.holdJobs(tenant, true);
        if (!now) continue; // stopped meanwhile
        if (now.running) continue; // a job began meanwhile: it stays held, copied at the first idle round
      }
      try {
        const m = await writeFleetCopy({ tenant, dbPath: this.host.dbPathOf(tenant), objects: copies.objects, root: copies.root, recipient: copies.recipient, worker: this.host.workerId, epoch, now: new Date() });
        this.lastCopy.set(tenant, Date.parse(m.takenAt));
        this.holdAgainAt.delete(tenant);
        const all = await listFleetCopies(copies.objects, tenant, copies.root);
        for (const old of all.slice(0, Math.max(0, all.length - this.host.workerConfig.fleet.copies.keep))) {
          await copies.objects.delete(old.manifestKey); // the manifest first: a copy without one is never listed
          await copies.objects.delete(old.object);
        }
        this.host.logger.info({ tenant, snapshot: m.snapshot, bytes: m.bytes }, 'fleet copy written');
      } catch (e) {
        this.lastCopy.set(tenant, Date.now() - every + Math.min(every, 60_000)); // again in a minute; the others meanwhile
        // a failing copy never stops its passes: held for it again (also while it copies) only
        // after another everyMinutes
        this.holdAgainAt.set(tenant, Date.now() + every);
        this.host.logger.warn({ tenant, err: message(e) }, 'fleet copy not written (tried again in a minute)');
      } finally {
        host.holdJobs(tenant, false);
      }
      return; // one per tick: the heartbeat must not wait on many
    }
  }

  async departures(): Promise<void> {
    const { pool, workerId } = this.host;
    const r = await pool.query<{ id: string; tenant: string; to_worker: string | null }>(
      `select id, tenant, to_worker from ${S}.moves where from_worker = $1 and state = 'requested' order by id`,
      [workerId],
    );
    for (const m of r.rows) {
      try {
        await this.depart(Number(m.id), m.tenant, m.to_worker);
      } catch (e) {
        this.host.logger.warn({ tenant: m.tenant, err: message(e) }, 'move not done yet: the tenant stays here, tried again next tick');
        await pool.query(`update ${S}.moves set error = $2 where id = $1 and state = 'requested'`, [m.id, message(e).slice(0, 1000)]);
      }
    }
  }

  private async depart(id: number, tenant: string, wanted: string | null): Promise<void> {
    const { pool, workerId, logger } = this.host;
    const ttl = this.host.workerConfig.fleet.workerTtlSeconds;
    const home = await pool.query<{ epoch: string }>(`select epoch from ${S}.homes where tenant = $1 and worker = $2`, [tenant, workerId]);
    if (!home.rows[0]) {
      await pool.query(`update ${S}.moves set state = 'failed', error = $2, finished_at = now() where id = $1 and state = 'requested'`, [id, `${tenant} is not homed on ${workerId} any more`]);
      return;
    }
    const epoch = Number(home.rows[0].epoch);
    let to = wanted;
    if (!to) {
      const room = await workersWithRoom(pool, ttl, workerId);
      if (!room.length) throw new WbsyncError('unreachable', 'no live worker with room to take the tenant', { hint: 'start a worker, or raise a worker\'s --capacity' });
      to = room[0]!.id;
    }
    const copies = this.settings();
    await this.host.stopTenant(tenant);
    const copy = await writeFleetCopy({ tenant, dbPath: this.host.dbPathOf(tenant), objects: copies.objects, root: copies.root, recipient: copies.recipient, worker: workerId, epoch, now: new Date() });
    const moved = await inTransaction(pool, async (c) => {
      await c.query(`select pg_advisory_xact_lock(hashtext('wbsync:move:' || $1))`, [tenant]);
      const still = await c.query(`select 1 from ${S}.moves where id = $1 and state = 'requested' for update`, [id]);
      if (!still.rowCount) return null; // superseded (fleet adopt) meanwhile
      const newEpoch = await rehome(c, tenant, to, workerId);
      if (newEpoch === null) return null;
      const fenced = await c.query(`select 1 from ${S}.homes where tenant = $1 and epoch = $2`, [tenant, newEpoch]);
      if (!fenced.rowCount) return null;
      await c.query(`update ${S}.moves set state = 'copied', to_worker = $2, copy_key = $3, snapshot_id = $4, error = null where id = $1`, [id, to, copy.manifestKey, copy.snapshot]);
      return newEpoch;
    });
    if (moved === null) {
      await pool.query(`update ${S}.moves set state = 'failed', error = coalesce(error, $2), finished_at = now() where id = $1 and state = 'requested'`, [id, `${tenant} changed home during the move`]);
      logger.warn({ tenant, move: id }, 'move abandoned: the tenant changed home meanwhile');
      return;
    }
    logger.info({ tenant, to, epoch: moved, copy: copy.manifestKey, snapshot: copy.snapshot, bytes: copy.bytes }, 'tenant moved out: fleet copy written, home handed over');
  }

  /** Places the copy a move left for `tenant` (homed here now), before it starts. */
  async arrive(tenant: string): Promise<Arrival> {
    const { pool, workerId, logger } = this.host;
    const r = await pool.query<{ id: string; from_worker: string | null; copy_key: string | null; state: 'copied' | 'adopted' }>(
      `select id, from_worker, copy_key, state from ${S}.moves where tenant = $1 and to_worker = $2 and state in ('copied', 'adopted') order by id desc limit 1`,
      [tenant, workerId],
    );
    const m = r.rows[0];
    if (!m?.copy_key) return { full: false, reason: '', placed: null };
    const copies = this.settings();
    let placed;
    try {
      placed = await placeFleetCopy({ tenant, objects: copies.objects, root: copies.root, identities: await copies.identities(), dbPath: this.host.dbPathOf(tenant), manifestKey: m.copy_key });
    } catch (e) {
      // a newer database here is kept (and run); anything else is tried again at the next tick
      if (e instanceof WbsyncError && e.code === 'restore_refused') {
        await pool.query(`update ${S}.moves set state = 'failed', error = $2, finished_at = now() where id = $1`, [m.id, message(e).slice(0, 1000)]);
      }
      throw e;
    }
    const adopted = m.state === 'adopted';
    // adopted: the copy may be older than the gone home's last pass; with no cursor, the next pass
    // is a full pass (src/sync/pass.ts), which covers the gap — whenever and wherever it runs
    if (adopted) forgetCursors(this.host.dbPathOf(tenant));
    await pool.query(`update ${S}.moves set state = 'done', finished_at = now(), error = null where id = $1`, [m.id]);
    logger.info({ tenant, from: m.from_worker, copy: m.copy_key, snapshot: placed.manifest.snapshot, setAside: placed.setAside }, adopted ? 'tenant adopted from its fleet copy' : 'tenant moved in with its history');
    return {
      full: adopted,
      reason: adopted ? `adopted from the fleet copy of ${placed.manifest.snapshotAt ?? placed.manifest.takenAt}: a full pass covers the gap` : `moved in from ${m.from_worker ?? 'another worker'}`,
      placed: placed.manifest,
    };
  }

  /** Asks the busiest live workers for tenants while this one is below the fair share. */
  async rebalance(): Promise<void> {
    const { pool, workerId, logger } = this.host;
    const ttl = this.host.workerConfig.fleet.workerTtlSeconds;
    const asked = await inTransaction(pool, async (c) => {
      await c.query(`select pg_advisory_xact_lock(hashtext('wbsync:rebalance'))`);
      const live = await c.query<{ id: string; capacity: number; homes: number; incoming: number; outgoing: number }>(
        `select w.id, w.capacity,
                (select count(*) from ${S}.homes h where h.worker = w.id)::int as homes,
                (select count(*) from ${S}.moves m where m.to_worker = w.id and m.state = 'requested')::int as incoming,
                (select count(*) from ${S}.moves m where m.from_worker = w.id and m.state = 'requested')::int as outgoing
           from ${S}.workers w
          where w.heartbeat_at > now() - make_interval(secs => $1) and not w.draining and w.capacity > 0
          order by w.id`,
        [ttl],
      );
      const me = live.rows.find((w) => w.id === workerId);
      if (!me || live.rows.length < 2) return [];
      const total = live.rows.reduce((n, w) => n + w.homes, 0);
      const fair = Math.floor(total / live.rows.length);
      const load = new Map(live.rows.map((w) => [w.id, w.homes - w.outgoing + w.incoming]));
      const out: Array<{ tenant: string; from: string }> = [];
      let room = Math.min(me.capacity - me.homes - me.incoming, REBALANCE_IN_FLIGHT - me.incoming);
      while (room > 0 && load.get(workerId)! < fair) {
        const donor = [...load.entries()].filter(([id]) => id !== workerId).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
        if (!donor || donor[1] <= load.get(workerId)! + 1) break;
        const pick = await c.query<{ tenant: string }>(
          `select h.tenant from ${S}.homes h where h.worker = $1 and not exists (select 1 from ${S}.moves m where m.tenant = h.tenant and m.state in ('requested', 'copied', 'adopted'))
            order by h.since desc, h.tenant limit 1`,
          [donor[0]],
        );
        if (!pick.rows[0]) {
          load.delete(donor[0]);
          continue;
        }
        await c.query(`insert into ${S}.moves(tenant, from_worker, to_worker, state) values ($1, $2, $3, 'requested')`, [pick.rows[0].tenant, donor[0], workerId]);
        out.push({ tenant: pick.rows[0].tenant, from: donor[0] });
        load.set(donor[0], donor[1] - 1);
        load.set(workerId, load.get(workerId)! + 1);
        room--;
      }
      return out;
    });
    for (const a of asked) logger.info({ tenant: a.tenant, from: a.from }, 'rebalancing: asked for a tenant of a busier worker');
  }

  close(): void {
    this.copies?.close();
  }
}
