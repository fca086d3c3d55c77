// A fleet worker runs a tenant's offsite job: the tenant's own settings enable offsite copies (an
// s3rver bucket, an age recipient no worker holds) and a short full-pass schedule; after a full
// pass the worker pushes, as a job of its own, an encrypted copy whose manifest names the tenant's
// snapshot — and only the identity the operator keeps opens it.

import fs from 'node:fs';
import { join } from 'node:path';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Store, type ObjectStore } from '../../src/offsite/object-store.js';
import { fetchCopy, listCopies } from '../../src/offsite/offsite.js';
import { openStore } from '../../src/store/index.js';
import { runCliCaptured, tempDir } from '../helpers/harness.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { spawnWorker, startService, waitFor, writeFleetFiles, writeKey, type FleetFiles, type TenantService, type WorkerProcess } from '../helpers/fleet-kit.js';

const PREFIX = 'wbsync/acme/';

describe('a fleet worker runs a tenant’s offsite job', () => {
  let pgs: RunningPostgres;
  const tmp = tempDir('wbsync-fleet-offsite-');
  let files: FleetFiles;
  let svc: TenantService;
  let worker: WorkerProcess | undefined;
  let s3: InstanceType<typeof S3rver>;
  let objects: ObjectStore;
  let identity: string;
  let port: number;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    pgs = await startPostgres();
    files = writeFleetFiles(tmp.dir, pgs);
    svc = await startService('spec', { modules: 1, records: 4 });
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(tmp.dir, 's3'), configureBuckets: [{ name: 'backups', configs: [] }] });
    ({ port } = await s3.run());
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    objects = createS3Store({ bucket: 'backups', prefix: PREFIX, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true });
    identity = await age.generateIdentity();
    const recipient = await age.identityToRecipient(identity);
    const settings = join(tmp.dir, 'acme.json');
    fs.writeFileSync(
      settings,
      JSON.stringify({
        schedule: { incremental: '*/2 * * * * *', full: '*/5 * * * * *' },
        offsite: { bucket: 'backups', prefix: PREFIX, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true, recipients: [recipient], afterFullPass: true },
      }),
    );
    writeKey(files, 'acme', svc.emu.apiKey);
    const add = await runCliCaptured(['--config', files.config, 'fleet', 'tenant', 'add', 'acme', '--base-url', svc.emu.baseUrl, '--tenant-config', settings]);
    expect(add.code, add.err).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    objects?.close();
    await s3?.close();
    await svc?.emu.stop();
    await pgs?.destroy();
    tmp.cleanup();
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  it('pushes an encrypted copy naming the tenant’s snapshot after a full pass', async () => {
    const data = join(tmp.dir, 'w1');
    // the worker gets the bucket's credentials the standard way, from its environment
    worker = spawnWorker(files, 'w1', data, 2, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
    const run = await waitFor('an offsite job on the worker', 90_000, async () => {
      if (worker!.proc.exitCode !== null) throw new Error(worker!.output());
      const rows = await pgs.query<{ ok: boolean; error: string | null; snapshot_id: string | null }>(`select ok, error, snapshot_id from wbsync_fleet.runs where tenant = 'acme' and kind = 'offsite' and finished_at is not null order by id limit 1`);
      return rows[0];
    });
    expect(run.error).toBeNull();
    expect(run.ok).toBe(true);

    const copies = await listCopies(objects, PREFIX);
    expect(copies.length).toBeGreaterThanOrEqual(1);
    const first = copies[0]!;
    expect(first.snapshot).toBe(Number(run.snapshot_id));
    expect(first.recipients).toHaveLength(1);
    // the snapshot is one of the tenant's own complete full snapshots, in its database on the worker
    const dbPath = join(data, 'tenants', 'acme', 'wbsync.db');
    const own = openStore(dbPath, { readonly: true });
    try {
      const snap = own.listSnapshots().find((s) => s.id === first.snapshot);
      expect(snap).toMatchObject({ kind: 'full', status: 'complete' });
    } finally {
      own.close();
    }

    // encrypted: age's header, no SQLite inside
    const chunks: Buffer[] = [];
    for await (const c of await objects.get(first.object)) chunks.push(Buffer.from(c as Uint8Array));
    const body = Buffer.concat(chunks);
    expect(body.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    expect(body.includes(Buffer.from('SQLite format 3'))).toBe(false);

    // the operator's identity opens it: the tenant's data as of that snapshot
    const out = join(tmp.dir, 'fetched.db');
    await fetchCopy(objects, PREFIX, { identities: [identity], out, snapshot: first.snapshot });
    const fetched = openStore(out, { readonly: true });
    try {
      expect(fetched.latestCompleteSnapshot()).toBe(first.snapshot);
      expect(first.counts['records']).toBeGreaterThan(0);
    } finally {
      fetched.close();
    }
  }, 150_000);
});
