// Offsite copies: a consistent standalone copy of the latest complete snapshot (what `export`
// makes), streamed through age encryption to object storage — never held in memory — with a small
// manifest beside it (snapshot, time, sizes, SHA-256 of the ciphertext, counts). Fetch and verify
// read them back: the hash first, then (with an identity) the decrypted database itself.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { shown } from '../domain/display-text.js';
import { WbsyncError } from '../domain/errors.js';
import { applyPolicy, isEmptyPolicy, type RetentionPolicy } from '../store/retention/index.js';
import { checkCopy, copyRowCounts } from '../store/export/index.js';
import type { Store } from '../store/port.js';
import { Digest, decryptStream, encryptStream } from './age-stream.js';
import { readText, type ObjectStore } from './object-store.js';

export const MANIFEST_FORMAT = 'wbsync-offsite-1';

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  snapshot: number;
  /** When the snapshot finished (the state the copy holds). */
  takenAt: string;
  pushedAt: string;
  /** The encrypted copy's key in the bucket. */
  object: string;
  plainBytes: number;
  bytes: number;
  sha256: string;
  counts: Record<string, number>;
  recipients: string[];
}

const COUNTED = ['modules', 'collections', 'columns', 'records', 'cells', 'amendments', 'automations', 'members'];

/** A private scratch folder (0700) removed afterwards, whatever happens. */
async function withScratch<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wbsync-offsite-'));
  fs.chmodSync(dir, 0o700);
  try {
    return await run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const stamp = (iso: string): string => iso.replace(/[:.]/g, '-');

/** Bytes through so far, of about `total` (the plain size), for a progress line. */
export type OnBytes = (bytes: number, total: number) => void;

export async function pushCopy(store: Store, objects: ObjectStore, settings: { prefix: string; recipients: readonly string[] }, now: Date, onBytes?: OnBytes): Promise<Manifest> {
  if (!settings.recipients.length) {
    throw new WbsyncError('config', 'offsite.recipients is empty: copies are only ever written encrypted', { hint: "add an age public key (age-keygen prints it as 'public key: age1…'); keep the secret key away from this host" });
  }
  const latest = store.latestCompleteSnapshot();
  if (latest === null) throw new WbsyncError('usage', 'no complete snapshot to copy yet', { hint: "run 'wbsync sync' first" });
  const info = store.getSnapshot(latest)!;
  return withScratch(async (dir) => {
    const file = path.join(dir, 'copy.db');
    await store.exportTo(file, latest);
    const counts = copyRowCounts(file, COUNTED);
    const plainBytes = fs.statSync(file).size;
    const base = `${settings.prefix}copies/${String(latest).padStart(8, '0')}-${stamp(info.finishedAt ?? info.startedAt)}-${randomBytes(3).toString('hex')}`;
    const object = `${base}.wbsync.db.age`;
    const digest = new Digest(onBytes && ((n) => onBytes(n, plainBytes)));
    const cipher = await encryptStream(fs.createReadStream(file), settings.recipients);
    await objects.put(object, cipher.pipe(digest), 'application/octet-stream');
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      snapshot: latest,
      takenAt: info.finishedAt ?? info.startedAt,
      pushedAt: now.toISOString(),
      object,
      plainBytes,
      bytes: digest.bytes,
      sha256: digest.hex(),
      counts,
      recipients: [...settings.recipients],
    };
    // the manifest last: a copy without one is an upload that did not finish, never listed
    await objects.put(`${settings.prefix}manifests/${path.basename(base)}.json`, JSON.stringify(manifest, null, 2), 'application/json');
    return manifest;
  });
}

/** Every copy's manifest, oldest first. */
export async function listCopies(objects: ObjectStore, prefix: string): Promise<(Manifest & { manifestKey: string })[]> {
  const keys = (await objects.list(`${prefix}manifests/`)).filter((k) => k.endsWith('.json'));
  const out: (Manifest & { manifestKey: string })[] = [];
  for (const key of keys) {
    const m = JSON.parse(await readText(await objects.get(key))) as Manifest;
    if (m.format !== MANIFEST_FORMAT) continue;
    out.push({ ...m, manifestKey: key });
  }
  return out.sort((a, b) => (a.takenAt === b.takenAt ? a.snapshot - b.snapshot : a.takenAt < b.takenAt ? -1 : 1));
}

function pick(copies: (Manifest & { manifestKey: string })[], snapshot: number | undefined, where: string): Manifest & { manifestKey: string } {
  const found = snapshot === undefined ? copies.at(-1) : [...copies].reverse().find((c) => c.snapshot === snapshot);
  if (!found) {
    throw new WbsyncError('usage', snapshot === undefined ? `no offsite copy at ${where}` : `no offsite copy of snapshot ${snapshot} at ${where}`, {
      hint: copies.length ? `copies of snapshots: ${copies.map((c) => c.snapshot).join(', ')}` : "push one with 'wbsync offsite push'",
    });
  }
  return found;
}

/** Downloads, checks the hash, decrypts to `out` (0600, written under a temporary name first) and
 * checks the database opens and passes SQLite's integrity check. */
export async function fetchCopy(objects: ObjectStore, prefix: string, opts: { snapshot?: number; identities: readonly string[]; out: string; overwrite?: boolean; onBytes?: OnBytes }): Promise<Manifest> {
  const target = path.resolve(opts.out);
  if (!opts.overwrite && fs.existsSync(target)) throw new WbsyncError('usage', `--out ${target} exists already`, { hint: 'choose another file (fetch never overwrites)' });
  const m = pick(await listCopies(objects, prefix), opts.snapshot, objects.where);
  const tmp = `${target}.part-${randomBytes(4).toString('hex')}`;
  try {
    const onBytes = opts.onBytes;
    const digest = new Digest(onBytes && ((n) => onBytes(n, m.bytes)));
    // (pipe() does not pass an error on: a download failing mid-body would leave the rest waiting)
    const download = await objects.get(m.object);
    download.on('error', (e) => digest.destroy(e));
    const body = download.pipe(digest);
    const plain = await decryptStream(body, opts.identities);
    await pipeline(plain, fs.createWriteStream(tmp, { mode: 0o600, flags: 'wx' }));
    if (digest.hex() !== m.sha256) throw new WbsyncError('storage', `offsite copy ${m.object} does not match its manifest (SHA-256 ${digest.hex()}, manifest ${m.sha256})`, { hint: 'the object was altered or damaged: fetch an older copy (--snapshot)' });
    checkCopy(tmp, 'the decrypted copy');
    fs.renameSync(tmp, target);
    return m;
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    if (e instanceof WbsyncError) throw e;
    throw new WbsyncError('storage', `offsite copy ${shown(m.object)} could not be read back: ${shown((e as Error).message)}`, { hint: 'an altered object fails age authentication: fetch an older copy (--snapshot)', cause: e });
  }
}

export interface VerifyOutcome {
  snapshot: number;
  object: string;
  ok: boolean;
  problem?: string;
  decrypted: boolean;
}

/** Each copy: its object's SHA-256 against the manifest; with identities, the newest is also read
 * back in full (downloaded, decrypted, integrity-checked) — a restore drill of the copy that counts. */
export async function verifyCopies(objects: ObjectStore, prefix: string, identities: readonly string[] = []): Promise<VerifyOutcome[]> {
  const out: VerifyOutcome[] = [];
  const copies = await listCopies(objects, prefix);
  for (const [i, m] of copies.entries()) {
    const readBack = identities.length > 0 && i === copies.length - 1;
    try {
      if (readBack) {
        await withScratch(async (dir) => {
          await fetchCopy(objects, prefix, { snapshot: m.snapshot, identities, out: path.join(dir, 'check.db') });
        });
      } else {
        const digest = new Digest();
        await pipeline(await objects.get(m.object), digest, async function* (src) {
          for await (const _ of src) void _;
        });
        if (digest.hex() !== m.sha256) throw new Error(`SHA-256 ${digest.hex()} differs from the manifest's ${m.sha256}`);
      }
      out.push({ snapshot: m.snapshot, object: m.object, ok: true, decrypted: readBack });
    } catch (e) {
      out.push({ snapshot: m.snapshot, object: m.object, ok: false, problem: (e as Error).message, decrypted: readBack });
    }
  }
  return out;
}

/** Remote retention (the policy language of prune): forgets copies no rule keeps; never the newest. */
export async function pruneCopies(objects: ObjectStore, prefix: string, policy: RetentionPolicy, now: Date): Promise<number[]> {
  if (isEmptyPolicy(policy)) return [];
  const copies = await listCopies(objects, prefix);
  const verdicts = applyPolicy(copies.map((c, i) => ({ id: i, at: c.takenAt })), policy, now);
  const newest = copies.length - 1;
  const gone: number[] = [];
  for (const v of verdicts) {
    if (v.keep || v.id === newest) continue;
    const c = copies[v.id]!;
    // the manifest first: a copy without one is not listed, so a half-done delete hides nothing kept
    await objects.delete(c.manifestKey);
    await objects.delete(c.object);
    gone.push(c.snapshot);
  }
  return gone;
}
