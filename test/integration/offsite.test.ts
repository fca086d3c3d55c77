// Offsite copies against a real S3 server (s3rver on 127.0.0.1) and the real age tool: a push that
// the daemon's keys cannot read back, a fetch with the identity that gives the snapshot's exact
// views, the Debian `age` decrypting the same object, tampering caught, a wrong identity refused,
// remote retention. Nothing decrypted is ever left behind by a failed fetch.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTING_QUERIES } from '../../src/store/read/index.js';
import { createS3Store, type ObjectStore } from '../../src/offsite/object-store.js';
import { fetchCopy, listCopies, pruneCopies, pushCopy, verifyCopies } from '../../src/offsite/offsite.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { api, dumpOf, makeHarness, tempDir, view, type Harness } from '../helpers/harness.js';
import { VIEWS } from '../helpers/random-writes.js';
import { useS3rverCredentials } from '../helpers/s3-credentials.js';

const PREFIX = 'wbsync/test/';

async function views(store: Store): Promise<Record<string, string[]>> {
  return Object.fromEntries(VIEWS.map((v) => [v, view(store, v).map((r) => JSON.stringify(r)).sort()]));
}

describe('offsite copies (s3rver, age)', () => {
  let s3: InstanceType<typeof S3rver>;
  let objects: ObjectStore;
  let h: Harness;
  let scratch: { dir: string; cleanup: () => void };
  let identity: string;
  let recipient: string;
  let port: number;
  let restoreEnv: (() => void) | undefined;

  beforeAll(async () => {
    scratch = tempDir('wbsync-offsite-');
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch.dir, 's3'), configureBuckets: [{ name: 'backups', configs: [] }] });
    ({ port } = await s3.run());
    // s3rver's fixed credentials, through the standard variables as in production
    restoreEnv = useS3rverCredentials();
    objects = createS3Store({ bucket: 'backups', prefix: PREFIX, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true });
    identity = await age.generateIdentity();
    recipient = await age.identityToRecipient(identity);
    h = await makeHarness('spec');
    await h.sync();
  });
  afterAll(async () => {
    objects?.close();
    await h?.close();
    await s3?.close();
    scratch?.cleanup();
    restoreEnv?.();
  });

  it('pushes an encrypted copy that fetch gives back exactly, and that the age tool decrypts too', async () => {
    const m = await pushCopy(h.store, objects, { prefix: PREFIX, recipients: [recipient] }, new Date());
    expect(m).toMatchObject({ snapshot: h.store.latestCompleteSnapshot(), recipients: [recipient], sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(m.counts['records']).toBeGreaterThan(10);
    expect(m.bytes).toBeGreaterThan(m.plainBytes); // age adds its header and tags
    expect((await listCopies(objects, PREFIX)).map((c) => c.snapshot)).toEqual([m.snapshot]);

    // what is in the bucket is not SQLite: nothing readable without the identity
    const raw = join(scratch.dir, 'raw.age');
    await pipeline(await objects.get(m.object), fs.createWriteStream(raw));
    expect(fs.readFileSync(raw).subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    expect(fs.readFileSync(raw).includes(Buffer.from('SQLite format 3'))).toBe(false);

    const out = join(scratch.dir, 'fetched.db');
    await fetchCopy(objects, PREFIX, { identities: [identity], out });
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    const exported = join(scratch.dir, 'exported.db');
    await h.store.exportTo(exported, m.snapshot);
    const [a, b] = [openStore(out, { readonly: true }), openStore(exported, { readonly: true })];
    try {
      expect(await views(a)).toEqual(await views(b));
    } finally {
      a.close();
      b.close();
    }

    // the stock sqlite3 shell gives the README's answers from the fetched copy, as the live database does
    for (const q of REPORTING_QUERIES) {
      const shell = spawnSync('sqlite3', ['-json', '-readonly', out, q.sql]);
      expect(shell.status, `${q.title}: ${shell.stderr.toString()}`).toBe(0);
      const got = shell.stdout.toString().trim() ? (JSON.parse(shell.stdout.toString()) as unknown[]) : [];
      expect(got, q.title).toEqual(h.store.db.prepare(q.sql).all());
    }

    // canaries: the service key and the age identity are nowhere in the manifest, the copy or the bucket
    const manifestText = fs.readFileSync(join(scratch.dir, 's3', 'backups', ...(await listCopies(objects, PREFIX))[0]!.manifestKey.split('/')) + '._S3rver_object');
    for (const secret of [h.emu.apiKey, identity, 'S3RVER']) {
      expect(manifestText.includes(secret), 'manifest').toBe(false);
      expect(fs.readFileSync(out).includes(Buffer.from(secret)), 'fetched copy').toBe(false);
      expect(fs.readFileSync(raw).includes(Buffer.from(secret)), 'object').toBe(false);
    }

    // interop: the Debian age decrypts the object to the same bytes
    const idFile = join(scratch.dir, 'identity.txt');
    fs.writeFileSync(idFile, `# test identity\n${identity}\n`, { mode: 0o600 });
    const cli = spawnSync('age', ['-d', '-i', idFile, '-o', join(scratch.dir, 'by-age.db'), raw]);
    expect(cli.status, cli.stderr.toString()).toBe(0);
    expect(fs.readFileSync(join(scratch.dir, 'by-age.db')).equals(fs.readFileSync(out))).toBe(true);
  });

  it('refuses a wrong identity and a tampered object, leaving no file behind; verify names the bad copy', async () => {
    const other = await age.generateIdentity();
    const out = join(scratch.dir, 'wrong.db');
    await expect(fetchCopy(objects, PREFIX, { identities: [other], out })).rejects.toMatchObject({ message: expect.stringMatching(/cannot decrypt/) });
    expect(fs.readdirSync(scratch.dir).filter((f) => f.startsWith('wrong.db'))).toEqual([]);
    expect((await verifyCopies(objects, PREFIX)).every((v) => v.ok)).toBe(true);
    expect((await verifyCopies(objects, PREFIX, [identity])).map((v) => [v.ok, v.decrypted])).toEqual([[true, true]]);

    // a second copy, then someone flips bytes in it
    expect((await api(h.emu, 'PUT', `/records/${dumpOf(h.emu).records.find((r) => !r.isDeleted && !r.isArchived)!._id as string}`, { name: 'changed before the second copy' })).status).toBe(200);
    await h.emu.idle();
    await h.sync();
    const m2 = await pushCopy(h.store, objects, { prefix: PREFIX, recipients: [recipient] }, new Date());
    const bytes = Buffer.concat((await (await objects.get(m2.object)).toArray()) as Buffer[]);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    await objects.put(m2.object, Readable.from([bytes]), 'application/octet-stream');
    const checks = await verifyCopies(objects, PREFIX);
    expect(checks.find((c) => c.snapshot === m2.snapshot)).toMatchObject({ ok: false, problem: expect.stringContaining('differs from the manifest') });
    expect(checks.filter((c) => c.ok)).toHaveLength(1);
    await expect(fetchCopy(objects, PREFIX, { snapshot: m2.snapshot, identities: [identity], out: join(scratch.dir, 'tampered.db') })).rejects.toThrow();
    expect(fs.readdirSync(scratch.dir).filter((f) => f.startsWith('tampered.db'))).toEqual([]);
    // the older copy still comes back
    await fetchCopy(objects, PREFIX, { snapshot: (await listCopies(objects, PREFIX))[0]!.snapshot, identities: [identity], out: join(scratch.dir, 'older.db') });
  });

  it('keeps remote copies by the retention policy, never the newest', async () => {
    // (with a progress callback, as the CLI on a terminal: the copy must still be whole)
    const seen: number[] = [];
    for (let i = 0; i < 2; i++) {
      await h.sync({ full: true });
      await pushCopy(h.store, objects, { prefix: PREFIX, recipients: [recipient] }, new Date(), (n) => seen.push(n));
    }
    expect(seen.length).toBeGreaterThan(1);
    expect((await verifyCopies(objects, PREFIX, [identity])).slice(-2).every((c) => c.ok)).toBe(true);
    const before = await listCopies(objects, PREFIX);
    expect(before.length).toBe(4);
    const gone = await pruneCopies(objects, PREFIX, { keepLast: 2 }, new Date());
    expect(gone.sort()).toEqual(before.slice(0, 2).map((c) => c.snapshot).sort());
    const after = await listCopies(objects, PREFIX);
    expect(after.map((c) => c.object)).toEqual(before.slice(2).map((c) => c.object));
    expect((await objects.list(`${PREFIX}copies/`)).sort()).toEqual(after.map((c) => c.object).sort());
  });

  it('should error and not write if there are no recipients', async () => {
    const n = (await objects.list(PREFIX)).length;
    await expect(pushCopy(h.store, objects, { prefix: PREFIX, recipients: [] }, new Date())).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('offsite.recipients is empty') });
    expect(await objects.list(PREFIX)).toHaveLength(n);
  });

  it('a push killed (kill -9) part-way lists no partial copy; the next push completes and verifies', { timeout: 60_000 }, async () => {
    const config = join(scratch.dir, 'push.json');
    fs.writeFileSync(config, JSON.stringify({ db: h.dbPath, offsite: { bucket: 'backups', prefix: PREFIX, endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, recipients: [recipient] } }));
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, WBSYNC_CONFIG: config, WBSYNC_LOG_LEVEL: 'silent', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const main = join(import.meta.dirname, '../../dist/cli/main.js');
    const listed = async (): Promise<number> => (await listCopies(objects, PREFIX)).length;
    for (const delay of [40, 90, 160, 260, 400]) {
      const before = await listed();
      const child = spawn(process.execPath, [main, 'offsite', 'push'], { env, stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      // either the whole copy is listed, or nothing new is
      const after = await listed();
      expect(after - before).toBeLessThanOrEqual(1);
      // and every copy listed is whole (the manifest is written last)
      expect((await verifyCopies(objects, PREFIX)).filter((c) => !c.ok)).toEqual([]);
    }
    const done = spawn(process.execPath, [main, 'offsite', 'push'], { env, stdio: 'ignore' });
    expect(await new Promise((r) => done.once('exit', r))).toBe(0);
    const last = await verifyCopies(objects, PREFIX, [identity]);
    expect(last.at(-1)).toMatchObject({ ok: true, decrypted: true });
  });
});

