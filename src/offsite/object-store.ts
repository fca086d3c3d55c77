// Where offsite copies go: a small port over object storage, and its S3 implementation (AWS SDK v3;
// multipart uploads streamed through lib-storage). Checksums only "when required", so MinIO, R2 and
// other S3-compatible stores work. Credentials come from the SDK's standard chain (AWS_* variables,
// shared files, instance roles) — never from wbsync's configuration or flags.

import { PassThrough, Readable, Transform } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { shown } from '../domain/display-text.js';
import type { Config } from '../config/schema.js';
import { WbsyncError } from '../domain/errors.js';

export interface ObjectStore {
  /** Streams `body` to `key` (multipart when large). */
  put(key: string, body: Readable | string, contentType: string): Promise<void>;
  get(key: string): Promise<Readable>;
  /** Keys under `prefix`, all pages. */
  list(prefix: string): Promise<string[]>;
  delete(key: string): Promise<void>;
  /** Where it is, for messages: `s3://bucket/prefix` (never a credential). */
  readonly where: string;
  close(): void;
}

export interface S3Settings {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** How long a connection attempt, or a connection with no byte moving either way, may last before
   * the request fails (retried by the SDK, at most 3 attempts); 60 s when unset. */
  timeoutMs?: number;
  /** The setting that sets `timeoutMs`, named when it fires (e.g. `offsite.timeoutSeconds`). */
  timeoutSetting?: string;
  /** The slowest a transfer may go on average before it is given up (MIN_BYTES_PER_SECOND when unset). */
  minBytesPerSecond?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * A store that keeps a transfer alive a byte at a time never trips the idle timeout: so each
 * transfer also has a deadline, `timeoutMs` plus its size at this rate (128 kbit/s — a 500 MB copy
 * may take nine hours, a trickle cannot take forever). An upload's size is what has been read of
 * its body, plus one part the SDK may still be sending, until the body ends.
 */
export const MIN_BYTES_PER_SECOND = 16 * 1024;
const PART_BYTES = 8 * 1024 * 1024;

/** A transfer past its deadline (see MIN_BYTES_PER_SECOND). */
class SlowTransferError extends Error {
  override readonly name = 'SlowTransferError';
  constructor(readonly bytes: number, readonly seconds: number) {
    super(`not finished after ${seconds} s (${bytes} bytes so far)`);
  }
}

/** Fires `onLate` once `Date.now()` passes the deadline `due()` gives, asked again at least once a
 * second (it moves: later as an upload's body is read, earlier once it has ended). */
function deadline(due: () => number, onLate: () => void): { stop: () => void } {
  let timer: NodeJS.Timeout | null = null;
  const arm = (): void => {
    const left = due() - Date.now();
    if (left <= 0) return onLate();
    timer = setTimeout(arm, Math.min(left, 1000));
    timer.unref();
  };
  arm();
  return { stop: () => timer && clearTimeout(timer) };
}
/** Attempts per request (the SDK's standard retry): a stalled store costs at most this many timeouts. */
export const MAX_ATTEMPTS = 3;

/** The SDK's error, as a WbsyncError that names the operation and the bucket, not a secret. */
function storageError(what: string, where: string, e: unknown, s: S3Settings): WbsyncError {
  const err = e as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = err.$metadata?.httpStatusCode;
  if (e instanceof SlowTransferError) {
    const endpoint = s.endpoint ?? `AWS S3 (${s.region})`;
    const rate = (s.minBytesPerSecond ?? MIN_BYTES_PER_SECOND) / 1024;
    const allowed = (s.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000;
    return new WbsyncError('unreachable', `offsite ${what} at ${where} is too slow: ${e.message} with ${shown(endpoint)}, where a transfer may take ${allowed} s plus its size at ${rate} KiB/s; given up`, {
      hint: `check that ${shown(endpoint)} is healthy: a store that keeps a transfer alive a few bytes at a time is treated as stalled${s.timeoutSetting ? ` (${s.timeoutSetting} is added to every transfer's allowance)` : ''}`,
      cause: e,
    });
  }
  if (err.name === 'TimeoutError' || err.code === 'ETIMEDOUT') {
    const seconds = (s.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000;
    const endpoint = s.endpoint ?? `AWS S3 (${s.region})`;
    const setting = s.timeoutSetting ? `${s.timeoutSetting} = ${seconds}` : `the default of ${seconds} s`;
    return new WbsyncError('unreachable', `offsite ${what} at ${where} timed out: ${shown(endpoint)} did not connect, or stopped answering, for ${seconds} s (${setting}); ${MAX_ATTEMPTS} attempts`, {
      hint: `check that ${shown(endpoint)} is up and reachable${s.timeoutSetting ? `; raise ${s.timeoutSetting} only if the store is slow but alive` : ''}`,
      cause: e,
    });
  }
  const auth = status === 403 || /credential|signature|AccessDenied/i.test(`${err.name} ${err.message}`);
  return new WbsyncError('unreachable', `offsite ${what} at ${where} failed: ${err.name ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${shown(err.message ?? '')}`.trim(), {
    hint: auth ? 'check the AWS credentials in the environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE) and the bucket policy' : 'check offsite.endpoint, offsite.bucket and the network',
    ...(status !== undefined ? { status } : {}),
    cause: e,
  });
}

/** The SDK, loaded on first use: every other command (and every sync pass) starts without it. */
async function loadSdk(): Promise<{ s3: typeof import('@aws-sdk/client-s3'); storage: typeof import('@aws-sdk/lib-storage') }> {
  const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  return { s3, storage };
}

export function createS3Store(s: S3Settings): ObjectStore {
  // wbsync runs on Node 20 with the SDK version its lockfile pins; the SDK's notice about its own
  // future releases (they will want Node 22) is not something a user of this release can act on
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const timeoutMs = s.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let opened: Promise<{ client: S3Client; sdk: Awaited<ReturnType<typeof loadSdk>> }> | null = null;
  let made: S3Client | null = null;
  const open = (): Promise<{ client: S3Client; sdk: Awaited<ReturnType<typeof loadSdk>> }> =>
    (opened ??= loadSdk().then((sdk) => {
      made = new sdk.s3.S3Client({
        region: s.region,
        ...(s.endpoint ? { endpoint: s.endpoint } : {}),
        forcePathStyle: s.forcePathStyle,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: MAX_ATTEMPTS,
        // without these a store that accepts the connection and then stops answering hangs the push
        // (and the daemon's offsite step) forever. socketTimeout is an idle timeout (no byte either
        // way), so a slow upload that moves never trips it; requestTimeout (the whole request up to
        // the answer) is left unset for that reason: an 8 MB part on a slow link may take minutes.
        requestHandler: { connectionTimeout: timeoutMs, socketTimeout: timeoutMs },
      });
      return { client: made, sdk };
    }));
  const where = `s3://${s.bucket}/${s.prefix}`;
  const rate = s.minBytesPerSecond ?? MIN_BYTES_PER_SECOND;
  const allowance = (bytes: number): number => timeoutMs + (bytes / rate) * 1000;
  const guard = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw storageError(what, where, e, s);
    }
  };
  return {
    where,
    put: (key, body, contentType) =>
      guard(`upload of ${key}`, async () => {
        const { client, sdk } = await open();
        const started = Date.now();
        let read = typeof body === 'string' ? Buffer.byteLength(body) : 0;
        let ended = typeof body === 'string';
        let source: Readable | string = body;
        if (typeof body !== 'string') {
          // counted as the SDK reads it (a Transform moves nothing until it is read)
          const counted = new Transform({
            transform(chunk: Buffer, _enc, done) {
              read += chunk.length;
              done(null, chunk);
            },
            flush(done) {
              ended = true;
              done();
            },
          });
          body.on('error', (e) => counted.destroy(e));
          source = body.pipe(counted);
        }
        const upload = new sdk.storage.Upload({ client, params: { Bucket: s.bucket, Key: key, Body: source, ContentType: contentType }, partSize: PART_BYTES, queueSize: 2 });
        let late: SlowTransferError | null = null;
        const watch = deadline(
          () => started + allowance(read + (ended ? 0 : PART_BYTES)),
          () => {
            late = new SlowTransferError(read, Math.round((Date.now() - started) / 1000));
            void upload.abort();
          },
        );
        try {
          await upload.done();
        } catch (e) {
          throw late ?? e;
        } finally {
          watch.stop();
        }
      }),
    get: (key) =>
      guard(`download of ${key}`, async () => {
        const { client, sdk } = await open();
        const res = await client.send(new sdk.s3.GetObjectCommand({ Bucket: s.bucket, Key: key }));
        if (!res.Body) throw new Error('empty body');
        // the body streams after the answer: a store that stalls mid-body fails it with the same
        // error (naming the endpoint and the setting) as one that stalls before answering
        const body = res.Body as Readable;
        const out = new PassThrough();
        body.on('error', (e) => out.destroy(storageError(`download of ${key}`, where, e, s)));
        // the body's deadline, from its declared length (a store that trickles it is given up)
        const started = Date.now();
        let moved = 0;
        body.on('data', (c: Buffer) => void (moved += c.length));
        const watch = deadline(
          () => started + allowance(res.ContentLength ?? moved),
          () => body.destroy(new SlowTransferError(moved, Math.round((Date.now() - started) / 1000))),
        );
        body.once('close', () => watch.stop());
        // a reader that has stopped listening (it failed or finished first) is not told, rather
        // than the error being thrown at the process as uncaught: every reader here listens
        // (pipeline, for await, or its own handler) while it reads
        out.on('error', () => undefined);
        return body.pipe(out);
      }),
    list: (prefix) =>
      guard(`listing of ${prefix}`, async () => {
        const { client, sdk } = await open();
        const keys: string[] = [];
        let token: string | undefined;
        do {
          const res = await client.send(new sdk.s3.ListObjectsV2Command({ Bucket: s.bucket, Prefix: prefix, ContinuationToken: token }));
          for (const o of res.Contents ?? []) if (o.Key) keys.push(o.Key);
          token = res.IsTruncated ? res.NextContinuationToken : undefined;
        } while (token);
        return keys;
      }),
    delete: (key) =>
      guard(`delete of ${key}`, async () => {
        const { client, sdk } = await open();
        await client.send(new sdk.s3.DeleteObjectCommand({ Bucket: s.bucket, Key: key }));
      }),
    close: () => made?.destroy(),
  };
}

/** The bucket from configuration; refused (exit 2) when none is set. */
export function objectStoreOf(o: Config['offsite']): ObjectStore {
  if (!o.bucket) throw new WbsyncError('config', 'offsite.bucket is not set', { hint: 'set offsite.bucket (and offsite.endpoint / forcePathStyle for S3-compatible stores) in the configuration' });
  return createS3Store({ bucket: o.bucket, prefix: o.prefix, region: o.region, forcePathStyle: o.forcePathStyle, timeoutMs: o.timeoutSeconds * 1000, timeoutSetting: 'offsite.timeoutSeconds', ...(o.endpoint ? { endpoint: o.endpoint } : {}) });
}

/** Reads a stream to a string (manifests are small). */
export async function readText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

export { Readable };
