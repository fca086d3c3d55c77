// age encryption as Node streams (the `age-encryption` package, the reference TypeScript
// implementation): the daemon encrypts to public recipients only; decryption needs an identity
// file, read at recovery time. A digest stream hashes what passes through (the ciphertext).

import { createHash, type Hash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadable } from 'node:stream/web';
import { WbsyncError } from '../domain/errors.js';

/** Loaded on first use, like the S3 SDK: no other command pays for it. */
const loadAge = (): Promise<typeof import('age-encryption')> => import('age-encryption');

export async function encryptStream(plain: Readable, recipients: readonly string[]): Promise<Readable> {
  const age = await loadAge();
  const e = new age.Encrypter();
  for (const r of recipients) e.addRecipient(r);
  const out = await e.encrypt(Readable.toWeb(plain) as unknown as ReadableStream<Uint8Array>);
  return Readable.fromWeb(out as unknown as WebReadable<Uint8Array>);
}

/** The AGE-SECRET-KEY lines of an identity file (age-keygen's format: comments allowed). */
export function parseIdentities(text: string, file: string): string[] {
  const keys = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.startsWith('AGE-SECRET-KEY-'));
  if (!keys.length) throw new WbsyncError('usage', `--identity ${file}: no AGE-SECRET-KEY line in it`, { hint: 'give the file age-keygen wrote (the secret key, not the age1… recipient)' });
  return keys;
}

export async function decryptStream(cipher: Readable, identities: readonly string[]): Promise<Readable> {
  const age = await loadAge();
  const d = new age.Decrypter();
  for (const i of identities) d.addIdentity(i);
  try {
    const out = await d.decrypt(Readable.toWeb(cipher) as unknown as ReadableStream<Uint8Array>);
    return Readable.fromWeb(out as unknown as WebReadable<Uint8Array>);
  } catch (e) {
    if (e instanceof WbsyncError) throw e; // the download failed (a timeout), not the identity
    throw new WbsyncError('usage', `cannot decrypt: ${(e as Error).message}`, { hint: 'the identity must match one of the recipients the copy was encrypted to (offsite.recipients when it was pushed)' });
  }
}

/** A pass-through that hashes (SHA-256) and counts the bytes it carries. */
export class Digest extends Transform {
  private readonly hash: Hash = createHash('sha256');
  bytes = 0;
  /** `onBytes` sees the running count (a 'data' listener would set the stream flowing before its
   * consumer is attached, and the consumer would miss what went by). */
  constructor(private readonly onBytes?: (bytes: number) => void) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    this.onBytes?.(this.bytes);
    done(null, chunk);
  }
  private done: string | null = null;
  /** The digest of everything that passed (call once the stream has ended; repeatable). */
  hex(): string {
    this.done ??= this.hash.digest('hex');
    return this.done;
  }
}

/** Checks an age recipient's form (age1 + bech32). */
export function isRecipient(s: string): boolean {
  return /^age1[02-9ac-hj-np-z]{58}$/.test(s);
}
