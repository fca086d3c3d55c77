// What the rollback's planners share: the three sides of the module (snapshot = base, what the
// damage left = after, live), the selection, the three-way verdict on one field, and what the plan
// collects (writes, conflicts, steps per phase, what is not restored, live ids the journal maps onto
// themselves, ids the run gives a new object). One planner per entity kind fills it, in order.

import { pinnedVerdict } from './damage.js';
import type { Automation, BoardRecord, Cell } from '../../domain/entities.js';
import { canon } from '../../domain/cell-change.js';
import type { NotRestored, Phase, Step } from '../engine/plan-steps.js';
import { selectionOf, type FieldChange, type RollbackSelection, type Selected } from './selection.js';
import type { ModuleTree } from '../engine/tree.js';
import type { ForeignObjects, Repointed } from '../engine/repoint-foreign.js';

export type LiveKind = 'collection' | 'column' | 'record' | 'cell' | 'amendment';

/** How a record the listings no longer show was found by id: in a deleted collection (the deployed
 * service keeps such records) or archived in place (its delete archived it). */
export type FoundBy = 'stranded' | 'archived';

export interface RollbackInput {
  base: ModuleTree;
  after: ModuleTree;
  live: ModuleTree;
  selection: RollbackSelection;
  force: boolean;
  workspaceId: string;
  attribution: string;
  userNames?: ReadonlyMap<string, string>;
  /** Records of the snapshot that no listing shows but that answer by id, and how they were found:
   * they come back in place (their fields, cells and amendments as the service holds them). */
  found?: ReadonlyMap<string, FoundBy>;
  /** Live automations of the module and of the workspace: those naming what the run recreates are
   * re-pointed to the copies. */
  automations?: readonly Automation[];
  /** Live columns and automations of the workspace's other modules (read when the snapshot holds
   * structure that is gone): those naming what the run recreates are re-pointed too. */
  foreign?: ForeignObjects;
}

export type { Repointed } from '../engine/repoint-foreign.js';

export interface RollbackPlanResult {
  plan: import('../engine/plan-steps.js').RestorePlan;
  /** Every field the plan writes back (live → base). */
  writes: FieldChange[];
  /** Fields edited after the damage: left alone, or written too when forced. */
  conflicts: FieldChange[];
  /** Records created after the snapshot: listed; archived only when --kinds names records. */
  newRecords: { id: string; name: string; archived: boolean }[];
  counts: Record<string, number>;
  /** Live ids the plan names (the journal maps each onto itself). */
  liveIds: Map<string, LiveKind>;
  /** Columns whose settings and automations whose trigger, conditions or actions name what the run
   * recreates: re-pointed to the copies. */
  repoint: Repointed[];
}

type Verdict = 'same' | 'restore' | 'conflict';

/** A value canon() writes as itself: compared with === (canon is a JSON.stringify per call). */
const plain = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const sameValue = (a: unknown, b: unknown): boolean => (plain(a) && plain(b) ? (a ?? null) === (b ?? null) : canon(a ?? null) === canon(b ?? null));

function threeWay(base: unknown, after: unknown, live: unknown): Verdict {
  if (sameValue(live, base)) return 'same';
  return sameValue(live, after) ? 'restore' : 'conflict';
}

export const byId = <T extends { id: string }>(list: readonly T[]): Map<string, T> => new Map(list.map((x) => [x.id, x]));
export const cellKey = (c: Pick<Cell, 'recordId' | 'columnId'>): string => `${c.recordId}|${c.columnId}`;
export const cellsByKey = (list: readonly Cell[]): Map<string, Cell> => new Map(list.filter((c) => c.columnId !== null).map((c) => [cellKey(c), c]));

export interface Steps {
  collections: Step[];
  columns: Step[];
  /** Columns whose settings name another column recreated in this run (made after it). */
  columnsNamingColumns: Step[];
  /** Live columns whose settings name what was recreated. */
  repointColumns: Step[];
  records: Step[];
  cells: Step[];
  /** Records recreated with their sub-records, cells and threads (planContent's phases). */
  content: Phase[];
  amendments: Step[];
  repointAutomations: Step[];
  archival: Step[];
}

export class PlanContext {
  readonly base: ModuleTree;
  readonly after: ModuleTree;
  readonly live: ModuleTree;
  readonly sel: RollbackSelection;
  readonly moduleId: string;
  readonly writes: FieldChange[] = [];
  readonly conflicts: FieldChange[] = [];
  readonly notRestored: NotRestored[] = [];
  readonly counts: Record<string, number> = {};
  readonly liveIds = new Map<string, LiveKind>();
  readonly steps: Steps = { collections: [], columns: [], columnsNamingColumns: [], repointColumns: [], records: [], cells: [], content: [], amendments: [], repointAutomations: [], archival: [] };
  readonly baseRecords: Map<string, BoardRecord>;
  readonly afterRecords: Map<string, BoardRecord>;
  readonly liveRecords: Map<string, BoardRecord>;
  readonly liveColumns;
  readonly liveCollections;
  /** Old ids of every object the run makes anew (collections, columns, records): their copies get
   * new ids through the journal, and values naming them are remapped. */
  readonly recreated = new Set<string>();
  readonly recreatedColumns = new Set<string>();
  /** Records (and sub-records) recreated with their content. */
  readonly recreatedRecords = new Set<string>();
  /** Amendments posted again (new ids). */
  readonly reposted = new Set<string>();
  /** Records declared not restored: their cells and amendments go with them, unlisted. */
  readonly declaredRecords = new Set<string>();
  /** Live column ids the run re-points (possibly by making them anew): not mapped onto themselves. */
  readonly repointedColumns = new Set<string>();
  /** Of those, the relation columns: never made anew (re-pointed in place, or declared and kept),
   * so they keep their id and their cells, which are written as any live column's. */
  readonly keptColumns = new Set<string>();
  readonly repoint: Repointed[] = [];
  readonly found: ReadonlyMap<string, FoundBy>;
  readonly pick: Selected;

  constructor(readonly input: RollbackInput) {
    this.base = input.base;
    this.after = input.after;
    this.live = input.live;
    this.sel = input.selection;
    this.moduleId = input.live.module.id;
    this.baseRecords = byId(input.base.records);
    this.afterRecords = byId(input.after.records);
    // (the console's preview plans with the latest backup as both: one map, read only)
    this.liveRecords = input.live === input.after ? this.afterRecords : byId(input.live.records);
    this.liveColumns = byId(input.live.columns);
    this.liveCollections = byId(input.live.collections);
    this.found = input.found ?? new Map();
    this.pick = selectionOf(this.sel, (id) => this.baseRecords.get(id) ?? this.liveRecords.get(id), (id) => this.topOf(id, this.baseRecords) ?? this.topOf(id, this.liveRecords));
  }

  count(k: string, n = 1): void {
    this.counts[k] = (this.counts[k] ?? 0) + n;
  }

  topOf(id: string, from: Map<string, BoardRecord>): BoardRecord | undefined {
    const r = from.get(id);
    return r?.parentRecordId ? from.get(r.parentRecordId) : r;
  }

  recordLabel(r: BoardRecord): string {
    return r.parentRecordId ? `${this.baseRecords.get(r.parentRecordId)?.name ?? r.parentRecordId} › ${r.name}` : r.name;
  }

  /** Whether a field's live value is its value at the snapshot: `decide` would leave it, and
   * saying so first spares building the change (thousands of fields on a big module). */
  same(live: unknown, base: unknown): boolean {
    return sameValue(live, base);
  }

  /** Decides one field; true when it is to be written back. */
  decide(change: FieldChange): boolean {
    const v = pinnedVerdict(threeWay(change.base, change.after, change.live), change.later);
    if (v === 'same') return false;
    if (v === 'conflict') {
      if (sameValue(change.after, change.base)) change.unseen = true;
      this.conflicts.push(change);
      if (!this.input.force) return false;
    }
    this.writes.push(change);
    return true;
  }

  /** A collection id a write may name: live, or recreated by this run. */
  collectionUsable(id: string): boolean {
    return this.liveCollections.has(id) || this.recreated.has(id);
  }

  columnUsable(id: string): boolean {
    return this.liveColumns.has(id) || this.recreatedColumns.has(id);
  }
}
