// The fleet copy: how a tenant's whole database (every snapshot, all its history) travels between
// workers. A consistent copy (VACUUM INTO from one read transaction, into a private scratch file)
// is hashed, encrypted with age to the fleet recipient and streamed to object storage, with a
// manifest beside it written last (a copy without one is an upload that did not finish, never
// listed). The way back: download, decrypt with the fleet identity, check the plaintext's SHA-256
// against the manifest, run the store's own verify, and only then rename it into place — never over
// a database that holds newer snapshots than the copy.
//
// Unlike an offsite copy (one snapshot's views, encrypted to keys no worker holds), a fleet copy is
// the working database, readable by every worker that holds the fleet identity.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { shown } from '../domain/display-text.js';
import { WbsyncError } from '../domain/errors.js';
import { Digest, decryptStream, encryptStream, isRecipient } from '../offsite/age-stream.js';
import { readText, type ObjectStore } from '../offsite/object-store.js';
import { checkCopyOffLoop } from './copy-verify.js';
import { ensureDir } from '../store/file-modes.js';
import { ownerAlive } from '../store/write/owner-alive.js';

export const FLEET_COPY_FORMAT = 'wbsync-fleet-copy-1';
const TENANT = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface FleetCopyManifest {
  format: typeof FLEET_COPY_FORMAT;
  tenant: string;
  /** The newest complete snapshot in the copy (null: none yet). */
  snapshot: number | null;
  /** The highest snapshot id in the copy, complete or not (what "newer" is measured by). */
  lastSnapshotId: number;
  /** When the newest complete snapshot finished. */
  snapshotAt: string | null;
  /** When the copy was taken. */
  takenAt: string;
  /** The encrypted copy's key. */
  object: string;
  /** SHA-256 and size of the plaintext database. */
  sha256: string;
  bytes: number;
  /** Size of the encrypted object. */
  cipherBytes: number;
  worker: string;
  epoch: number;
}

export interface ListedCopy extends FleetCopyManifest {
  manifestKey: string;
}

/** `<root>fleet/<tenant>/`: where a tenant's copies are (root: fleet.copies.prefix). */
export function tenantPrefix(tenant: string, root = ''): string {
  if (!TENANT.test(tenant)) throw new WbsyncError('usage', `not a tenant name: ${JSON.stringify(tenant)}`, { hint: 'tenant names are lower-case letters, digits and dashes (at most 63)' });
  return `${root}fleet/${tenant}/`;
}

/** A private scratch folder (0700) removed afterwards, whatever happens. */
async function withScratch<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wbsync-fleet-'));
  fs.chmodSync(dir, 0o700);
  try {
    return await run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface Lineage {
  snapshot: number | null;
  snapshotAt: string | null;
  lastSnapshotId: number;
  running: Array<{ id: number; owner_pid: number | null; owner_host: string | null }>;
}

function lineageOf(db: Database.Database): Lineage {
  const last = db.prepare(`SELECT coalesce(max(id), 0) FROM snapshot_runs`).pluck().get() as number;
  const done = db.prepare(`SELECT id, finished_at FROM snapshot_runs WHERE status IN ('complete', 'partial') ORDER BY id DESC LIMIT 1`).get() as { id: number; finished_at: string } | undefined;
  const running = db.prepare(`SELECT id, owner_pid, owner_host FROM snapshot_runs WHERE status = 'running'`).all() as Lineage['running'];
  return { snapshot: done?.id ?? null, snapshotAt: done?.finished_at ?? null, lastSnapshotId: last, running };
}

/** VACUUM INTO on a thread of its own: a large database takes seconds, and the worker's event loop
 * (heartbeats, other tenants' passes, /healthz) must not wait on it. */
const VACUUM_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.lib);
let db;
try {
  db = new Database(workerData.src, { readonly: true, fileMustExist: true, timeout: 10000 });
  db.prepare('VACUUM INTO ?').run(workerData.out);
  parentPort.postMessage({ ok: true });
} catch (e) {
  parentPort.postMessage({ ok: false, message: String((e && e.message) || e), code: e && e.code });
} finally {
  if (db) db.close();
}`;

function vacuumInto(src: string, out: string): Promise<void> {
  const lib = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const w = new Worker(VACUUM_THREAD, { eval: true, workerData: { lib, src, out } });
    let answered = false;
    w.once('message', (m: { ok: boolean; message?: string; code?: string }) => {
      answered = true;
      if (m.ok) resolve();
      else reject(new WbsyncError('storage', `copying ${src}: ${m.message ?? 'failed'}`, { hint: m.code === 'SQLITE_FULL' ? 'the temporary folder is full: make room (the copy needs about the database\'s size)' : 'run wbsync verify on the tenant\'s database' }));
    });
    w.once('error', (e) => reject(e));
    w.once('exit', (code) => {
      if (!answered) reject(new WbsyncError('internal', `the copy thread for ${src} exited (${code}) without an answer`));
    });
  });
}

/** A consistent copy of `dbPath` into `out` (0600): one read transaction (VACUUM INTO), whatever
 * writes go on; refused when the copy holds a snapshot a live process is still writing. */
export async function consistentCopy(dbPath: string, out: string): Promise<Lineage> {
  if (!fs.existsSync(dbPath)) throw new WbsyncError('usage', `no database at ${dbPath}`, { hint: 'the tenant has no database on this worker' });
  await vacuumInto(dbPath, out); // the folder is private (0700); the file is made 0600 below
  fs.chmodSync(out, 0o600);
  const copy = new Database(out, { fileMustExist: true });
  try {
    const lineage = lineageOf(copy);
    const live = lineage.running.filter((r) => ownerAlive(r.owner_pid, r.owner_host));
    if (live.length) {
      throw new WbsyncError('locked', `the database is mid-pass (snapshot ${live.map((r) => r.id).join(', ')} running in pid ${live[0]!.owner_pid})`, { hint: 'a fleet copy is taken between passes: stop the tenant first', retryable: true });
    }
    return lineage;
  } finally {
    copy.close();
  }
}

const stamp = (iso: string): string => iso.replace(/[:.]/g, '-');

export interface WriteCopyOptions {
  tenant: string;
  dbPath: string;
  objects: ObjectStore;
  /** fleet.copies.prefix */
  root?: string;
  recipient: string;
  worker: string;
  epoch: number;
  now: Date;
}

/** Writes a fleet copy of the tenant's database; returns its manifest (with the manifest's key). */
export async function writeFleetCopy(o: WriteCopyOptions): Promise<ListedCopy> {
  if (!isRecipient(o.recipient)) throw new WbsyncError('config', 'fleet.copyRecipient is not an age public key', { hint: "set it to the 'public key: age1…' line age-keygen printed for the fleet identity" });
  const prefix = tenantPrefix(o.tenant, o.root);
  return withScratch(async (dir) => {
    const file = path.join(dir, 'copy.db');
    const lineage = await consistentCopy(o.dbPath, file);
    const plain = new Digest();
    const cipher = new Digest();
    const encrypted = await encryptStream(fs.createReadStream(file).pipe(plain), [o.recipient]);
    const base = `${prefix}${stamp(o.now.toISOString())}-${lineage.lastSnapshotId}-${randomBytes(3).toString('hex')}`;
    const object = `${base}.db.age`;
    await o.objects.put(object, encrypted.pipe(cipher), 'application/octet-stream');
    const manifest: FleetCopyManifest = {
      format: FLEET_COPY_FORMAT,
      tenant: o.tenant,
      snapshot: lineage.snapshot,
      lastSnapshotId: lineage.lastSnapshotId,
      snapshotAt: lineage.snapshotAt,
      takenAt: o.now.toISOString(),
      object,
      sha256: plain.hex(),
      bytes: plain.bytes,
      cipherBytes: cipher.bytes,
      worker: o.worker,
      epoch: o.epoch,
    };
    if (manifest.bytes !== fs.statSync(file).size) throw new WbsyncError('internal', `fleet copy of ${o.tenant}: ${manifest.bytes} bytes encrypted of ${fs.statSync(file).size}`);
    const manifestKey = `${base}.json`;
    await o.objects.put(manifestKey, JSON.stringify(manifest, null, 2), 'application/json');
    return { ...manifest, manifestKey };
  });
}

/** The tenant's fleet copies, oldest first (by the time taken, then the epoch). */
export async function listFleetCopies(objects: ObjectStore, tenant: string, root = ''): Promise<ListedCopy[]> {
  const prefix = tenantPrefix(tenant, root);
  const keys = (await objects.list(prefix)).filter((k) => k.endsWith('.json'));
  const out: ListedCopy[] = [];
  for (const key of keys) {
    let m: FleetCopyManifest;
    try {
      m = JSON.parse(await readText(await objects.get(key))) as FleetCopyManifest;
    } catch {
      continue; // not a manifest of ours
    }
    if (m.format !== FLEET_COPY_FORMAT || m.tenant !== tenant || !m.object?.startsWith(prefix)) continue;
    out.push({ ...m, manifestKey: key });
  }
  return out.sort((a, b) => (a.takenAt === b.takenAt ? a.epoch - b.epoch : a.takenAt < b.takenAt ? -1 : 1));
}

export interface PlaceOptions {
  tenant: string;
  objects: ObjectStore;
  root?: string;
  identities: readonly string[];
  /** Where the tenant's database goes (`<data>/tenants/<name>/wbsync.db`). */
  dbPath: string;
  /** A given copy (its manifest key, as a move records it); default: the newest. */
  manifestKey?: string;
}

export interface Placed {
  manifest: ListedCopy;
  /** The database that was there before, moved aside (never deleted); null when there was none. */
  setAside: string | null;
}

/** Fetches a fleet copy and makes it the tenant's database (see the file's head for the checks). */
export async function placeFleetCopy(o: PlaceOptions): Promise<Placed> {
  const copies = await listFleetCopies(o.objects, o.tenant, o.root);
  const m = o.manifestKey ? copies.find((c) => c.manifestKey === o.manifestKey) : copies.at(-1);
  if (!m) {
    throw new WbsyncError('usage', o.manifestKey ? `no fleet copy ${o.manifestKey} of tenant ${o.tenant} at ${o.objects.where}` : `no fleet copy of tenant ${o.tenant} at ${o.objects.where}`, {
      hint: copies.length ? `copies: ${copies.map((c) => c.manifestKey).join(', ')}` : 'a copy is written when a tenant moves (fleet drain) and after its passes',
    });
  }
  const target = path.resolve(o.dbPath);
  ensureDir(path.dirname(target));
  refuseNewer(target, m);
  const tmp = `${target}.fleet-${randomBytes(4).toString('hex')}`;
  try {
    const cipher = new Digest();
    const plain = new Digest();
    // (pipe() does not pass an error on: a download failing mid-body would leave the rest waiting)
    const download = await o.objects.get(m.object);
    download.on('error', (e) => cipher.destroy(e));
    const body = download.pipe(cipher);
    const decrypted = await decryptStream(body, o.identities);
    await pipeline(decrypted, plain, fs.createWriteStream(tmp, { mode: 0o600, flags: 'wx' }));
    if (plain.hex() !== m.sha256 || plain.bytes !== m.bytes) {
      throw new WbsyncError('storage', `fleet copy ${m.object} does not match its manifest (SHA-256 ${plain.hex()}, ${plain.bytes} bytes; manifest ${m.sha256}, ${m.bytes} bytes)`, { hint: 'the object or its manifest was altered: adopt from an older copy' });
    }
    await verifyCopy(tmp, m);
    const setAside = setAsideExisting(target, m);
    fs.renameSync(tmp, target);
    return { manifest: m, setAside };
  } catch (e) {
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
    if (e instanceof WbsyncError) throw e;
    throw new WbsyncError('storage', `fleet copy ${shown(m.object)} could not be read back: ${shown((e as Error).message)}`, { hint: 'an altered object fails age authentication: adopt from an older copy', cause: e });
  }
}

/** The store's own verify on the decrypted file (opened read-only: the checked bytes are placed), on
 * a thread of its own (copy-verify.ts): it reads the whole file. */
async function verifyCopy(file: string, m: FleetCopyManifest): Promise<void> {
  const got = await checkCopyOffLoop(file);
  if (!got.ok) throw new WbsyncError('storage', `fleet copy ${shown(m.object)} fails verify: ${got.problems.map((p) => `${p.check}: ${shown(p.message)}`).join('; ')}`, { hint: 'adopt from an older copy' });
  if (got.lastSnapshotId !== m.lastSnapshotId) throw new WbsyncError('storage', `fleet copy ${m.object} holds snapshots up to ${got.lastSnapshotId}, its manifest says ${m.lastSnapshotId}`);
}

/** Refuses to replace a database that holds snapshots the copy does not. */
function refuseNewer(target: string, m: FleetCopyManifest): void {
  if (!fs.existsSync(target)) return;
  const db = new Database(target, { readonly: true, fileMustExist: true, timeout: 10_000 });
  let have: Lineage;
  try {
    have = lineageOf(db);
  } finally {
    db.close();
  }
  const newer = have.lastSnapshotId > m.lastSnapshotId || (have.snapshotAt !== null && m.snapshotAt !== null && have.snapshotAt > m.snapshotAt) || (have.snapshotAt !== null && m.snapshotAt === null);
  if (newer) {
    throw new WbsyncError('restore_refused', `${target} is newer than the fleet copy (snapshots up to ${have.lastSnapshotId}, last complete ${have.snapshotAt ?? 'none'}; the copy: up to ${m.lastSnapshotId}, ${m.snapshotAt ?? 'none'})`, {
      hint: 'this worker has history the copy lacks: run the tenant here, or move that database away yourself if it is really to be discarded',
    });
  }
}

/** Moves the database that is there (with its WAL folded in) aside as `<file>.replaced-<time>`. */
function setAsideExisting(target: string, m: FleetCopyManifest): string | null {
  if (!fs.existsSync(target)) {
    // a -wal or -shm without its database would be applied to the new file: never keep one
    for (const f of [`${target}-wal`, `${target}-shm`, `${target}-journal`]) fs.rmSync(f, { force: true });
    return null;
  }
  refuseNewer(target, m); // again, just before: nothing may have grown since the download began
  const db = new Database(target, { fileMustExist: true, timeout: 10_000 });
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close(); // the last connection to close folds the WAL in and removes it
  }
  if (fs.existsSync(`${target}-wal`)) throw new WbsyncError('locked', `${target} is still open elsewhere (its -wal remains)`, { hint: 'stop whatever has the tenant open on this worker first' });
  const aside = `${target}.replaced-${stamp(new Date().toISOString())}`;
  fs.renameSync(target, aside);
  fs.rmSync(`${target}-shm`, { force: true });
  return aside;
}
