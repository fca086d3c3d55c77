// What a rollback is about: the kinds and objects selected (by flag or by what the feed shows —
// read here from the activity feed), and one field's three sides as the plan reports them. Shared
// by the planner, the command, and diff narrowed the same way.

import { shown } from '../../domain/display-text.js';
import type { Amendment, BoardRecord, Column } from '../../domain/entities.js';
import { WbsyncError } from '../../domain/errors.js';
import type { StateReader } from '../../store/port.js';

export const ROLLBACK_KINDS = ['cells', 'records', 'columns', 'collections', 'amendments'] as const;
export type RollbackKind = (typeof ROLLBACK_KINDS)[number];

/**
 * Columns named by id or name (--column) as column ids; null when none were given. `columns` lists
 * the snapshot's first: a name both sides use means the snapshot's column. A name no column has is a
 * usage error (it is what the person typed).
 */
export function columnIdsOf(wanted: readonly string[] | undefined, columns: readonly Column[], moduleName: string): Set<string> | null {
  if (!wanted?.length) return null;
  const ids = new Set(columns.map((c) => c.id));
  const byName = new Map<string, string>();
  for (const c of columns) if (!byName.has(c.name)) byName.set(c.name, c.id);
  return new Set(
    wanted.map((x) => {
      const id = ids.has(x) ? x : byName.get(x);
      if (!id) throw new WbsyncError('usage', `--column '${shown(x)}': no column of module ${shown(moduleName)} has that id or name`, { hint: 'name a column as the snapshot or the service has it' });
      return id;
    }),
  );
}

/** What the feed says was changed (in a window, by an actor): the ids its rows name. */
export interface Touched {
  /** Records any row names (their amendments are selected through these). */
  records: ReadonlySet<string>;
  /** Record fields the rows changed, per record (name, collectionId, position, isCompleted, isArchived). */
  recordFields: ReadonlyMap<string, ReadonlySet<string>>;
  columns: ReadonlySet<string>;
  collections: ReadonlySet<string>;
  /** `${recordId}|${columnId}` of cell writes. */
  cells: ReadonlySet<string>;
}

/** The record field each feed action changes; an action not listed may have changed any. */
const FIELD_OF_ACTION: Record<string, string> = {
  record_updated: 'name',
  record_moved: 'collectionId',
  record_reordered: 'position',
  record_completed: 'isCompleted',
  record_uncompleted: 'isCompleted',
  record_archived: 'isArchived',
  record_restored: 'isArchived',
  record_deleted: 'isArchived',
};
const RECORD_FIELDS = ['name', 'collectionId', 'position', 'isCompleted', 'isArchived'];

/** What the feed shows changed in the module, in the window, by the actor. */
export function touchedByFeed(state: StateReader, workspaceId: string, moduleId: string, by?: string, window?: [string, string]): Touched {
  const from = window ? Date.parse(window[0]) : -Infinity;
  const to = window ? Date.parse(window[1]) : Infinity;
  const out = { records: new Set<string>(), recordFields: new Map<string, Set<string>>(), columns: new Set<string>(), collections: new Set<string>(), cells: new Set<string>() };
  for (const a of state.moduleActivity(workspaceId, moduleId)) {
    const t = Date.parse(a.createdAt);
    if (t < from || t > to) continue;
    if (by === 'automation' ? a.automationId === null : by !== undefined && (a.userId !== by || a.automationId !== null)) continue;
    if (a.recordId) out.records.add(a.recordId);
    if (a.recordId && a.columnId) out.cells.add(`${a.recordId}|${a.columnId}`);
    if (a.recordId && !a.columnId && a.action.startsWith('record_')) {
      const fields = out.recordFields.get(a.recordId) ?? new Set<string>();
      const f = FIELD_OF_ACTION[a.action];
      for (const x of f ? [f] : RECORD_FIELDS) fields.add(x);
      out.recordFields.set(a.recordId, fields);
    }
    if (!a.recordId && a.columnId) out.columns.add(a.columnId);
    if (!a.recordId && a.collectionId) out.collections.add(a.collectionId);
  }
  return out;
}

export interface RollbackSelection {
  kinds: ReadonlySet<RollbackKind>;
  /** --kinds was given: records created since are archived only when it names records. */
  kindsNamed: boolean;
  columns: ReadonlySet<string> | null;
  /** Records (their sub-records included). */
  records: ReadonlySet<string> | null;
  collections: ReadonlySet<string> | null;
  touched: Touched | null;
  /** Cells (`record|column`) the feed shows written after or beside the damage, with why: never
   * put back unless forced (damage.ts). */
  laterEdits?: ReadonlyMap<string, string>;
}

/** Which objects of the module a selection takes in: one predicate per entity kind, for the planners. */
export interface Selected {
  inRecords(recordId: string): boolean;
  inCollections(recordId: string): boolean;
  record(id: string): boolean;
  /** With a feed selection, only the fields its rows changed (a person's other edits stay). */
  field(id: string, field: string): boolean;
  cell(recordId: string, columnId: string): boolean;
  column(id: string): boolean;
  collection(id: string): boolean;
  amendment(a: Amendment): boolean;
  /** A record the selection would take in but for --kinds leaving records out. */
  recordButForKinds(id: string): boolean;
}

export function selectionOf(sel: RollbackSelection, recordOf: (id: string) => BoardRecord | undefined, topOf: (id: string) => BoardRecord | undefined): Selected {
  const inRecords = (recordId: string): boolean => {
    if (!sel.records) return true;
    const r = recordOf(recordId);
    return sel.records.has(recordId) || (!!r?.parentRecordId && sel.records.has(r.parentRecordId));
  };
  const inCollections = (recordId: string): boolean => {
    if (!sel.collections) return true;
    const top = topOf(recordId);
    return !!top?.collectionId && sel.collections.has(top.collectionId);
  };
  const recordInScope = (id: string): boolean => inRecords(id) && inCollections(id) && !sel.columns && (!sel.touched || sel.touched.records.has(id));
  return {
    inRecords,
    inCollections,
    record: (id) => sel.kinds.has('records') && recordInScope(id),
    recordButForKinds: (id) => !sel.kinds.has('records') && recordInScope(id),
    field: (id, field) => !sel.touched || sel.touched.recordFields.get(id)?.has(field) === true,
    cell: (recordId, columnId) =>
      sel.kinds.has('cells') && inRecords(recordId) && inCollections(recordId) && (!sel.columns || sel.columns.has(columnId)) && (!sel.touched || sel.touched.cells.has(`${recordId}|${columnId}`)),
    column: (id) => sel.kinds.has('columns') && !sel.records && !sel.collections && (!sel.columns || sel.columns.has(id)) && (!sel.touched || sel.touched.columns.has(id)),
    collection: (id) => sel.kinds.has('collections') && !sel.records && !sel.columns && (!sel.collections || sel.collections.has(id)) && (!sel.touched || sel.touched.collections.has(id)),
    amendment: (a) => sel.kinds.has('amendments') && inRecords(a.recordId) && inCollections(a.recordId) && !sel.columns && (!sel.touched || sel.touched.records.has(a.recordId)),
  };
}

/** One field: what it is live, what the snapshot had, what the damage left. */
export interface FieldChange {
  entity: 'cell' | 'record' | 'column' | 'collection' | 'amendment';
  id: string;
  label: string;
  field: string;
  live: unknown;
  base: unknown;
  after: unknown;
  /** A conflict the damage snapshot does not show either (after = base): edited after the latest
   * snapshot — or damage the feed did not show (amendment edits on the deployed service) */
  unseen?: true;
  /** A conflict because the feed shows a write after or beside the damage: whose, when. */
  later?: string;
}

