// A store that accepts the connection and then stops answering (a real TCP server on 127.0.0.1 in
// front of s3rver, stalling the upload of the copy mid-response): the push fails in bounded time
// with an error naming the endpoint and offsite.timeoutSeconds, after at most 3 attempts, and no
// copy is listed (the manifest, which is what records a copy, is never written). Before the
// timeouts were set, the push waited forever.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import * as age from 'age-encryption';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Store, MAX_ATTEMPTS } from '../../src/offsite/object-store.js';
import { fetchCopy, listCopies, pushCopy } from '../../src/offsite/offsite.js';
import { makeHarness, tempDir, type Harness } from '../helpers/harness.js';
import { useS3rverCredentials } from '../helpers/s3-credentials.js';

const PREFIX = 'wbsync/stall/';

/** Forwards to s3rver, except a request (on any connection, kept alive or new) whose request line
 * matches `stalls`: with `passBytes`, the first passBytes of s3rver's answer pass and the rest is
 * held; without, the request is swallowed and `partial` (part of a response) is all that comes back.
 * Either way the socket then stays open and silent. */
async function stallingProxy(upstreamPort: number, partial: string, stalls = /^PUT \S*\/copies\//, passBytes = 0): Promise<{ port: number; stalled: () => number; close: () => Promise<void> }> {
  let stalled = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const up = net.connect(upstreamPort, '127.0.0.1');
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.destroy());
    let silent = false; // swallowing: nothing more either way
    let budget: number | null = null; // answer bytes still passed, once stalling
    client.on('data', (chunk: Buffer) => {
      if (silent) return;
      const line = chunk.subarray(0, Math.max(0, chunk.indexOf('\r\n'))).toString('latin1');
      if (budget === null && stalls.test(line)) {
        stalled++;
        if (passBytes === 0) {
          silent = true;
          client.write(partial);
          return;
        }
        budget = passBytes;
      }
      up.write(chunk);
    });
    up.on('data', (d: Buffer) => {
      if (silent) return;
      if (budget === null) return void client.write(d);
      if (budget > 0) client.write(d.subarray(0, budget));
      budget = Math.max(0, budget - d.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    stalled: () => stalled,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('an offsite store that stalls mid-response', () => {
  let s3: InstanceType<typeof S3rver>;
  let h: Harness;
  let scratch: { dir: string; cleanup: () => void };
  let recipient: string;
  let s3Port: number;
  let restoreEnv: (() => void) | undefined;
  const direct = () => createS3Store({ bucket: 'backups', prefix: PREFIX, endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true });

  beforeAll(async () => {
    scratch = tempDir('wbsync-offsite-stall-');
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(scratch.dir, 's3'), configureBuckets: [{ name: 'backups', configs: [] }] });
    ({ port: s3Port } = await s3.run());
    restoreEnv = useS3rverCredentials();
    recipient = await age.identityToRecipient(await age.generateIdentity());
    h = await makeHarness('spec');
    await h.sync();
  });
  afterAll(async () => {
    await h?.close();
    await s3?.close();
    scratch?.cleanup();
    restoreEnv?.();
  });

  it('push: headers and part of the body, then silence — fails within its timeouts, names the endpoint and the setting, records no copy', { timeout: 30_000 }, async () => {
    const proxy = await stallingProxy(s3Port, 'HTTP/1.1 200 OK\r\nContent-Length: 400\r\nx-amz-request-id: 1\r\n\r\n<?xml version="1.0"');
    const endpoint = `http://127.0.0.1:${proxy.port}`;
    const objects = createS3Store({ bucket: 'backups', prefix: PREFIX, endpoint, region: 'us-east-1', forcePathStyle: true, timeoutMs: 1000, timeoutSetting: 'offsite.timeoutSeconds' });
    const started = Date.now();
    try {
      const err = await pushCopy(h.store, objects, { prefix: PREFIX, recipients: [recipient] }, new Date()).then(
        () => null,
        (e: unknown) => e as Error & { code?: string; hint?: string },
      );
      expect(err).toMatchObject({ code: 'unreachable' });
      expect(err!.message).toContain(endpoint);
      expect(err!.message).toContain('offsite.timeoutSeconds = 1');
      expect(err!.message).toMatch(/^offsite upload of wbsync\/stall\/copies\/\S+ at s3:\/\/backups\/wbsync\/stall\/ timed out/);
      expect(err!.hint).toContain('offsite.timeoutSeconds');
    } finally {
      objects.close();
      await proxy.close();
    }
    // bounded: three attempts of a 1 s idle timeout and the SDK's short backoff between them
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(proxy.stalled()).toBeGreaterThanOrEqual(1);
    expect(proxy.stalled()).toBeLessThanOrEqual(MAX_ATTEMPTS);
    // what records a copy is its manifest: none, so nothing half-uploaded is listed or fetched
    const check = direct();
    try {
      expect(await listCopies(check, PREFIX)).toEqual([]);
      expect((await check.list(`${PREFIX}manifests/`)).length).toBe(0);
    } finally {
      check.close();
    }
  });

  it('wbsync offsite push: the status line and half a header, then silence — exits with the error in bounded time', { timeout: 30_000 }, async () => {
    const proxy = await stallingProxy(s3Port, 'HTTP/1.1 200 OK\r\nx-amz-req');
    const endpoint = `http://127.0.0.1:${proxy.port}`;
    const config = join(scratch.dir, 'stall.json');
    fs.writeFileSync(config, JSON.stringify({ db: h.dbPath, offsite: { bucket: 'backups', prefix: PREFIX, endpoint, forcePathStyle: true, recipients: [recipient], timeoutSeconds: 1 } }));
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, WBSYNC_CONFIG: config, WBSYNC_LOG_LEVEL: 'silent', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const main = join(import.meta.dirname, '../../dist/cli/main.js');
    const started = Date.now();
    const child = spawn(process.execPath, [main, 'offsite', 'push'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    clearTimeout(killer);
    await proxy.close();
    expect(code).not.toBe(null); // not killed: it ended by itself
    expect(code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(stderr).toContain(endpoint);
    expect(stderr).toContain('offsite.timeoutSeconds = 1');
    expect(proxy.stalled()).toBeLessThanOrEqual(MAX_ATTEMPTS);
    const check = direct();
    try {
      expect(await listCopies(check, PREFIX)).toEqual([]);
    } finally {
      check.close();
    }
  });

  /** A copy pushed straight to s3rver under `prefix`, and the identity that reads it. */
  async function pushedCopy(prefix: string): Promise<{ identity: string; object: string }> {
    const identity = await age.generateIdentity();
    const store = direct();
    try {
      return { identity, object: (await pushCopy(h.store, store, { prefix, recipients: [await age.identityToRecipient(identity)] }, new Date())).object };
    } finally {
      store.close();
    }
  }

  it("fetch: the copy's body stops half-way — fails in bounded time with the same error, leaves no file", { timeout: 30_000 }, async () => {
    const { identity, object } = await pushedCopy(`${PREFIX}fetch/`);
    const proxy = await stallingProxy(s3Port, '', /^GET \S*\/copies\//, 2000);
    const endpoint = `http://127.0.0.1:${proxy.port}`;
    const objects = createS3Store({ bucket: 'backups', prefix: `${PREFIX}fetch/`, endpoint, region: 'us-east-1', forcePathStyle: true, timeoutMs: 1000, timeoutSetting: 'offsite.timeoutSeconds' });
    const out = join(scratch.dir, 'fetched-stalled.db');
    const started = Date.now();
    try {
      const err = await fetchCopy(objects, `${PREFIX}fetch/`, { identities: [identity], out }).then(
        () => null,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err).toMatchObject({ code: 'unreachable' });
      expect(err!.message).toContain(`offsite download of ${object}`);
      expect(err!.message).toContain(endpoint);
      expect(err!.message).toContain('offsite.timeoutSeconds = 1');
    } finally {
      objects.close();
      await proxy.close();
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(proxy.stalled()).toBe(1);
    expect(fs.readdirSync(scratch.dir).filter((f) => f.startsWith('fetched-stalled'))).toEqual([]);
  });

  it('a download whose reader has stopped listening ends quietly when the store stalls mid-body (never an uncaught error)', { timeout: 30_000 }, async () => {
    const { object } = await pushedCopy(`${PREFIX}quiet/`);
    const proxy = await stallingProxy(s3Port, '', /^GET \S*\/copies\//, 2000);
    const objects = createS3Store({ bucket: 'backups', prefix: `${PREFIX}quiet/`, endpoint: `http://127.0.0.1:${proxy.port}`, region: 'us-east-1', forcePathStyle: true, timeoutMs: 1000, timeoutSetting: 'offsite.timeoutSeconds' });
    const uncaught: unknown[] = [];
    const note = (e: unknown): void => void uncaught.push(e);
    process.prependListener('uncaughtException', note);
    try {
      // a reader that gave up (a fleet adopt whose decryption failed first did this): it holds the
      // stream and listens to nothing; the store's idle timeout then ends the body
      const download = await objects.get(object);
      for (const t0 = Date.now(); !download.destroyed && Date.now() - t0 < 15_000; ) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      expect(download.destroyed).toBe(true);
      expect(uncaught).toEqual([]);
    } finally {
      process.removeListener('uncaughtException', note);
      objects.close();
      await proxy.close();
    }
    expect(proxy.stalled()).toBe(1);
  });

  it('offsite.timeoutSeconds is validated', async () => {
    const { ConfigSchema } = await import('../../src/config/schema.js');
    expect(ConfigSchema.safeParse({ offsite: { timeoutSeconds: 0 } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ offsite: { timeoutSeconds: 'soon' } }).success).toBe(false);
    expect(ConfigSchema.parse({}).offsite.timeoutSeconds).toBe(60);
  });
});
