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

/** A TCP proxy on 127.0.0.1 to s3rver: each client connection gets its own upstream one, handed to
 * `pair` (which moves the bytes as it likes); `close` ends every socket, then `after` runs. */
async function tcpProxy(upstreamPort: number, pair: (client: net.Socket, up: net.Socket) => void, after?: () => void): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const track = (sock: net.Socket): void => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  };
  const server = net.createServer((client) => {
    track(client);
    client.on('error', () => undefined);
    const up = net.connect(upstreamPort, '127.0.0.1');
    track(up);
    up.on('error', () => client.destroy());
    pair(client, up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        after?.();
        for (const sock of sockets) sock.destroy();
        server.close(() => r());
      }),
  };
}

/** Forwards to s3rver, except a request (on any connection, kept alive or new) whose request line
 * matches `stalls`: with `passBytes`, the first passBytes of s3rver's answer pass and the rest is
 * held; without, the request is swallowed and `partial` (part of a response) is all that comes back.
 * Either way the socket then stays open and silent. */
async function stallingProxy(upstreamPort: number, partial: string, stalls = /^PUT \S*\/copies\//, passBytes = 0, trickle?: Trickle): Promise<{ port: number; stalled: () => number; close: () => Promise<void> }> {
  if (trickle) return trickleProxy(upstreamPort, stalls, passBytes, trickle);
  let stalled = 0;
  const proxy = await tcpProxy(upstreamPort, (client, up) => {
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
  return { port: proxy.port, stalled: () => stalled, close: proxy.close };
}

interface Trickle {
  /** Bytes let through per tick, and the tick. */
  bytes: number;
  everyMs: number;
}

/** Forwards to s3rver, except a request whose request line matches `trickles`: a download's answer
 * passes `passBytes`, then moves `trickle.bytes` per `trickle.everyMs`; an upload is taken whole
 * and answered with a header line that never ends, `trickle.bytes` of it per tick. Never silent
 * long enough for an idle timeout. */
async function trickleProxy(upstreamPort: number, trickles: RegExp, passBytes: number, trickle: Trickle): Promise<{ port: number; stalled: () => number; close: () => Promise<void> }> {
  let matched = 0;
  const timers = new Set<NodeJS.Timeout>();
  const stopTimers = (): void => timers.forEach((t) => clearInterval(t));
  const proxy = await tcpProxy(upstreamPort, (client, up) => {
    let mode: 'upload' | 'download' | null = null;
    let queue = Buffer.alloc(0);
    let budget = passBytes;
    const every = (tick: () => void): void => void timers.add(setInterval(tick, trickle.everyMs));
    client.on('data', (chunk: Buffer) => {
      const line = chunk.subarray(0, Math.max(0, chunk.indexOf('\r\n'))).toString('latin1');
      if (!mode && trickles.test(line)) {
        matched++;
        mode = line.startsWith('PUT') ? 'upload' : 'download';
        if (mode === 'download') {
          every(() => {
            if (queue.length === 0) return void up.resume();
            client.write(queue.subarray(0, trickle.bytes));
            queue = queue.subarray(trickle.bytes);
          });
        }
      }
      up.write(chunk);
    });
    up.on('data', (d: Buffer) => {
      if (mode === 'upload') {
        // s3rver's answer is dropped; a header that never ends comes instead
        if (queue.length === 0) {
          queue = Buffer.from('x');
          client.write('HTTP/1.1 200 OK\r\nx-trickle: ');
          every(() => client.write('a'.repeat(trickle.bytes)));
        }
        return;
      }
      if (mode !== 'download' || budget >= d.length) {
        if (mode === 'download') budget -= d.length;
        return void client.write(d);
      }
      if (budget > 0) client.write(d.subarray(0, budget));
      queue = Buffer.concat([queue, d.subarray(Math.max(0, budget))]);
      budget = 0;
      up.pause();
    });
  }, stopTimers);
  return { port: proxy.port, stalled: () => matched, close: proxy.close };
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

  it('push: a store that takes the copy and answers a byte at a time (never idle) — given up once past its deadline, no copy recorded', { timeout: 40_000 }, async () => {
    // the copy's allowance is 1 s plus its size at 256 KiB/s; the answer never ends
    const proxy = await stallingProxy(s3Port, '', /^PUT \S*\/copies\//, 0, { bytes: 1, everyMs: 100 });
    const endpoint = `http://127.0.0.1:${proxy.port}`;
    const objects = createS3Store({ bucket: 'backups', prefix: `${PREFIX}slow-put/`, endpoint, region: 'us-east-1', forcePathStyle: true, timeoutMs: 1000, timeoutSetting: 'offsite.timeoutSeconds', minBytesPerSecond: 256 * 1024 });
    const started = Date.now();
    try {
      const err = await pushCopy(h.store, objects, { prefix: `${PREFIX}slow-put/`, recipients: [recipient] }, new Date()).then(
        () => null,
        (e: unknown) => e as Error & { code?: string; hint?: string },
      );
      expect(err).toMatchObject({ code: 'unreachable' });
      expect(err!.message).toMatch(/^offsite upload of \S+\/copies\/\S+ at s3:\/\/backups\/\S+ is too slow: /);
      expect(err!.message).toContain(endpoint);
      expect(err!.message).toMatch(/not finished after \d+ s \(\d+ bytes so far\) with http:\/\/127\.0\.0\.1:\d+, where a transfer may take 1 s plus its size at 256 KiB\/s; given up$/);
      expect(err!.hint).toContain('offsite.timeoutSeconds');
    } finally {
      objects.close();
      await proxy.close();
    }
    // the answer alone would take 27 minutes to overflow the client's header limit (16 KiB at 10
    // bytes a second); the copy's allowance is 1 s and its size at 256 KiB/s, after the copy is made
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(proxy.stalled()).toBe(1);
    const check = direct();
    try {
      expect(await listCopies(check, `${PREFIX}slow-put/`)).toEqual([]);
    } finally {
      check.close();
    }
  });

  it('fetch: a body trickled a few bytes at a time — given up past its deadline; a slow store above the floor is waited for', { timeout: 40_000 }, async () => {
    const { identity, object } = await pushedCopy(`${PREFIX}slow-get/`);
    const fetchThrough = async (trickle: Trickle, floor: number, out: string): Promise<(Error & { code?: string }) | null> => {
      const proxy = await stallingProxy(s3Port, '', /^GET \S*\/copies\//, 2000, trickle);
      const objects = createS3Store({ bucket: 'backups', prefix: `${PREFIX}slow-get/`, endpoint: `http://127.0.0.1:${proxy.port}`, region: 'us-east-1', forcePathStyle: true, timeoutMs: 1000, timeoutSetting: 'offsite.timeoutSeconds', minBytesPerSecond: floor });
      try {
        return await fetchCopy(objects, `${PREFIX}slow-get/`, { identities: [identity], out }).then(
          () => null,
          (e: unknown) => e as Error & { code?: string },
        );
      } finally {
        objects.close();
        await proxy.close();
      }
    };
    const started = Date.now();
    const err = await fetchThrough({ bytes: 1024, everyMs: 100 }, 256 * 1024, join(scratch.dir, 'fetched-slow.db'));
    expect(err).toMatchObject({ code: 'unreachable' });
    expect(err!.message).toContain(`offsite download of ${object}`);
    expect(err!.message).toContain('is too slow');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(fs.readdirSync(scratch.dir).filter((f) => f.startsWith('fetched-slow'))).toEqual([]);
    // 640 KiB/s against a floor of 64 KiB/s: slow, alive, fetched whole
    expect(await fetchThrough({ bytes: 32 * 1024, everyMs: 50 }, 64 * 1024, join(scratch.dir, 'fetched-alive.db'))).toBeNull();
    expect(fs.statSync(join(scratch.dir, 'fetched-alive.db')).size).toBeGreaterThan(0);
  });

  it('offsite.timeoutSeconds is validated', async () => {
    const { ConfigSchema } = await import('../../src/config/schema.js');
    expect(ConfigSchema.safeParse({ offsite: { timeoutSeconds: 0 } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ offsite: { timeoutSeconds: 'soon' } }).success).toBe(false);
    expect(ConfigSchema.parse({}).offsite.timeoutSeconds).toBe(60);
  });
});
