// The periodic fleet copy of a tenant that is never idle, without Postgres: the worker's Mover
// (src/fleet/mover.ts) against a real S3 server (s3rver) and real age, with a host whose tenants
// run their passes back to back — a pass ends and the next begins at once unless the tenant's
// next job is held, as TenantRuntime.pump() does — and a real TenantRuntime (its database, key and
// schedule; the job queue recorded) for the hold's side: nothing queued or started while held, a
// job queued before the hold put back, queued again once let go.

import fs from 'node:fs';
import { join } from 'node:path';
import * as age from 'age-encryption';
import pg from 'pg';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/config/logger.js';
import { listFleetCopies } from '../../src/fleet/copy.js';
import { Mover, type CopyCandidate, type MoveHost } from '../../src/fleet/mover.js';
import type { SharedBudget } from '../../src/fleet/budget.js';
import { tenantDbPath } from '../../src/fleet/tenant-config.js';
import { TenantRuntime, type JobData } from '../../src/fleet/tenant-runtime.js';
import { createS3Store, type ObjectStore } from '../../src/offsite/object-store.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/harness.js';
import { useS3rverCredentials } from '../helpers/s3-credentials.js';

/** A tenant whose passes run back to back: a pass ends, the next begins at once unless held. */
class BackToBack {
  running = true;
  held = false;
  passes = 0;
  stopped = false;
  constructor(readonly tenant: string) {}
  endPass(): void {
    if (!this.running) return;
    this.passes++;
    this.running = !this.held && !this.stopped;
  }
  hold(held: boolean): void {
    this.held = held;
    if (!held && !this.stopped) this.running = true; // the next job, queued at once
  }
}

function logLines(): { logger: ReturnType<typeof createLogger>; lines: Array<{ msg: string; tenant?: string }> } {
  const lines: Array<{ msg: string; tenant?: string }> = [];
  const logger = createLogger({ level: 'info', write: (s) => lines.push(JSON.parse(s) as { msg: string; tenant?: string }) });
  return { logger, lines };
}

describe('the periodic fleet copy of a tenant that is never idle (s3rver, age; no Postgres)', { timeout: 60_000 }, () => {
  const tmp = tempDir('wbsync-fleet-copy-hold-');
  let s3: InstanceType<typeof S3rver>;
  let objects: ObjectStore;
  let port: number;
  let recipient: string;
  let restoreEnv: (() => void) | undefined;
  const unused = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none' }); // the periodic copy never asks Postgres

  const workerConfig = (everyMinutes: number): Config =>
    ConfigSchema.parse({
      fleet: { keyDir: join(tmp.dir, 'keys'), copyRecipient: recipient, copies: { bucket: 'fleet', prefix: 'root/', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, everyMinutes, keep: 3 } },
    });

  function hostOf(tenants: BackToBack[], config: Config, logger: MoveHost['logger'], dataDir = join(tmp.dir, 'data')): MoveHost & { holdCalls: number } {
    const host = {
      holdCalls: 0,
      workerId: 'w-1',
      pool: unused,
      logger,
      workerConfig: config,
      dbPathOf: (t: string) => tenantDbPath(dataDir, t),
      stopTenant: async () => undefined,
      startedTenants: (): CopyCandidate[] => tenants.filter((t) => !t.stopped).map((t) => ({ tenant: t.tenant, epoch: 1, running: t.running, held: t.held })),
      holdJobs: (name: string, held: boolean) => {
        host.holdCalls++;
        const t = tenants.find((x) => x.tenant === name && !x.stopped);
        if (!t) return null;
        t.hold(held);
        return { running: t.running };
      },
    };
    return host;
  }

  function makeDb(dataDir: string, tenant: string): void {
    const p = tenantDbPath(dataDir, tenant);
    fs.mkdirSync(join(p, '..'), { recursive: true });
    openStore(p).close();
  }

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(tmp.dir, 's3'), configureBuckets: [{ name: 'fleet', configs: [] }] });
    ({ port } = await s3.run());
    restoreEnv = useS3rverCredentials();
    objects = createS3Store({ bucket: 'fleet', prefix: 'root/', endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true });
    recipient = await age.identityToRecipient(await age.generateIdentity());
    fs.mkdirSync(join(tmp.dir, 'keys'), { recursive: true, mode: 0o700 });
    for (const t of ['busy', 'one', 'two', 'broken', 'still']) makeDb(join(tmp.dir, 'data'), t);
  });
  afterAll(async () => {
    objects?.close();
    await unused.end();
    await s3?.close();
    tmp.cleanup();
    restoreEnv?.();
  });

  it('a tenant running a pass at every round gets its copy: its next job held, the copy at the first idle round, the hold let go and its passes go on', async () => {
    const busy = new BackToBack('busy');
    const { logger } = logLines();
    const mover = new Mover(hostOf([busy], workerConfig(0.001), logger));
    try {
      let rounds = 0;
      // each round: the worker's tick, then the pass in flight ends (and the next starts, unless held)
      while ((await listFleetCopies(objects, 'busy', 'root/')).length === 0 && rounds < 5) {
        await mover.periodicCopy();
        busy.endPass();
        rounds++;
      }
      const copies = await listFleetCopies(objects, 'busy', 'root/');
      expect(copies.length, `no fleet copy of a tenant busy at every round after ${rounds} rounds`).toBe(1);
      expect(rounds).toBeLessThanOrEqual(2);
      expect(copies[0]).toMatchObject({ tenant: 'busy', worker: 'w-1', epoch: 1 });
      // let go once written: its passes go on
      expect(busy.held).toBe(false);
      expect(busy.running).toBe(true);
      const before = busy.passes;
      busy.endPass();
      busy.endPass();
      expect(busy.passes).toBe(before + 2); // not held: each ended pass is followed by the next
      expect(busy.running).toBe(true);
      // due again later: held again, a second copy
      await new Promise((r) => setTimeout(r, 80));
      for (let i = 0; i < 3 && (await listFleetCopies(objects, 'busy', 'root/')).length < 2; i++) {
        await mover.periodicCopy();
        busy.endPass();
      }
      expect((await listFleetCopies(objects, 'busy', 'root/')).length).toBe(2);
      expect(busy.held).toBe(false);
    } finally {
      mover.close();
    }
  });

  it('two tenants held at once: one copy per round, the held ones first; a tenant stopped while held is passed over', async () => {
    const one = new BackToBack('one');
    const two = new BackToBack('two');
    const still = new BackToBack('still');
    const { logger } = logLines();
    const mover = new Mover(hostOf([still, one, two], workerConfig(0.001), logger));
    try {
      await mover.periodicCopy(); // all three busy and due: all held
      expect([still.held, one.held, two.held]).toEqual([true, true, true]);
      still.stopped = true; // moved away while held
      one.endPass();
      two.endPass();
      expect([one.running, two.running]).toEqual([false, false]);
      await mover.periodicCopy();
      const written = async (t: string): Promise<number> => (await listFleetCopies(objects, t, 'root/')).length;
      expect((await written('one')) + (await written('two'))).toBe(1); // one per round
      await mover.periodicCopy();
      expect([await written('one'), await written('two'), await written('still')]).toEqual([1, 1, 0]);
      expect([one.held, two.held, one.running, two.running]).toEqual([false, false, true, true]);
    } finally {
      mover.close();
    }
  });

  it('a failing copy lets the hold go: the passes go on, and the tenant is not held again for everyMinutes', async () => {
    const broken = new BackToBack('broken');
    const { logger, lines } = logLines();
    // its database is not where the worker looks: every copy of it fails
    const mover = new Mover(hostOf([broken], workerConfig(0.05), logger, join(tmp.dir, 'nowhere')));
    try {
      await mover.periodicCopy();
      expect(broken.held).toBe(true);
      broken.endPass();
      await mover.periodicCopy();
      expect(lines.some((l) => l.tenant === 'broken' && l.msg === 'fleet copy not written (tried again in a minute)')).toBe(true);
      expect(broken.held).toBe(false);
      expect(broken.running).toBe(true);
      // not held again meanwhile: its passes run back to back as before
      for (let i = 0; i < 3; i++) {
        await mover.periodicCopy();
        expect(broken.held).toBe(false);
        broken.endPass();
        expect(broken.running).toBe(true);
      }
    } finally {
      mover.close();
    }
  });

  it('a job that begins between the round seeing the tenant idle and holding it: no copy mid-pass, the tenant held, its copy at the next idle round', async () => {
    const late = new BackToBack('late');
    makeDb(join(tmp.dir, 'data'), 'late');
    late.running = false; // idle when the round looks
    const { logger, lines } = logLines();
    const host = hostOf([late], workerConfig(0.001), logger);
    const holdJobs = host.holdJobs!;
    let first = true;
    host.holdJobs = (name, held) => {
      if (first && held) {
        first = false;
        late.running = true; // its job starts just as the round holds it
      }
      return holdJobs(name, held);
    };
    const mover = new Mover(host);
    await mover.periodicCopy();
    expect(await listFleetCopies(objects, 'late', 'root/')).toHaveLength(0);
    expect(late.held).toBe(true);
    expect(lines.filter((l) => l.msg.startsWith('fleet copy not written'))).toHaveLength(0);
    late.endPass(); // held: no next job
    expect(late.running).toBe(false);
    await mover.periodicCopy();
    expect(await listFleetCopies(objects, 'late', 'root/')).toHaveLength(1);
    expect(late.held).toBe(false);
    expect(late.running).toBe(true); // let go: its passes go on
  });

  it('everyMinutes 0: no copy, and no tenant is ever held', async () => {
    const busy = new BackToBack('busy');
    const { logger } = logLines();
    const host = hostOf([busy], workerConfig(0), logger);
    const mover = new Mover(host);
    try {
      for (let i = 0; i < 3; i++) {
        await mover.periodicCopy();
        busy.endPass();
      }
      expect(host.holdCalls).toBe(0);
      expect(busy.running).toBe(true);
    } finally {
      mover.close();
    }
  });

  it('TenantRuntime: held, no job is queued or started; one queued before the hold is put back and queued again once let go; said once', async () => {
    const keyDir = join(tmp.dir, 'keys');
    fs.writeFileSync(join(keyDir, 'rt'), 'not-a-real-key\n', { mode: 0o600 });
    const sent: JobData[] = [];
    const { logger, lines } = logLines();
    const budget = { gate: () => ({ acquire: async () => () => undefined }) } as unknown as SharedBudget;
    const stop = new AbortController();
    const rt = new TenantRuntime(
      { tenant: 'rt', epoch: 4, baseUrl: 'http://127.0.0.1:1', config: { schedule: { incremental: '0 0 1 1 *', full: '0 0 1 1 *' } }, paused: false },
      { workerId: 'w-1', dataDir: join(tmp.dir, 'rt-data'), workerConfig: workerConfig(1), logger, pool: unused, pgUrl: 'postgres://127.0.0.1:1/none', redact: (t) => t, budget, signal: stop.signal, send: async (d) => (sent.push(d), `job-${sent.length}`) },
    );
    rt.start();
    try {
      await new Promise((r) => setImmediate(r));
      expect(sent.map((d) => d.kind)).toEqual(['full']); // first start: a full pass queued
      // held while that job waits in the queue: when handed back it is not run but put back
      rt.holdJobs(true);
      expect(rt.held).toBe(true);
      const out = await rt.runJob(sent[0]!, 'job-1');
      expect(out).toEqual({ skipped: "held: the tenant's fleet copy is written first" });
      expect(rt.running).toBeNull();
      rt.want('incremental', 'scheduled');
      await rt.pump();
      expect(sent.length).toBe(1); // nothing queued while held
      const said = lines.filter((l) => l.msg === "the next job waits for the tenant's fleet copy: due, and written between passes");
      expect(said.length).toBe(1);
      rt.holdJobs(false);
      await new Promise((r) => setImmediate(r));
      expect(sent.map((d) => d.kind)).toEqual(['full', 'full']); // the full pass again (it covers the incremental)
      expect(sent[1]).toMatchObject({ tenant: 'rt', epoch: 4 });
    } finally {
      stop.abort();
      await rt.stop();
    }
  });
});
