// The restore plan's vocabulary: phases run in order; inside a phase, steps run concurrently
// unless they share a `chain` (then one after another, in plan order). Every id a step names is an
// OLD id, resolved through the journal's id map when the step runs.

import type { AutomationInput, CreateColumnInput, UpdateColumnInput, UpdateRecordInput } from '../../api/port.js';
import type { Column, Tag } from '../../domain/entities.js';
import type { CreateKind, NotRestored } from '../../store/ledgers/index.js';
import type { Remappable } from './remap.js';

/** What the journal records of a plan: the kinds of what it creates, what it could not restore. */
export type { CreateKind, NotRestored } from '../../store/ledgers/index.js';

interface Base {
  /** Unique in the plan; the journal marks steps done by it. */
  key: string;
  /** Steps sharing a chain run sequentially (an amendment thread keeps its order). */
  chain?: string;
}

/** A step that creates one object; `oldId` becomes a row of the id map. */
interface CreateBase extends Base {
  kind: CreateKind;
  oldId: string;
}

export type Step =
  /** A workspace restore's new workspace; `then` is set with a PUT (the create takes name and icon). */
  | (CreateBase & { op: 'createWorkspace'; name: string; icon?: string; then: { description?: string; banner?: string } })
  /** A member added again with their role (an existing one is left as is). */
  | (Base & { op: 'addMember'; workspaceId: string; userId: string; role: string; label: string })
  | (CreateBase & { op: 'createWorkspaceAutomation'; workspaceId: string; body: Remappable<AutomationInput> })
  | (CreateBase & { op: 'createModule'; workspaceId: string; name: string; description?: string; tags: Tag[] })
  | (Base & { op: 'updateModule'; module: string; body: { icon?: string; color?: string; visibility?: string } })
  | (CreateBase & {
      op: 'createCollection';
      module: string;
      body: { name: string; color?: string; position?: number };
      /** Applied with a PUT when the created object differs (observed ignores create positions). */
      then: { position?: number; isCollapsed?: boolean; color?: string };
    })
  | (CreateBase & { op: 'createColumn'; module: string; body: Remappable<CreateColumnInput>; then: ColumnThen })
  | (CreateBase & { op: 'createRecord'; collection: string; name: string; then: { position?: number; isCompleted?: boolean } })
  | (CreateBase & {
      op: 'createSubRecord';
      parent: string;
      name: string;
      then: { position?: number; isCompleted?: boolean };
      /** The collection it carried when that was not its parent's (moving a parent leaves its
       * sub-records' collectionName behind): set with a PUT after the create. */
      placeIn?: string;
    })
  /** Deletes sub-record columns the service seeded with the first sub-record (none in the snapshot). */
  | (Base & { op: 'pruneSeededColumns'; module: string })
  | (CreateBase & {
      op: 'createCell';
      record: string;
      column: string;
      collection: string;
      module: string;
      workspaceId: string;
      value: Remappable<string>;
      /** "record · column", for the result when the service refuses the value. */
      label?: string;
    })
  | (CreateBase & {
      op: 'createAmendment';
      record: string;
      parent: string | null;
      /** What the create sends (and what a lookup after an unknown outcome matches). */
      message: string;
      /** Set for amendments that were edited: a PUT with this text makes the service flag `edited`. */
      editTo?: string;
    })
  /** Rebuilds a tombstone: deleting an amendment that has live replies leaves one. */
  | (Base & { op: 'deleteAmendment'; target: string })
  | (Base & { op: 'archiveRecord'; target: string })
  /** restore records: the service still holds it (observed deletes archive), so bring it back in place. */
  | (Base & { op: 'unarchiveRecord'; target: string })
  /** Read-modify-write of one member's grant set (PUT replaces the whole set). */
  | (Base & { op: 'grantAccess'; workspaceId: string; userId: string; module: string })
  | (CreateBase & { op: 'createAutomation'; module: string; body: Remappable<AutomationInput> })
  // --- in place (rollback): the target is a live object, or an old id the run recreated
  /** PUT the cell's value back. */
  | (Base & { op: 'setCell'; target: string; value: Remappable<string>; label: string })
  /** DELETE a cell that was empty at the snapshot. */
  | (Base & { op: 'clearCell'; target: string; label: string })
  /** PUT record fields back; `collection` (an id the journal maps) becomes collectionName. */
  | (Base & { op: 'updateRecord'; target: string; body: Omit<UpdateRecordInput, 'collectionName'>; collection?: string; label: string })
  | (Base & { op: 'updateColumn'; target: string; body: ColumnThen; label: string })
  | (Base & { op: 'updateCollection'; target: string; body: { name?: string; color?: string; position?: number; isCollapsed?: boolean }; label: string })
  /** An edited amendment's text back (the service lets only its author edit). */
  | (Base & { op: 'updateAmendment'; target: string; message: string; label: string })
  /**
   * A live column whose settings name objects the run recreates (a reference going through a
   * recreated relation column): its settings re-pointed by PUT with `body`, or — where the service
   * keeps settings create-only — made anew as `remake` + `then`, the old one deleted. The journal
   * maps the column's id onto itself or onto the new column.
   */
  | (CreateBase & {
      op: 'repointColumn';
      module: string;
      /** A column of another module than the run's: `module` is a live id, not mapped by the journal. */
      foreign?: boolean;
      /** Set when it must not be made anew (another module's relation column): why, and what to do,
       * declared when the service keeps its settings. */
      inPlaceOnly?: string;
      target: string;
      settings: Remappable<Record<string, unknown>>;
      body: ColumnThen;
      remake: { name: string; type: string; scope: Column['scope'] };
      then: ColumnThen;
      label: string;
    })
  /** A live automation naming objects the run recreates (`refs`, old ids): read, ids swapped, written
   * whole with its on/off state as it is then. `owner`: its module, or its workspace. */
  | (Base & { op: 'repointAutomation'; target: string; scope: 'module' | 'workspace'; owner: string; refs: string[]; label: string });

/** The port's update lacks isRequired/isHidden; the service's PUT takes them (observed and spec emulators). */
export type ColumnThen = UpdateColumnInput & { isRequired?: boolean; isHidden?: boolean; settings?: Record<string, unknown> | null };

export type StepOp = Step['op'];

/** What a created column still needs by PUT to be as it was (the create takes only name, type,
 * scope and settings). */
export function columnThen(c: Column): ColumnThen {
  const then: ColumnThen = {};
  if (c.width !== null) then.width = c.width;
  if (c.position !== null) then.position = c.position;
  if (c.statusOptions && c.type === 'status') then.statusOptions = c.statusOptions;
  if (c.isRequired) then.isRequired = true;
  if (c.isHidden) then.isHidden = true;
  return then;
}

export interface Phase {
  name: string;
  steps: Step[];
}

export interface RestorePlan {
  /** The module being restored (old id) and where it goes. */
  moduleId: string;
  moduleName: string;
  targetWorkspaceId: string;
  phases: Phase[];
  /** Objects the plan creates, per entity. */
  counts: Record<string, number>;
  notRestored: NotRestored[];
}

export function allSteps(plan: RestorePlan): Step[] {
  return plan.phases.flatMap((p) => p.steps);
}

/** Writes a step makes at most (creates + follow-up PUTs), for dry-run estimates. */
export function stepWrites(s: Step): number {
  switch (s.op) {
    case 'createCollection':
    case 'createColumn':
    case 'createRecord':
      return Object.keys(s.then).length ? 2 : 1;
    case 'createSubRecord':
      return 1 + (Object.keys(s.then).length ? 1 : 0) + (s.placeIn ? 1 : 0);
    case 'createAmendment':
      return s.editTo === undefined ? 1 : 2;
    case 'pruneSeededColumns':
      return 0;
    case 'repointColumn':
      return 3;
    default:
      return 1;
  }
}

/** What a plan will do, phase by phase: what `--dry-run` prints and a run reports. */
export interface PlanSummary {
  /** `chained`: steps that wait for the one before them (a thread, siblings tied in position). */
  phases: { name: string; steps: number; ops: Record<string, number>; writesAtMost: number; chained: number }[];
  writesAtMost: number;
}

export function summarisePlan(plan: RestorePlan): PlanSummary {
  const phases = plan.phases.map((p) => {
    const ops: Record<string, number> = {};
    for (const s of p.steps) ops[s.op] = (ops[s.op] ?? 0) + 1;
    return { name: p.name, steps: p.steps.length, ops, writesAtMost: p.steps.reduce((n, s) => n + stepWrites(s), 0), chained: p.steps.filter((s) => s.chain !== undefined).length };
  });
  return { phases, writesAtMost: phases.reduce((n, p) => n + p.writesAtMost, 0) };
}
