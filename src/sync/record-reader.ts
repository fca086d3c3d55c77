// Reads records of one module into one write batch: deeply (cells, sub-records, amendments) for
// listed records that need it, and by id for records that left every listing (archived, or
// deleted). Nothing is marked gone by inference: a record is gone only when its own routes answer
// 404, and a sub-record's life follows its parent, not the collection id it carries.

import type { Amendment, BoardRecord, Cell } from '../domain/entities.js';
import { isWbsyncError } from '../domain/errors.js';
import type { ServiceClient } from '../api/port.js';
import type { GoneMark, Listing } from '../store/port.js';
import type { RecordTrace } from './record-trace.js';

/** Errors that end one record's reads (deleted mid-pass), not the module's. */
export function isGoneError(e: unknown): boolean {
  return isWbsyncError(e) && e.code === 'not_found';
}

export interface RecordReaderInit {
  client: ServiceClient;
  workspaceId: string;
  moduleId: string;
  /** The module's records as stored (current versions, archived included). */
  prevRecords: ReadonlyMap<string, BoardRecord>;
  /** Collections the module lists now: a top-level record elsewhere is unreachable. */
  liveCollections: ReadonlySet<string>;
  /** Whether a listed record must be read deeply. */
  needsDeep: (r: BoardRecord) => boolean;
  /** What the feed says of records (renames and moves after the version we hold; unknown ones). */
  trace?: RecordTrace | null;
  /** The snapshot that stored each of prevRecords (for the trace's overlay; see RecordTrace.overlay). */
  versionAt?: ReadonlyMap<string, number>;
  /** Records among ids that this backup stored once and later saw go: null for one that stays
   * gone (a feed row does not say that a record is reachable again), its last version for one the
   * feed shows moved or changed since (see Store.formerRecords). */
  formerRecords?: (ids: string[]) => Map<string, BoardRecord | null>;
  /** What an earlier reader of the same pass saw (a full pass reads feed-named records last). */
  after?: ReaderMemory;
  /**
   * A full pass's crawl: records outside every listing are not read yet but kept current (left out
   * of the listings' gone-marks) and listed in `deferred`, to be read once the whole feed is in —
   * what it says of them (a rename or a move before they left the listings) must be known first.
   */
  deferUnlisted?: boolean;
}

/** The ids a reader saw, to seed a later reader of the same module in the same pass. */
export interface ReaderMemory {
  seen: ReadonlySet<string>;
  subsRead: ReadonlySet<string>;
}

export class RecordReader {
  readonly records: BoardRecord[] = [];
  readonly cells: Cell[] = [];
  readonly amendments: Amendment[] = [];
  readonly listings: Listing[] = [];
  readonly gone: GoneMark[] = [];
  /** Ids listed by the service (top-level and sub-records) or read by id in this pass. */
  readonly seen: Set<string>;
  /** Parents whose sub-record listing was read (or known empty by its count) in this pass. */
  readonly subsRead: Set<string>;
  /** Requests spent on records outside the listings. */
  probes = 0;
  /** Records outside every listing left for a later reader (deferUnlisted). */
  readonly deferred: string[] = [];

  constructor(private readonly init: RecordReaderInit) {
    this.seen = new Set(init.after?.seen);
    this.subsRead = new Set(init.after?.subsRead);
  }

  memory(): ReaderMemory {
    return { seen: this.seen, subsRead: this.subsRead };
  }

  /** Listed top-level records: kept, and read deeply where needed. */
  async readListed(listed: readonly BoardRecord[]): Promise<void> {
    for (const r of listed) {
      this.records.push(r);
      this.seen.add(r.id);
    }
    await Promise.all(listed.filter(this.init.needsDeep).map((r) => this.readDeep(r)));
  }

  private async readDeep(r: BoardRecord): Promise<void> {
    const { client } = this.init;
    try {
      const [values, subs, amendments] = await Promise.all([
        client.listValues(r.id),
        r.subRecordCount > 0 ? client.listSubRecords(r.id) : Promise.resolve([] as BoardRecord[]),
        r.amendmentCount > 0 ? client.listAmendments(r.id) : Promise.resolve([] as Amendment[]),
      ]);
      this.keepContent(r.id, values, amendments);
      if (r.parentRecordId === null) await this.keepSubs(r.id, subs, this.init.needsDeep);
    } catch (e) {
      if (!isGoneError(e)) throw e;
      this.dropGone(r);
    }
  }

  /** Deleted while we read it: drop what we had of it from this batch and mark it gone. */
  private dropGone(r: BoardRecord): void {
    const at = this.records.indexOf(r);
    if (at >= 0) this.records.splice(at, 1);
    this.seen.delete(r.id);
    this.gone.push({ kind: 'record', id: r.id, cascade: true });
  }

  /**
   * Re-lists the sub-records of parents whose listing this pass has not read: listed ones, and
   * archived ones still reachable. For writes that only a module's `updatedAt` reveals (a
   * sub-record's completion, position or archive flag on the deployed service).
   */
  async recheckSubRecords(parents: Iterable<BoardRecord>): Promise<void> {
    const todo = [...parents].filter((p) => p.parentRecordId === null && !this.subsRead.has(p.id));
    const reachable = (p: BoardRecord): boolean =>
      this.seen.has(p.id) || (p.isArchived && p.collectionId !== null && this.init.liveCollections.has(p.collectionId));
    await Promise.all(
      todo.filter(reachable).map(async (p) => {
        try {
          this.probes++;
          const subs = await this.init.client.listSubRecords(p.id);
          await this.keepSubs(p.id, subs, this.init.needsDeep);
        } catch (e) {
          if (!isGoneError(e)) throw e;
          this.dropGone(p);
        }
      }),
    );
  }

  private keepContent(recordId: string, values: Cell[], amendments: Amendment[]): void {
    this.cells.push(...values);
    this.amendments.push(...amendments);
    this.listings.push({ kind: 'cell', recordId, ids: values.map((v) => v.id) });
    this.listings.push({ kind: 'amendment', recordId, ids: amendments.map((a) => a.id) });
  }

  /** A parent's sub-record listing; stored live sub-records missing from it are read by id. */
  private async keepSubs(parentId: string, subs: BoardRecord[], deep: (r: BoardRecord) => boolean): Promise<void> {
    this.subsRead.add(parentId);
    const listed = new Set(subs.map((s) => s.id));
    const missing = [...this.init.prevRecords.values()]
      .filter((s) => s.parentRecordId === parentId && !s.isArchived && !listed.has(s.id))
      .map((s) => s.id);
    const kept = this.init.deferUnlisted ? missing : [];
    this.listings.push({ kind: 'subrecord', parentRecordId: parentId, ids: [...listed, ...kept] });
    this.records.push(...subs);
    for (const s of subs) this.seen.add(s.id);
    await Promise.all([...subs.filter(deep).map((s) => this.readDeep(s)), ...missing.map((id) => this.readById(id, null))]);
  }

  /**
   * Records outside every listing: stored live ones that vanished, ones the feed names. Each is read
   * by id: an answer means archived (kept, with its cells, thread and sub-records); a 404 means gone.
   * Top-level records come first, so a sub-record is read only once its parent is known reachable.
   */
  async readUnlisted(ids: Iterable<string>): Promise<void> {
    const trace = this.init.trace ?? null;
    const todo = [...new Set(ids)].filter((id) => !this.seen.has(id));
    const unknown = todo.filter((id) => !this.init.prevRecords.has(id));
    const former = unknown.length && this.init.formerRecords ? this.init.formerRecords(unknown) : new Map<string, BoardRecord | null>();
    const bases = todo.map((id) => {
      const stored = this.init.prevRecords.get(id) ?? former.get(id);
      if (stored) return trace ? trace.overlay(stored, this.init.versionAt?.get(id)) : stored;
      return former.has(id) ? null : (trace?.synthesize(id, this.init.workspaceId, this.init.moduleId) ?? null);
    });
    const known = bases.filter((b): b is BoardRecord => b !== null);
    await Promise.all(known.filter((b) => b.parentRecordId === null).map((b) => this.readById(b.id, b)));
    await Promise.all(known.filter((b) => b.parentRecordId !== null).map((b) => this.readById(b.id, b)));
  }

  private async readById(id: string, given: BoardRecord | null): Promise<void> {
    if (this.seen.has(id)) return;
    const stored0 = this.init.prevRecords.get(id);
    const base = given ?? (stored0 && this.init.trace ? this.init.trace.overlay(stored0, this.init.versionAt?.get(id)) : stored0);
    if (!base) return;
    const stored = this.init.prevRecords.has(id);
    if (this.init.deferUnlisted && base.parentRecordId === null) {
      // where it lives now is for the feed to say: the later reader decides
      this.deferred.push(id);
      return;
    }
    if (base.parentRecordId === null) {
      // a top-level record whose collection is gone is unreachable (whatever its own routes answer)
      if (!base.collectionId || !this.init.liveCollections.has(base.collectionId)) {
        if (stored) this.gone.push({ kind: 'record', id, cascade: true });
        return;
      }
    } else if (!this.subsRead.has(base.parentRecordId)) {
      return; // its life follows its parent's, whose sub-records this pass did not read
    }
    if (this.init.deferUnlisted) {
      this.deferred.push(id);
      return;
    }
    this.seen.add(id);
    const { client } = this.init;
    try {
      this.probes++;
      const values = await client.listValues(id);
      const top = base.parentRecordId === null;
      this.probes += top ? 2 : 1;
      const [subs, amendments] = await Promise.all([
        top ? client.listSubRecords(id) : Promise.resolve([] as BoardRecord[]),
        client.listAmendments(id),
      ]);
      const counts = stored ? {} : { subRecordCount: subs.length, amendmentCount: amendments.filter((a) => !a.isDeleted).length };
      this.records.push({ ...base, ...counts, isArchived: true, raw: { ...base.raw, isArchived: true } });
      this.keepContent(id, values, amendments);
      if (top) await this.keepSubs(id, subs, () => true);
    } catch (e) {
      if (!isGoneError(e)) throw e;
      if (stored) this.gone.push({ kind: 'record', id, cascade: true });
    }
  }
}
