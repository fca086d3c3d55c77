// A fleet worker's heartbeat while it copies (real processes: `wbsync fleet worker`, a real Postgres,
// a real S3 server (s3rver) and real age). The worker's periodic fleet copy is made slow by a TCP
// proxy in front of s3rver that holds the copy's upload (the PUT of the encrypted database) for
// several seconds, longer than fleet.workerTtlSeconds. Throughout, the worker's heartbeat stays
// younger than the TTL and `fleet status` shows it live (a worker that stops beating while it
// copies looks gone: drain refuses to move its tenants, adopt is allowed while it is alive); the
// copy then completes. Then a drain to a second worker, both ends slow (the old home's upload, the
// new home's download): both keep beating, and the tenant moves.

import fs from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, tempDir } from '../helpers/harness.js';
import { spawnWorker, startService, waitFor, writeFleetFiles, writeKey, type FleetFiles, type TenantService, type WorkerProcess } from '../helpers/fleet-kit.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';

const S3_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
const TTL_S = 4;
const HOLD_MS = 9_000;

interface Held {
  method: string;
  at: number;
  released: number | null;
}

/** A TCP proxy to 127.0.0.1:`target` that holds each upload and download of a fleet copy's database
 * (a request starting `PUT ….db.age` or `GET ….db.age`) for `holdMs` before passing it (and what
 * follows it) on. */
async function slowUploads(target: number, holdMs: number): Promise<{ port: number; held: Held[]; close(): Promise<void> }> {
  const held: Held[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    upstream.pipe(client);
    let chain = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const hold = /^(PUT|GET) \S*\.db\.age/m.exec(chunk.toString('latin1'));
      chain = chain.then(async () => {
        if (hold) {
          const h: Held = { method: hold[1]!, at: Date.now(), released: null };
          held.push(h);
          await new Promise((r) => setTimeout(r, holdMs));
          h.released = Date.now();
        }
        if (!upstream.destroyed) upstream.write(chunk);
      });
    });
    client.on('end', () => void chain.then(() => upstream.end()));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    held,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('fleet: a worker copying a tenant keeps beating (real processes)', () => {
  let pgs: RunningPostgres;
  let s3: InstanceType<typeof S3rver>;
  let proxy: Awaited<ReturnType<typeof slowUploads>>;
  let svc: TenantService;
  const workers: WorkerProcess[] = [];
  const tmp = tempDir('wbsync-fleet-heartbeat-');
  let files: FleetFiles;
  const cli = (...argv: string[]) => runCliCaptured(['--config', files.config, ...argv], S3_ENV);

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(tmp.dir, 's3'), configureBuckets: [{ name: 'fleet', configs: [] }] });
    const [{ port }, pg] = await Promise.all([s3.run(), startPostgres()]);
    pgs = pg;
    proxy = await slowUploads(port, HOLD_MS);
    const identity = await age.generateIdentity();
    const idFile = join(tmp.dir, 'fleet-identity.txt');
    fs.writeFileSync(idFile, `${identity}\n`, { mode: 0o600 });
    files = writeFleetFiles(tmp.dir, pgs, {
      fleet: { heartbeatSeconds: 1, workerTtlSeconds: TTL_S, copyRecipient: await age.identityToRecipient(identity), copyIdentityFile: idFile, copies: { bucket: 'fleet', endpoint: `http://127.0.0.1:${proxy.port}`, forcePathStyle: true, everyMinutes: 0.02 } },
    });
    svc = await startService('spec');
  }, 60_000);

  afterAll(async () => {
    for (const w of workers) await w.kill9();
    await svc?.emu.stop();
    await proxy?.close();
    await pgs?.destroy();
    await s3?.close();
    tmp.cleanup();
  });

  it('its heartbeat stays younger than fleet.workerTtlSeconds and fleet status shows it live while its copy uploads for longer than that', { timeout: 90_000 }, async () => {
    writeKey(files, 'acme', svc.emu.apiKey);
    const settings = join(tmp.dir, 'tenant.json');
    fs.writeFileSync(settings, JSON.stringify({ schedule: { incremental: '0 0 1 1 *', full: '0 0 1 1 *' } }));
    const added = await cli('fleet', 'tenant', 'add', 'acme', '--base-url', svc.emu.baseUrl, '--tenant-config', settings);
    expect(added.code, added.err).toBe(0);
    const w = spawnWorker(files, 'w-1', join(tmp.dir, 'w-1'), 4, S3_ENV);
    workers.push(w);

    // the first pass, then (idle, its copy older than fleet.copies.everyMinutes) a fleet copy, held
    const hold = await waitFor('the fleet copy of acme uploading (held by the proxy)', 40_000, () => proxy.held[0], 100);
    const samples: Array<{ at: number; age: number; live: boolean | undefined; shown: string }> = [];
    while (hold.released === null) {
      const [row] = await pgs.query<{ age: number }>(`select extract(epoch from now() - heartbeat_at)::float8 as age from wbsync_fleet.workers where id = 'w-1'`);
      const status = await cli('fleet', 'status', '--json');
      const doc = JSON.parse(status.out) as { workers: Array<{ id: string; live: boolean; heartbeatAgeSeconds: number }> };
      const me = doc.workers.find((x) => x.id === 'w-1');
      samples.push({ at: Date.now() - hold.at, age: row!.age, live: me?.live, shown: JSON.stringify(me) });
      await new Promise((r) => setTimeout(r, 250));
    }
    // the copy was really slow: held longer than the TTL, sampled all along
    expect(hold.released - hold.at).toBeGreaterThanOrEqual(HOLD_MS);
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.at(-1)!.at).toBeGreaterThan(TTL_S * 1000 + 2_000);
    const oldest = Math.max(...samples.map((x) => x.age));
    expect(oldest, `heartbeat ages while copying: ${samples.map((x) => `${(x.at / 1000).toFixed(1)}s→${x.age.toFixed(1)}`).join(' ')}`).toBeLessThan(TTL_S);
    for (const x of samples) expect(x.live, `fleet status ${(x.at / 1000).toFixed(1)} s into the upload: ${x.shown}`).toBe(true);

    // and the copy completes once the upload goes through
    await waitFor('the fleet copy written', 30_000, () => /fleet copy written/.test(w.output()));
    expect(w.proc.exitCode).toBeNull();
    expect(w.output()).not.toMatch(/heartbeat failed/);
  });

  it('a drain whose upload and download are both slow: both workers keep beating, and the tenant moves', { timeout: 120_000 }, async () => {
    const w2 = spawnWorker(files, 'w-2', join(tmp.dir, 'w-2'), 4, S3_ENV);
    workers.push(w2);
    await waitFor('w-2 registered', 30_000, async () => (await pgs.query(`select 1 from wbsync_fleet.workers where id = 'w-2'`)).length > 0);
    const since = Date.now();
    const drained = await cli('fleet', 'drain', 'w-1');
    expect(drained.code, drained.err).toBe(0);
    expect(drained.out).toContain('worker w-1 draining: 1 tenant(s) to move (acme)');
    const samples: Array<{ at: number; ages: Record<string, number>; live: Record<string, boolean> }> = [];
    const state = async (): Promise<string | undefined> => (await pgs.query<{ state: string }>(`select state from wbsync_fleet.moves where tenant = 'acme' order by id desc limit 1`))[0]?.state;
    const until = Date.now() + 90_000;
    while ((await state()) !== 'done' && Date.now() < until) {
      const rows = await pgs.query<{ id: string; age: number }>(`select id, extract(epoch from now() - heartbeat_at)::float8 as age from wbsync_fleet.workers order by id`);
      const doc = JSON.parse((await cli('fleet', 'status', '--json')).out) as { workers: Array<{ id: string; live: boolean }> };
      samples.push({ at: Date.now(), ages: Object.fromEntries(rows.map((r) => [r.id, r.age])), live: Object.fromEntries(doc.workers.map((x) => [x.id, x.live])) });
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await state()).toBe('done');
    expect((await pgs.query<{ worker: string }>(`select worker from wbsync_fleet.homes where tenant = 'acme'`))[0]?.worker).toBe('w-2');
    // the move really waited on both: an upload and a download of the copy held past the TTL
    const during = proxy.held.filter((h) => h.at >= since && h.released !== null);
    expect(during.map((h) => h.method)).toContain('PUT');
    expect(during.map((h) => h.method)).toContain('GET');
    expect(samples.at(-1)!.at - samples[0]!.at).toBeGreaterThan(2 * HOLD_MS);
    for (const id of ['w-1', 'w-2']) {
      const ages = samples.map((x) => x.ages[id]!);
      expect(Math.max(...ages), `${id}'s heartbeat ages during the move: ${ages.map((a) => a.toFixed(1)).join(' ')}`).toBeLessThan(TTL_S);
      expect(samples.filter((x) => x.live[id] !== true).length, `${id} shown gone in fleet status during the move`).toBe(0);
    }
    await waitFor('acme started on w-2', 30_000, () => /tenant moved in with its history/.test(w2.output()));
    for (const w of workers) expect(await w.stop()).toBe(0);
  });
});
