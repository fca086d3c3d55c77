// What the activity feed says of records: per record id, its module, latest collection and name,
// and when it was created. Lets a pass find records that no listing shows (archived before the
// first backup, or archived and named since) and store them as the feed describes them. Pure and
// order-independent: the newest row wins field by field, whichever order the rows came in (a full
// pass reads the feed in parallel slices).

import { SUB_RECORD_CREATION, type Activity, type BoardRecord } from '../domain/entities.js';

interface Stamped<T> {
  value: T;
  at: string;
  /** The snapshot that first stored the row; FRESH for a row this backup had not stored before. */
  storedAt: number;
}

/** A row this pass is the first to read. */
const FRESH = Number.POSITIVE_INFINITY;

interface Trace {
  moduleId: Stamped<string> | null;
  /** null as the value: moved into a collection that is gone (collectionOf). */
  collectionId: Stamped<string | null> | null;
  name: Stamped<string> | null;
  /** The same two, from fresh rows only (what the overlay weighs first). */
  freshCollectionId: Stamped<string | null> | null;
  freshName: Stamped<string> | null;
  createdAt: string | null;
  /** A creation row said "sub-record": without its parent such a record cannot be placed. */
  subRecord: boolean;
}

/** `cur`, or a stamp of `value` when the row is newer (undefined: the row says nothing of it). */
function newer<T>(cur: Stamped<T> | null, value: T | undefined, at: string, storedAt: number): Stamped<T> | null {
  if (value === undefined) return cur;
  if (!cur || at > cur.at || (at === cur.at && String(value) > String(cur.value))) return { value, at, storedAt };
  return cur;
}

/**
 * Whether a row says something newer than a stored version updated at `since` and stored by
 * snapshot `versionAt` (undefined: not known). The service stamps a record's `updatedAt` before it
 * logs the row (two writes later), so a row's time alone can look newer than the very version it
 * describes — or than a later one, when several writes race (four renames in one millisecond
 * logged in another order than applied). A row an earlier pass stored was in the feed when that
 * pass read the version, so it counts only when stored after the version: what a pass first
 * reads is what can be new to it — the rule the incremental pass keeps by reading only new rows.
 */
function newerThan<T>(s: Stamped<T> | null, since: string, versionAt: number | undefined): s is Stamped<T> {
  if (!s || s.at <= since) return false;
  return s.storedAt === FRESH || (versionAt !== undefined && s.storedAt > versionAt);
}

/** The row's record name: renames carry it in `after`; other record rows in `targetName`. */
function nameOf(row: Activity): string | null {
  if (row.action === 'record_updated' && row.after) {
    try {
      const v: unknown = JSON.parse(row.after);
      if (typeof v === 'string') return v;
    } catch {
      // not JSON text: fall back to the target name
    }
  }
  return row.action.startsWith('record_') ? row.targetName : null;
}

/**
 * The collection a record row places the record in: its collection; for a move whose collection
 * is null, null — the service answers a deleted collection as null, so the record moved into a
 * collection that is gone since (it stays there, unreachable, until moved again); undefined when
 * the row says nothing of it.
 */
function collectionOf(row: Activity): string | null | undefined {
  if (!row.action.startsWith('record_')) return undefined;
  if (row.collectionId) return row.collectionId;
  return row.action === 'record_moved' ? null : undefined;
}

export class RecordTrace {
  private readonly traces = new Map<string, Trace>();

  /**
   * Takes feed rows. `storedAt` says which of them this backup stored before, and by which
   * snapshot (a map by row id, or one snapshot for all); the others are fresh.
   */
  add(rows: Iterable<Activity>, storedAt?: ReadonlyMap<string, number> | number): void {
    for (const row of rows) {
      if (!row.recordId) continue;
      let t = this.traces.get(row.recordId);
      if (!t) {
        t = { moduleId: null, collectionId: null, name: null, freshCollectionId: null, freshName: null, createdAt: null, subRecord: false };
        this.traces.set(row.recordId, t);
      }
      const at = typeof storedAt === 'number' ? storedAt : (storedAt?.get(row.id) ?? FRESH);
      const collectionId = collectionOf(row);
      const name = nameOf(row) ?? undefined;
      t.moduleId = newer(t.moduleId, row.moduleId ?? undefined, row.createdAt, at);
      t.collectionId = newer(t.collectionId, collectionId, row.createdAt, at);
      t.name = newer(t.name, name, row.createdAt, at);
      if (at === FRESH) {
        t.freshCollectionId = newer(t.freshCollectionId, collectionId, row.createdAt, at);
        t.freshName = newer(t.freshName, name, row.createdAt, at);
      }
      if (row.action === 'record_created' && (t.createdAt === null || row.createdAt < t.createdAt)) t.createdAt = row.createdAt;
      if (row.action === 'record_created' && SUB_RECORD_CREATION.test(row.message ?? '')) t.subRecord = true;
    }
  }

  /** Record ids named by rows of `moduleId` (rows without a module are not attributed). */
  idsInModule(moduleId: string): string[] {
    const out: string[] = [];
    for (const [id, t] of this.traces) if (t.moduleId?.value === moduleId) out.push(id);
    return out;
  }

  /** For a record whose creation row said "sub-record": the collection the row names (its parent's),
   * or null when it names none; undefined for anything else. */
  subRecordCollection(id: string): string | null | undefined {
    const t = this.traces.get(id);
    return t?.subRecord ? (t.collectionId?.value ?? null) : undefined;
  }

  get size(): number {
    return this.traces.size;
  }

  /**
   * A stored record brought up to what newer rows say of it: a rename or a move logged after the
   * version we hold (the record then left every listing, so no listing told us). `versionAt`: the
   * snapshot that stored that version, when known (see newerThan).
   */
  overlay(base: BoardRecord, versionAt?: number): BoardRecord {
    const t = this.traces.get(base.id);
    if (!t) return base;
    const since = base.updatedAt ?? '';
    const pick = <T>(all: Stamped<T> | null, fresh: Stamped<T> | null): Stamped<T> | null =>
      newerThan(all, since, versionAt) ? all : newerThan(fresh, since, versionAt) ? fresh : null;
    const name = pick(t.name, t.freshName)?.value ?? base.name;
    const moved = base.parentRecordId === null ? pick(t.collectionId, t.freshCollectionId) : null;
    const collectionId = moved ? moved.value : base.collectionId;
    if (name === base.name && collectionId === base.collectionId) return base;
    return { ...base, name, collectionId, raw: { ...base.raw, name, ...(collectionId === null ? {} : { collectionName: collectionId }) } };
  }

  /**
   * A record as the feed describes it, for one no listing shows and the store does not hold. The
   * feed names no parent: a record whose creation row says it is a sub-record is left out (its
   * parent's listing brings it when the parent is reachable); any other is kept as a top-level
   * record of its latest collection. Null when the feed names no collection for it.
   */
  synthesize(id: string, workspaceId: string, moduleId: string): BoardRecord | null {
    const t = this.traces.get(id);
    if (!t || t.subRecord || t.moduleId?.value !== moduleId || !t.collectionId?.value) return null;
    const name = t.name?.value ?? '';
    return {
      id,
      workspaceId,
      moduleId,
      collectionId: t.collectionId.value,
      parentRecordId: null,
      name,
      position: null,
      isCompleted: false,
      isArchived: true,
      subRecordCount: 0,
      amendmentCount: 0,
      createdAt: t.createdAt,
      updatedAt: null,
      raw: { _id: id, name, collectionName: t.collectionId.value, module: moduleId, isArchived: true, source: 'activity' },
    };
  }
}
