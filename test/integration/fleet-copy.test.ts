// The fleet copy against a real S3 server (s3rver on 127.0.0.1) and real age: a tenant's whole
// database (every snapshot) goes up encrypted to the fleet recipient and comes back, on another
// path, exporting every snapshot exactly as the original; the Debian `age` decrypts the object to
// the manifest's SHA-256; a newer database is never overwritten, an older one is set aside (its
// -wal folded in, never deleted), a stale -wal never meets the new file; tampering and a wrong
// identity are refused and leave nothing behind; a copy of a database mid-pass is refused.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as age from 'age-encryption';
import Database from 'better-sqlite3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFleetCopies, placeFleetCopy, writeFleetCopy } from '../../src/fleet/copy.js';
import { createS3Store, type ObjectStore } from '../../src/offsite/object-store.js';
import { openStore } from '../../src/store/index.js';
import { runPass } from '../../src/sync/pass.js';
import { api, dumpOf, makeHarness, silentLogger, tempDir, type Harness } from '../helpers/harness.js';
import { exportsOf } from '../helpers/fleet-exports.js';
import { useS3rverCredentials } from '../helpers/s3-credentials.js';

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('fleet copy (s3rver, age)', { timeout: 60_000 }, () => {
  let s3: InstanceType<typeof S3rver>;
  let objects: ObjectStore;
  let h: Harness;
  let scratch: { dir: string; cleanup: () => void };
  let identity: string;
  let recipient: string;
  let restoreEnv: (() => void) | undefined;
  const write = (now = new Date()) => writeFleetCopy({ tenant: 'acme', dbPath: h.dbPath, objects, recipient, worker: 'w-1', epoch: 3, now });

  beforeAll(async () => {
    scratch = tempDir('wbsync-fleet-copy-');
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch.dir, 's3'), configureBuckets: [{ name: 'fleet', configs: [] }] });
    const { port } = await s3.run();
    restoreEnv = useS3rverCredentials();
    objects = createS3Store({ bucket: 'fleet', prefix: '', endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true });
    identity = await age.generateIdentity();
    recipient = await age.identityToRecipient(identity);
    h = await makeHarness('observed');
    await h.sync();
    // some history: a change, then an incremental pass
    const rec = dumpOf(h.emu).records.find((r) => !r.isDeleted && !r.isArchived)!;
    expect((await api(h.emu, 'PUT', `/records/${rec._id as string}`, { name: 'renamed before the move' })).status).toBe(200);
    await h.emu.idle();
    await h.sync();
  });
  afterAll(async () => {
    objects?.close();
    await h?.close();
    await s3?.close();
    scratch?.cleanup();
    restoreEnv?.();
  });

  it('carries the whole history: the placed database exports every snapshot as the original; age decrypts the object', async () => {
    const m = await write();
    const snaps = h.store.listSnapshots();
    expect(m).toMatchObject({ tenant: 'acme', worker: 'w-1', epoch: 3, snapshot: h.store.latestCompleteSnapshot(), lastSnapshotId: snaps.at(-1)!.id, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(m.object).toMatch(/^fleet\/acme\/\d{4}-\d\d-\d\dT[\d-]+Z-\d+-[0-9a-f]{6}\.db\.age$/);
    expect(m.manifestKey).toBe(m.object.replace(/\.db\.age$/, '.json'));
    expect((await listFleetCopies(objects, 'acme')).map((c) => c.manifestKey)).toEqual([m.manifestKey]);

    // the object is age, not SQLite, and holds no secret
    const raw = join(scratch.dir, 'raw.age');
    await pipeline(await objects.get(m.object), fs.createWriteStream(raw));
    const bytes = fs.readFileSync(raw);
    expect(bytes.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    expect(bytes.includes(Buffer.from('SQLite format 3'))).toBe(false);
    for (const secret of [h.emu.apiKey, identity, 'S3RVER']) expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(fs.statSync(raw).size).toBe(m.cipherBytes);

    // the Debian age, with the fleet identity file, gives the plaintext the manifest names
    const idFile = join(scratch.dir, 'fleet-identity.txt');
    fs.writeFileSync(idFile, `# fleet identity\n${identity}\n`, { mode: 0o600 });
    const byAge = join(scratch.dir, 'by-age.db');
    const cli = spawnSync('age', ['-d', '-i', idFile, '-o', byAge, raw]);
    expect(cli.status, cli.stderr.toString()).toBe(0);
    expect(sha256(byAge)).toBe(m.sha256);
    expect(fs.statSync(byAge).size).toBe(m.bytes);

    // placed on another worker's path: 0600, verify passes, every snapshot exports the same
    const target = join(scratch.dir, 'w-2', 'tenants', 'acme', 'wbsync.db');
    const placed = await placeFleetCopy({ tenant: 'acme', objects, identities: [identity], dbPath: target });
    expect(placed).toMatchObject({ setAside: null, manifest: { manifestKey: m.manifestKey } });
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    expect(sha256(target)).toBe(m.sha256);
    const moved = openStore(target);
    try {
      expect(moved.verify().ok).toBe(true);
      expect(moved.listSnapshots().map((s) => [s.id, s.kind, s.status])).toEqual(snaps.map((s) => [s.id, s.kind, s.status]));
    } finally {
      moved.close();
    }
    const [before, after] = [await exportsOf(h.dbPath, scratch.dir), await exportsOf(target, scratch.dir)];
    expect(Object.keys(before).length).toBeGreaterThanOrEqual(2);
    expect(after).toEqual(before);
    // (a read-only open leaves the -wal/-shm of WAL mode behind, empty; nothing else is left)
    expect(fs.readdirSync(join(scratch.dir, 'w-2', 'tenants', 'acme')).filter((f) => !/-(wal|shm)$/.test(f))).toEqual(['wbsync.db']);
  });

  it('never overwrites a newer database; sets an older one aside with its WAL folded in', async () => {
    const older = await listFleetCopies(objects, 'acme');
    const target = join(scratch.dir, 'w-3', 'tenants', 'acme', 'wbsync.db');
    await placeFleetCopy({ tenant: 'acme', objects, identities: [identity], dbPath: target });
    // this worker's database runs on: a pass here makes it newer than the copy
    const here = openStore(target);
    await runPass({ client: h.client, store: here, logger: silentLogger }, {});
    const newerSnapshots = here.listSnapshots().length;
    here.close();
    const hash = sha256(target);
    await expect(placeFleetCopy({ tenant: 'acme', objects, identities: [identity], dbPath: target, manifestKey: older[0]!.manifestKey })).rejects.toMatchObject({ code: 'restore_refused', message: expect.stringMatching(/is newer than the fleet copy/) });
    expect(sha256(target)).toBe(hash);
    expect(fs.readdirSync(join(scratch.dir, 'w-3', 'tenants', 'acme')).filter((f) => !/-(wal|shm)$/.test(f))).toEqual(['wbsync.db']);

    // the original moves on further and writes a newer copy: that one replaces this worker's database
    await h.sync({ full: true });
    await h.sync({ full: true });
    const newer = await write(new Date(Date.now() + 1000));
    expect(newer.lastSnapshotId).toBeGreaterThan(newerSnapshots);
    // a writer left a WAL behind on this worker's (older) database: it is folded in, not lost
    const open = openStore(target);
    open.db.pragma('wal_autocheckpoint = 0');
    open.db.exec(`CREATE TABLE IF NOT EXISTS local_note(x); INSERT INTO local_note VALUES ('kept aside')`);
    open.close();
    const placed = await placeFleetCopy({ tenant: 'acme', objects, identities: [identity], dbPath: target });
    expect(placed.manifest.manifestKey).toBe(newer.manifestKey);
    expect(placed.setAside).toMatch(/wbsync\.db\.replaced-/);
    const aside = new Database(placed.setAside!, { readonly: true });
    try {
      expect(aside.prepare('SELECT x FROM local_note').pluck().get()).toBe('kept aside');
    } finally {
      aside.close();
    }
    expect(sha256(target)).toBe(newer.sha256);
    expect(fs.existsSync(`${target}-wal`)).toBe(false);
  });

  it('a stale -wal without its database never meets the placed copy', async () => {
    const target = join(scratch.dir, 'w-4', 'tenants', 'acme', 'wbsync.db');
    fs.mkdirSync(join(scratch.dir, 'w-4', 'tenants', 'acme'), { recursive: true });
    // a valid WAL of another database (a crashed writer's, left when its file was moved away):
    // SQLite would replay its frames onto whatever file comes to sit beside it
    const stray = join(scratch.dir, 'stray.db');
    const w = new Database(stray);
    w.pragma('journal_mode = WAL');
    w.pragma('page_size = 4096');
    w.exec('CREATE TABLE t(x)');
    w.pragma('wal_checkpoint(TRUNCATE)');
    w.pragma('wal_autocheckpoint = 0');
    w.exec(`INSERT INTO t SELECT zeroblob(3000) FROM generate_series(1, 200)`.replace('generate_series(1, 200)', "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i FROM n)"));
    fs.copyFileSync(`${stray}-wal`, `${target}-wal`);
    w.close();
    expect(fs.statSync(`${target}-wal`).size).toBeGreaterThan(100_000);
    const placed = await placeFleetCopy({ tenant: 'acme', objects, identities: [identity], dbPath: target });
    expect(sha256(target)).toBe(placed.manifest.sha256);
    const s = openStore(target);
    try {
      expect(s.listSnapshots().at(-1)!.id).toBe(placed.manifest.lastSnapshotId);
      expect(s.verify().ok).toBe(true);
    } finally {
      s.close();
    }
  });

  it('refuses a wrong identity, a tampered object and a manifest that lies, leaving nothing behind', async () => {
    const dir = join(scratch.dir, 'w-5', 'tenants', 'acme');
    const target = join(dir, 'wbsync.db');
    const other = await age.generateIdentity();
    await expect(placeFleetCopy({ tenant: 'acme', objects, identities: [other], dbPath: target })).rejects.toMatchObject({ message: expect.stringMatching(/cannot decrypt/) });
    expect(fs.readdirSync(dir)).toEqual([]);

    const m = await write(new Date(Date.now() + 5000));
    const bytes = Buffer.concat((await (await objects.get(m.object)).toArray()) as Buffer[]);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    await objects.put(m.object, Readable.from([bytes]), 'application/octet-stream');
    await expect(placeFleetCopy({ tenant: 'acme', objects, identities: [identity], dbPath: target })).rejects.toThrow();
    expect(fs.readdirSync(dir)).toEqual([]);

    // a manifest naming another plaintext hash (an object swapped for another valid copy)
    const m2 = await write(new Date(Date.now() + 9000));
    await objects.put(m2.manifestKey, JSON.stringify({ ...m2, manifestKey: undefined, sha256: '0'.repeat(64) }), 'application/json');
    await expect(placeFleetCopy({ tenant: 'acme', objects, identities: [identity], dbPath: target })).rejects.toMatchObject({ code: 'storage', message: expect.stringMatching(/does not match its manifest/) });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses to copy a database mid-pass, and a tenant name that is not one', async () => {
    const id = h.store.beginSnapshot('incremental');
    try {
      await expect(write()).rejects.toMatchObject({ code: 'locked', message: expect.stringMatching(/mid-pass/) });
    } finally {
      h.store.finishSnapshot(id, 'failed', {});
    }
    await expect(writeFleetCopy({ tenant: '../etc', dbPath: h.dbPath, objects, recipient, worker: 'w-1', epoch: 1, now: new Date() })).rejects.toMatchObject({ code: 'usage' });
    await expect(writeFleetCopy({ tenant: 'acme', dbPath: h.dbPath, objects, recipient: 'age1nope', worker: 'w-1', epoch: 1, now: new Date() })).rejects.toMatchObject({ code: 'config' });
  });
});
