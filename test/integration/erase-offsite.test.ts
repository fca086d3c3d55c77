// `wbsync erase` and offsite copies (s3rver on 127.0.0.1, age): a dry run and a plain erasure list
// the copies made before, which still hold the data; --offsite pushes a fresh copy and only then
// deletes the older ones, and the copy left decrypts to a database without the erased strings.

import fs from 'node:fs';
import { join } from 'node:path';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.js';
import { syncedEmulator, type SyncedEmulator } from '../helpers/synced-emulator.js';
import { foundIn } from '../helpers/erase-kit.js';
import { useS3rverCredentials } from '../helpers/s3-credentials.js';

describe('wbsync erase --offsite', () => {
  let s3: InstanceType<typeof S3rver>;
  let synced: SyncedEmulator;
  let scratch: { dir: string; cleanup: () => void };
  let env: NodeJS.ProcessEnv;
  let identityFile: string;
  let restoreEnv: (() => void) | undefined;
  const cli = (...argv: string[]): ReturnType<SyncedEmulator['cli']> => synced.cli(...argv);

  beforeAll(async () => {
    scratch = tempDir('wbsync-erase-offsite-');
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch.dir, 's3'), configureBuckets: [{ name: 'backups', configs: [] }] });
    const { port } = await s3.run();
    restoreEnv = useS3rverCredentials();
    const identity = await age.generateIdentity();
    identityFile = join(scratch.dir, 'key.txt');
    fs.writeFileSync(identityFile, `${identity}\n`, { mode: 0o600 });
    const offsite = { bucket: 'backups', prefix: 'erase/', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, recipients: [await age.identityToRecipient(identity)] };
    // the test syncs itself, between offsite pushes
    synced = await syncedEmulator({ dialect: 'spec', config: { offsite }, syncs: 0 });
    ({ env } = synced);
  });
  afterAll(async () => {
    await synced?.stop();
    await s3?.close();
    scratch?.cleanup();
    restoreEnv?.();
  });

  it('lists the copies that still hold the data, then replaces them', { timeout: 60_000 }, async () => {
    expect((await cli('sync')).code).toBe(0);
    expect((await cli('offsite', 'push')).code).toBe(0);
    expect((await cli('sync')).code).toBe(0);
    expect((await cli('offsite', 'push')).code).toBe(0);
    const Database = (await import('better-sqlite3')).default;
    const d = new Database(env.WBSYNC_DB!, { readonly: true });
    const g = d.prepare(`SELECT user_id, email, last_name FROM members WHERE first_name = 'Grace'`).get() as { user_id: string; email: string; last_name: string };
    d.close();

    const old = join(scratch.dir, 'old.db');
    expect((await cli('offsite', 'fetch', '--identity', identityFile, '--out', old)).code).toBe(0);
    expect(foundIn(old, [g.email, g.last_name])).toEqual([g.email, g.last_name]); // the copies hold the person

    const dry = await cli('erase', '--user', g.user_id, '--dry-run', '--json');
    expect(dry.code, dry.err).toBe(0);
    expect(JSON.parse(dry.out).offsite.copies).toHaveLength(2);
    const text = await cli('erase', '--user', g.user_id, '--dry-run');
    expect(text.out).toContain('offsite copies still holding the erased data (2)');

    const r = await cli('erase', '--user', g.user_id, '--offsite', '--json');
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.offsite.replaced.deleted).toHaveLength(2);
    const list = JSON.parse((await cli('offsite', 'list', '--json')).out);
    expect(list.copies.map((c: { object: string }) => c.object)).toEqual([doc.offsite.replaced.pushed.object]);

    const out = join(scratch.dir, 'fetched.db');
    const f = await cli('offsite', 'fetch', '--identity', identityFile, '--out', out);
    expect(f.code, f.err).toBe(0);
    expect(foundIn(out, [g.email, g.last_name])).toEqual([]);
    expect(foundIn(env.WBSYNC_DB!, [g.email, g.last_name])).toEqual([]);
  });
});
