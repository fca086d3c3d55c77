// The restore planner: pure. From a module tree (as of a snapshot) and a few facts about the live
// service, it lays out every write in an order the service accepts: structure before content, every
// column (both scopes) before the first sub-record so nothing gets seeded, parents before replies,
// automations last so they cannot fire on the restore's own writes.

import type { Column } from '../../domain/entities.js';
import { planContent } from './plan-content.js';
import { columnThen, type NotRestored, type Phase, type RestorePlan, type Step } from '../engine/plan-steps.js';
import { remappable, targetModules, translateIds } from '../engine/remap.js';
import { orderColumns } from './column-order.js';
import { createdAtOf, creationOrder, serviceOrder, tieChains } from '../engine/sibling-order.js';
import type { ModuleTree } from '../engine/tree.js';

export interface PlanInput {
  tree: ModuleTree;
  targetWorkspaceId: string;
  /** Modules that exist live (ids inside settings/automations naming them stay as they are). */
  liveModuleIds: ReadonlySet<string>;
  /** Names of modules known to the snapshot, for readable reports. */
  moduleNames?: ReadonlyMap<string, string>;
  /** Users who are members of the target workspace now (grants go to members only). */
  memberIds: ReadonlySet<string>;
  /** Display names of authors, for the attribution line. */
  userNames?: ReadonlyMap<string, string>;
  /** Old → new ids of modules restored earlier (their journals): ids naming them follow the copy. */
  restoredIds?: ReadonlyMap<string, string>;
  /** config.restore.attribution: {author} and {createdAt} filled in; '' adds nothing. */
  attribution: string;
  /** Ids of the other modules restored by the same run (a workspace restore): values naming them
   * are remapped like the module's own. */
  alsoInternal?: ReadonlySet<string>;
}

/** Columns in tiers: a column comes after the columns of this module its settings name (what is
 * left over is a cycle). */
function columnTiers(columns: Column[], internal: ReadonlySet<string>): { tiers: Column[][]; cyclic: Column[] } {
  const ids = new Set(columns.map((c) => c.id));
  const deps = new Map(columns.map((c) => [c.id, remappable(c.settings ?? {}, internal).refs.filter((r) => ids.has(r) && r !== c.id)]));
  const placed = new Set<string>();
  const tiers: Column[][] = [];
  let left = columns;
  while (left.length) {
    const tier = left.filter((c) => deps.get(c.id)!.every((d) => placed.has(d)));
    if (!tier.length) return { tiers, cyclic: left };
    for (const c of tier) placed.add(c.id);
    tiers.push(tier);
    left = left.filter((c) => !placed.has(c.id));
  }
  return { tiers, cyclic: [] };
}

/** What the module's phases share while they are laid out: the ids that are the module's own,
 * ids of modules restored earlier, what is counted and what is left out (and why). */
interface ModulePlan {
  input: PlanInput;
  mod: PlanInput['tree']['module'];
  internal: ReadonlySet<string>;
  ext: <T>(v: T) => T;
  moduleName: (id: string) => string;
  foreignModules: (v: unknown) => string[];
  /** Where the snapshot kept no listing rank (taken before 0.2): the creation time from the object
   * or the feed; one the feed never saw created predates the feed's horizon, so it sorts first. */
  known: <T extends { id: string; raw: Record<string, unknown> }>(x: T) => T & { createdAt: string };
  notRestored: NotRestored[];
  phases: Phase[];
  counts: Record<string, number>;
  count(k: string): void;
  phase(name: string, steps: Step[]): void;
}

function modulePlan(input: PlanInput): ModulePlan {
  const { tree } = input;
  const mod = tree.module;
  const internal = new Set<string>([mod.id, ...tree.collections.map((c) => c.id), ...tree.columns.map((c) => c.id), ...tree.records.map((r) => r.id), ...(input.alsoInternal ?? [])]);
  // Ids of other modules restored earlier point at their restored copies, not at the dead originals.
  // This module's own ids always map to the copy being made, never to an earlier copy.
  const extMap = new Map([...(input.restoredIds ?? [])].filter(([old]) => !internal.has(old)));
  const p: ModulePlan = {
    input,
    mod,
    internal,
    ext: <T>(v: T): T => (extMap.size ? (translateIds(v, extMap) as T) : v),
    moduleName: (id) => input.moduleNames?.get(id) ?? id,
    foreignModules: (v) => targetModules(v).filter((m) => !internal.has(m) && !input.liveModuleIds.has(m)),
    known: (x) => ({ ...x, createdAt: createdAtOf(x) ?? tree.creationTimes?.get(x.id) ?? '' }),
    notRestored: [],
    phases: [],
    counts: {},
    count: (k) => {
      p.counts[k] = (p.counts[k] ?? 0) + 1;
    },
    phase: (name, steps) => {
      if (steps.length) p.phases.push({ name, steps });
    },
  };
  return p;
}

function planModule(p: ModulePlan): void {
  const { mod, input } = p;
  p.phase('module', [{ op: 'createModule', kind: 'module', key: `module:${mod.id}`, oldId: mod.id, workspaceId: input.targetWorkspaceId, name: mod.name, ...(mod.description ? { description: mod.description } : {}), tags: mod.tags }]);
  const look: { icon?: string; color?: string; visibility?: string } = {};
  if (mod.icon) look.icon = mod.icon;
  if (mod.color) look.color = mod.color;
  if (mod.visibility) look.visibility = mod.visibility;
  p.phase('module settings', Object.keys(look).length ? [{ op: 'updateModule', key: `module-settings:${mod.id}`, module: mod.id, body: look }] : []);
}

/** Siblings sharing a position are created one after another, oldest first: the service lists
 * ties by creation time. Everything else is created concurrently. */
function planCollections(p: ModulePlan): void {
  const { mod } = p;
  const collections = serviceOrder(p.input.tree.collections.map(p.known));
  const collectionTies = tieChains(collections, () => mod.id, 'collections');
  p.phase(
    'collections',
    collections.map((c) => {
      p.count('collections');
      const body: { name: string; color?: string; position?: number } = { name: c.name };
      if (c.color) body.color = c.color;
      if (c.position !== null) body.position = c.position;
      const then: { position?: number; isCollapsed?: boolean } = {};
      if (c.position !== null) then.position = c.position;
      if (c.isCollapsed) then.isCollapsed = true;
      const chain = collectionTies.get(c.id);
      return { op: 'createCollection', kind: 'collection', key: `collection:${c.id}`, oldId: c.id, ...(chain ? { chain } : {}), module: mod.id, body, then } satisfies Step;
    }),
  );
}

/**
 * Every column of both scopes before any sub-record: the first sub-record seeds three columns
 * unless a sub-record column exists already. One phase: ties and settings naming other columns
 * wait in chains (see column-order.ts). Returns the columns left out (a cycle).
 */
function planColumns(p: ModulePlan): Set<string> {
  const { mod, internal, notRestored } = p;
  const columns = p.input.tree.columns;
  const { cyclic } = columnTiers(columns, internal);
  for (const c of cyclic) notRestored.push({ entity: 'column', id: c.id, label: c.name, reason: 'its settings name columns that name it back (a cycle); restore refused for this column' });
  const cyclicIds = new Set(cyclic.map((c) => c.id));
  const columnOrder = orderColumns(
    columns.filter((c) => !cyclicIds.has(c.id)).map(p.known),
    (c) => remappable(c.settings ?? {}, internal).refs,
  );
  for (const { column, names } of columnOrder.displaced) {
    notRestored.push({
      entity: 'column',
      id: column.id,
      label: column.name,
      reason: `restored, but not in its place among the columns tied at position ${column.position ?? 0}: its settings name column ${names.name}, which was listed after it and must exist first`,
    });
  }
  p.phase(
    'columns',
    columnOrder.ordered.map((c) => {
      p.count('columns');
      const settings = p.ext(c.settings);
      for (const m of p.foreignModules(settings)) {
        notRestored.push({ entity: 'column', id: c.id, label: c.name, reason: `settings name module ${p.moduleName(m)} (${m}), which is not live: kept as is (restore that module and fix the column)` });
      }
      const body = { name: c.name, type: c.type, scope: c.scope, ...(settings && Object.keys(settings).length ? { settings } : {}) };
      const then = columnThen(c);
      const chain = columnOrder.chainOf.get(c.id);
      return { op: 'createColumn', kind: 'column', key: `column:${c.id}`, oldId: c.id, ...(chain ? { chain } : {}), module: mod.id, body: remappable(body, internal), then } satisfies Step;
    }),
  );
  return new Set(cyclic.map((c) => c.id));
}

function planModuleContent(p: ModulePlan, skippedColumns: ReadonlySet<string>): void {
  const { tree } = p.input;
  const collectionIds = new Set(tree.collections.map((c) => c.id));
  const content = planContent({
    records: tree.records,
    cells: tree.cells,
    amendments: tree.amendments,
    columns: tree.columns.filter((c) => !skippedColumns.has(c.id)),
    collectionOf: (r) => (r.collectionId && collectionIds.has(r.collectionId) ? r.collectionId : null),
    collectionExists: (id) => collectionIds.has(id),
    moduleId: p.mod.id,
    workspaceId: p.input.targetWorkspaceId,
    internal: p.internal,
    ext: p.ext,
    foreignModules: p.foreignModules,
    moduleName: p.moduleName,
    attribution: p.input.attribution,
    userNames: p.input.userNames,
    pruneSeeded: true,
  });
  p.phases.push(...content.phases);
  Object.assign(p.counts, content.counts);
  p.notRestored.push(...content.notRestored, ...(tree.erased ?? []));
}

function planGrants(p: ModulePlan): void {
  const { input } = p;
  p.phase(
    'grants',
    (input.tree.grants ?? []).flatMap((userId) => {
      if (!input.memberIds.has(userId)) {
        p.notRestored.push({ entity: 'grant', id: userId, label: input.userNames?.get(userId) ?? userId, reason: 'no longer a member of the target workspace' });
        return [];
      }
      p.count('grants');
      return [{ op: 'grantAccess', key: `grant:${userId}`, workspaceId: input.targetWorkspaceId, userId, module: p.mod.id } satisfies Step];
    }),
  );
}

/** The service lists a module's automations by creation time: one chain, oldest first. */
function planAutomations(p: ModulePlan): void {
  const { mod } = p;
  p.phase(
    'automations',
    creationOrder(p.input.tree.automations).map((a) => {
      p.count('automations');
      for (const m of p.foreignModules(p.ext(a.actions))) {
        p.notRestored.push({ entity: 'automation', id: a.id, label: a.name, reason: `an action names module ${p.moduleName(m)} (${m}), which is not live: kept as is` });
      }
      const body = p.ext({ name: a.name, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive });
      return { op: 'createAutomation', kind: 'automation', key: `automation:${a.id}`, oldId: a.id, chain: `automations:${mod.id}`, module: mod.id, body: remappable(body, p.internal) } satisfies Step;
    }),
  );
}

/** The module, its settings, collections, columns, then the content, grants and automations, one
 * phase each, in that order. */
export function planRestore(input: PlanInput): RestorePlan {
  const p = modulePlan(input);
  planModule(p);
  planCollections(p);
  const skippedColumns = planColumns(p);
  planModuleContent(p, skippedColumns);
  planGrants(p);
  planAutomations(p);
  const { mod, phases, counts, notRestored } = p;
  return { moduleId: mod.id, moduleName: mod.name, targetWorkspaceId: input.targetWorkspaceId, phases, counts, notRestored };
}

export { attributionLine } from './plan-content.js';
