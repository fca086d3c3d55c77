// Where offsite copies go: a small port over object storage, and its S3 implementation (AWS SDK v3;
// multipart uploads streamed through lib-storage). Checksums only "when required", so MinIO, R2 and
// other S3-compatible stores work. Credentials come from the SDK's standard chain (AWS_* variables,
// shared files, instance roles) — never from wbsync's configuration or flags.

import { PassThrough, Readable } from 'node:stream';
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
}

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Attempts per request (the SDK's standard retry): a stalled store costs at most this many timeouts. */
export const MAX_ATTEMPTS = 3;

/** The SDK's error, as a WbsyncError that names the operation and the bucket, not a secret. */
function storageError(what: string, where: string, e: unknown, s: S3Settings): WbsyncError {
  const err = e as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = err.$metadata?.httpStatusCode;
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
        await new sdk.storage.Upload({ client, params: { Bucket: s.bucket, Key: key, Body: body, ContentType: contentType }, partSize: 8 * 1024 * 1024, queueSize: 2 }).done();
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
