// The content part of a restore plan — records, sub-records, cells, amendment threads, archival —
// shared by `restore module` (everything new) and `restore records` (into a live module). Pure.

import type { Amendment, BoardRecord, Cell, Column } from '../../domain/entities.js';
import { cellData } from '../../domain/cell-change.js';
import type { NotRestored, Phase, Step } from '../engine/plan-steps.js';
import { remappableCell } from '../engine/remap.js';
import { serviceOrder, threadOrder, tieChains } from '../engine/sibling-order.js';

/** Why a record may not sit where it sat: archived before the first backup, no listing ever showed
 * its position (it is recreated or moved without one, and the service puts it after the others). */
export const POSITION_UNSEEN = 'its position was never seen (archived before the first backup): the service puts it after the others';

export interface ContentInput {
  /** Records and sub-records to create (sub-records of records not created are reported). */
  records: BoardRecord[];
  /** Live parents a sub-record may be created under although this plan does not create them
   * (rollback: a sub-record deleted on its own). */
  liveParents?: ReadonlyMap<string, BoardRecord>;
  cells: Cell[];
  amendments: Amendment[];
  /** Columns the cells may go to (those not here are reported). */
  columns: Column[];
  /** The collection (an id the journal maps) a top-level record goes to; null: not restorable. */
  collectionOf: (r: BoardRecord) => string | null;
  /** Whether a collection id can be named in a write (restored by this plan, or live). */
  collectionExists: (collectionId: string) => boolean;
  moduleId: string;
  workspaceId: string;
  internal: ReadonlySet<string>;
  /** Ids of modules restored earlier → their copies. */
  ext: <T>(v: T) => T;
  foreignModules: (v: unknown) => string[];
  moduleName: (id: string) => string;
  attribution: string;
  userNames?: ReadonlyMap<string, string>;
  /** Delete sub-record columns the service seeds (a new module only: never a user's live ones). */
  pruneSeeded: boolean;
}

export function attributionLine(template: string, author: string, createdAt: string): string {
  return template.split('{author}').join(author).split('{createdAt}').join(createdAt);
}

function withAttribution(message: string, line: string): string {
  if (!line) return message;
  return message ? `${message}\n\n${line}` : line;
}

/** What the content phases share while they are laid out, in order: what they count, what they
 * leave out (and why), which records this plan creates, and where sub-records go back. */
interface ContentPlan {
  input: ContentInput;
  phases: Phase[];
  counts: Record<string, number>;
  notRestored: NotRestored[];
  /** Records and sub-records this plan creates. */
  restored: Set<string>;
  /** Sub-records put back in a collection that is not their parent's. */
  placed: Map<string, string>;
  recordsById: ReadonlyMap<string, BoardRecord>;
  parentOf(r: BoardRecord): BoardRecord | undefined;
  count(k: string): void;
  phase(name: string, steps: Step[]): void;
}

function contentPlan(input: ContentInput): ContentPlan {
  const recordsById = new Map(input.records.map((r) => [r.id, r]));
  const liveParents = input.liveParents ?? new Map<string, BoardRecord>();
  const p: ContentPlan = {
    input,
    phases: [],
    counts: {},
    notRestored: [],
    restored: new Set<string>(),
    placed: new Map<string, string>(),
    recordsById,
    parentOf: (r) => (r.parentRecordId === null ? undefined : (recordsById.get(r.parentRecordId) ?? liveParents.get(r.parentRecordId))),
    count: (k) => {
      p.counts[k] = (p.counts[k] ?? 0) + 1;
    },
    phase: (name, steps) => {
      if (steps.length) p.phases.push({ name, steps });
    },
  };
  return p;
}

function recordThen(r: BoardRecord): { position?: number; isCompleted?: boolean } {
  return {
    ...(r.position !== null ? { position: r.position } : {}),
    ...(r.isCompleted ? { isCompleted: true } : {}),
  };
}

/** Records of a collection are created concurrently; each one's position is then fixed with a PUT.
 * Records sharing a position in a collection are created one after another, oldest first. */
function planTopRecords(p: ContentPlan, tops: BoardRecord[]): void {
  const { input, notRestored } = p;
  const recordTies = tieChains(tops, (r) => input.collectionOf(r) ?? '', 'records');
  p.phase(
    'records',
    tops.flatMap((r) => {
      const collection = input.collectionOf(r);
      if (!collection) {
        notRestored.push({ entity: 'record', id: r.id, label: r.name, reason: 'its collection is not in the snapshot' });
        return [];
      }
      p.restored.add(r.id);
      p.count('records');
      if (r.position === null) notRestored.push({ entity: 'record', id: r.id, label: r.name, reason: POSITION_UNSEEN });
      const chain = recordTies.get(r.id);
      return [{ op: 'createRecord', kind: 'record', key: `record:${r.id}`, oldId: r.id, ...(chain ? { chain } : {}), collection, name: r.name, then: recordThen(r) } satisfies Step];
    }),
  );
}

function planSubRecords(p: ContentPlan, subs: BoardRecord[]): void {
  const { input, notRestored } = p;
  const liveParents = input.liveParents ?? new Map<string, BoardRecord>();
  const subTies = tieChains(subs, (r) => r.parentRecordId!, 'sub-records');
  // Where a sub-record sits: the service creates it in its parent's collection; moving the parent
  // later left it where it was, so it is put back there unless that collection is gone.
  const placeOf = (r: BoardRecord): string | null => {
    const parent = p.parentOf(r);
    if (!r.collectionId || !parent || r.collectionId === parent.collectionId) return null;
    if (input.collectionExists(r.collectionId)) return r.collectionId;
    notRestored.push({ entity: 'subrecord', id: r.id, label: r.name, reason: `its collection ${r.collectionId} (not its parent's) is gone: it is placed in its parent's collection` });
    return null;
  };
  p.phase(
    'sub-records',
    subs.flatMap((r) => {
      if (!p.restored.has(r.parentRecordId!) && !liveParents.has(r.parentRecordId!)) {
        notRestored.push({ entity: 'subrecord', id: r.id, label: r.name, reason: 'its parent record is not restored' });
        return [];
      }
      p.restored.add(r.id);
      p.count('subRecords');
      const chain = subTies.get(r.id);
      const placeIn = placeOf(r);
      if (placeIn) p.placed.set(r.id, placeIn);
      return [
        {
          op: 'createSubRecord',
          kind: 'subrecord',
          key: `subrecord:${r.id}`,
          oldId: r.id,
          ...(chain ? { chain } : {}),
          parent: r.parentRecordId!,
          name: r.name,
          then: recordThen(r),
          ...(placeIn ? { placeIn } : {}),
        } satisfies Step,
      ];
    }),
  );
}

function planCells(p: ContentPlan): void {
  const { input, notRestored } = p;
  const { internal, ext, foreignModules, moduleName } = input;
  const extCell = (v: string): string => {
    const data = cellData(v);
    return typeof data === 'string' || data === null ? ext(v) : JSON.stringify(ext(data));
  };
  const columnsById = new Map(input.columns.map((c) => [c.id, c]));
  p.phase(
    'cells',
    input.cells.flatMap((c) => {
      const rec = p.recordsById.get(c.recordId);
      const col = c.columnId ? columnsById.get(c.columnId) : undefined;
      const label = `${rec?.name ?? c.recordId} · ${col?.name ?? '(deleted column)'}`;
      if (!rec || !p.restored.has(rec.id)) return [];
      if (!col) {
        notRestored.push({ entity: 'cell', id: c.id, label, reason: c.columnId ? 'its column is not restored (or no longer live)' : 'its column was deleted before the snapshot' });
        return [];
      }
      if (c.value === null) return [];
      const top = rec.parentRecordId ? p.parentOf(rec) : rec;
      const collection = p.placed.get(rec.id) ?? (top ? input.collectionOf(top) : null);
      if (!collection) return [];
      const value = remappableCell(col.type === 'relation' ? extCell(c.value) : c.value, internal);
      if (col.type === 'relation') {
        for (const m of foreignModules(ext(col.settings))) {
          notRestored.push({ entity: 'cell', id: c.id, label, reason: `relation into module ${moduleName(m)} (${m}), which is not live: record ids kept as they were` });
        }
      }
      p.count('cells');
      return [{ op: 'createCell', kind: 'cell', key: `cell:${c.id}`, oldId: c.id, record: rec.id, column: col.id, collection, module: input.moduleId, workspaceId: input.workspaceId, value, label } satisfies Step];
    }),
  );
}

/** One chain per record: the thread keeps its order (oldest first) and parents precede replies;
 * a tombstone is rebuilt by deleting its amendment after its replies exist. */
function planAmendments(p: ContentPlan): void {
  const { input, notRestored } = p;
  const threads = new Map<string, Amendment[]>();
  for (const a of input.amendments) if (p.restored.has(a.recordId)) threads.set(a.recordId, [...(threads.get(a.recordId) ?? []), a]);
  for (const a of input.amendments) {
    if (!p.restored.has(a.recordId)) notRestored.push({ entity: 'amendment', id: a.id, label: a.message.slice(0, 40), reason: 'its record is not restored' });
  }
  const amendmentSteps: Step[] = [];
  const tombstones: Step[] = [];
  for (const [recordId, list] of threads) {
    const ids = new Set(list.map((a) => a.id));
    for (const a of threadOrder(list)) {
      if (a.parentId && !ids.has(a.parentId)) {
        notRestored.push({ entity: 'amendment', id: a.id, label: a.message.slice(0, 40), reason: 'it replies to an amendment missing from the snapshot' });
        continue;
      }
      const author = a.userId ? (input.userNames?.get(a.userId) ?? a.userId) : 'a deleted note';
      const line = attributionLine(input.attribution, author, a.createdAt ?? 'an unknown time');
      const final = withAttribution(a.isDeleted ? '' : a.message, line) || '(deleted note)';
      p.count('amendments');
      amendmentSteps.push({
        op: 'createAmendment',
        kind: 'amendment',
        key: `amendment:${a.id}`,
        oldId: a.id,
        chain: recordId,
        record: recordId,
        parent: a.parentId,
        message: a.edited ? `${final} (restoring)` : final,
        ...(a.edited ? { editTo: final } : {}),
      });
      if (a.isDeleted) tombstones.push({ op: 'deleteAmendment', key: `tombstone:${a.id}`, target: a.id, chain: recordId });
    }
  }
  p.phase('amendments', [...amendmentSteps, ...tombstones]);
}

/** Records, sub-records, cells, amendment threads and archival, one phase each (in that order). */
export function planContent(input: ContentInput): { phases: Phase[]; counts: Record<string, number>; notRestored: NotRestored[] } {
  const p = contentPlan(input);
  const tops = serviceOrder(input.records.filter((r) => r.parentRecordId === null));
  planTopRecords(p, tops);
  const subs = serviceOrder(input.records.filter((r) => r.parentRecordId !== null));
  planSubRecords(p, subs);
  if (input.pruneSeeded && subs.some((r) => p.restored.has(r.id))) p.phase('seeded columns', [{ op: 'pruneSeededColumns', key: `prune:${input.moduleId}`, module: input.moduleId }]);
  planCells(p);
  planAmendments(p);
  p.phase(
    'archival',
    [...tops, ...subs].filter((r) => r.isArchived && p.restored.has(r.id)).map((r) => ({ op: 'archiveRecord', key: `archive:${r.id}`, target: r.id }) satisfies Step),
  );
  return { phases: p.phases, counts: p.counts, notRestored: p.notRestored };
}
