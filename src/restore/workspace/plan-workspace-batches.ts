// The workspace restore planned and applied a few modules at a time, so that neither the planner
// nor the service being restored into must hold a whole workspace at once. The same steps as
// planWorkspace (plan-workspace.ts), in this order:
//   1. head: the workspace, its members, then every module's structure (module, settings,
//      collections, columns — those naming another module's columns after all the others), so
//      any relation or recipe can name any module or column;
//   2. batches: the content of a few modules at a time (records, cells, notes, archive flags,
//      grants, the modules' own recipes), each batch in the order its modules' plans give.
//      Modules whose values name each other (a relation cell naming another module's record, a
//      recipe acting on another module) always share a batch, so every id a batch needs exists
//      when it runs and a batch is complete once applied;
//   3. tail: the workspace's own recipes, which watch every module.
// Module trees are read one at a time (`loadTree`): once to collect every restored id (values
// naming any of them are remapped), once to plan (counts, what cannot be restored, the head),
// and once more per batch when it runs. What stays in memory is ids, not content.

import type { ModuleTree } from '../engine/tree.js';
import { mapUsers, mergeOrders, planWorkspace, splitCrossModuleColumns, type WorkspacePlan, type WorkspacePlanInput } from './plan-workspace.js';
import { planRestore } from '../module/plan.js';
import type { Phase, RestorePlan, Step } from '../engine/plan-steps.js';
import { remappable } from '../engine/remap.js';
import { creationOrder } from '../engine/sibling-order.js';
import type { Member } from '../../domain/entities.js';

/** A module plan's phases that make structure (every module's run before any content). */
export const STRUCTURE_PHASES: ReadonlySet<string> = new Set(['module', 'module settings', 'collections', 'columns']);

/** Records (and sub-records) per batch, about: a batch closes once it holds this many. */
export const BATCH_RECORDS = 2000;

export interface BatchedPlanInput extends Omit<WorkspacePlanInput, 'modules'> {
  /** The snapshot's modules of the workspace, in order. */
  moduleIds: string[];
  /** One module's tree as of the snapshot (null: not in it). Called several times per module. */
  loadTree(moduleId: string): ModuleTree | null;
  batchRecords?: number;
}

export interface WorkspaceBatch {
  /** Source module ids, in the workspace's order. */
  moduleIds: string[];
  records: number;
}

export interface BatchedWorkspacePlan {
  /** Workspace, members and every module's structure; its counts, notRestored, modules, members
   * and automations are the whole plan's (as planWorkspace gives them). */
  head: WorkspacePlan;
  batches: WorkspaceBatch[];
  /** A batch's phases: its modules read again and planned as planWorkspace plans them. */
  phasesOf(batch: WorkspaceBatch): Phase[];
  /** The workspace's own recipes. */
  tail: Phase[];
  /** Steps in head, batches and tail together (for progress). */
  steps: number;
  /** The plan made whole, as planWorkspace makes it (a dry run's summary): every tree at once. */
  whole(): WorkspacePlan;
}

const displayName = (m: Member): string => [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email || m.userId;

/** Ids a step's values name (remapped through the journal when it runs). */
function refsOf(step: Step): string[] {
  const out: string[] = [];
  for (const v of Object.values(step)) {
    if (v && typeof v === 'object' && Array.isArray((v as { refs?: unknown }).refs)) out.push(...(v as { refs: string[] }).refs);
  }
  return out;
}

/** Every restored id of the workspace and the module holding it, read one tree at a time. */
interface ModuleIndex {
  owner: Map<string, string>;
  moduleNames: Map<string, string>;
  records: Map<string, number>;
  /** The snapshot's modules present, in the workspace's order. */
  present: string[];
  columnsOf: Pick<ModuleTree, 'module' | 'columns'>[];
}

function indexModules(input: BatchedPlanInput): ModuleIndex {
  const index: ModuleIndex = { owner: new Map(), moduleNames: new Map(), records: new Map(), present: [], columnsOf: [] };
  for (const id of input.moduleIds) {
    const t = input.loadTree(id);
    if (!t) continue;
    index.present.push(t.module.id);
    index.moduleNames.set(t.module.id, t.module.name);
    index.records.set(t.module.id, t.records.length);
    index.columnsOf.push({ module: t.module, columns: t.columns });
    for (const x of [t.module, ...t.collections, ...t.columns, ...t.records]) index.owner.set(x.id, t.module.id);
  }
  return index;
}

/** Union-find over module ids: modules whose values name each other end up with one root. */
function moduleGroups(ids: string[]): { join(a: string, b: string): void; root(id: string): string } {
  const parent = new Map(ids.map((id) => [id, id]));
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(id, r);
    return r;
  };
  return { root, join: (a, b) => void parent.set(root(a), root(b)) };
}

/** Every module planned once: the head (workspace, members, every module's structure) with the
 * whole plan's figures, which modules name each other, and the content steps counted. */
function planHead(input: BatchedPlanInput, index: ModuleIndex, planOf: (id: string) => RestorePlan | null, shell: WorkspacePlan, groups: ReturnType<typeof moduleGroups>): { head: WorkspacePlan; steps: number } {
  const byName = new Map<string, Step[]>(shell.phases.map((p) => [p.name, [...p.steps]]));
  const sequences: string[][] = [];
  const head: WorkspacePlan = { ...shell, counts: { ...shell.counts }, notRestored: [], modules: [] };
  let steps = 0;
  let moduleAutomations = 0;
  for (const id of index.present) {
    const plan = planOf(id);
    if (!plan) continue;
    head.modules.push({ sourceModuleId: plan.moduleId, name: plan.moduleName, counts: plan.counts });
    moduleAutomations += plan.counts['automations'] ?? 0;
    for (const [k, n] of Object.entries(plan.counts)) head.counts[k] = (head.counts[k] ?? 0) + n;
    head.notRestored.push(...plan.notRestored);
    const structure: string[] = [];
    for (const p of plan.phases) {
      if (STRUCTURE_PHASES.has(p.name)) {
        structure.push(p.name);
        byName.set(p.name, [...(byName.get(p.name) ?? []), ...p.steps]);
      } else {
        steps += p.steps.length;
      }
      for (const s of p.steps) {
        for (const ref of refsOf(s)) {
          const other = index.owner.get(ref);
          if (other !== undefined && other !== id) groups.join(other, id);
        }
      }
    }
    sequences.push(structure);
  }
  const order = [...shell.phases.map((p) => p.name).filter((n) => n !== 'workspace automations'), ...mergeOrders(sequences)].filter((n) => byName.has(n));
  splitCrossModuleColumns(byName, order, index.columnsOf);
  head.phases = order.map((name) => ({ name, steps: byName.get(name)! }));
  steps += head.phases.reduce((n, p) => n + p.steps.length, 0);
  head.automations = { workspace: shell.automations.workspace, module: moduleAutomations };
  // the same key order as planWorkspace's counts: the workspace's automations last
  const wsAutomations = head.counts['workspaceAutomations'];
  delete head.counts['workspaceAutomations'];
  if (wsAutomations !== undefined) head.counts['workspaceAutomations'] = wsAutomations;
  return { head, steps };
}

/** The workspace's own automations, which may name any restored id: remapped like planWorkspace does. */
function planTail(input: BatchedPlanInput, shell: WorkspacePlan, wsId: string, allIds: ReadonlySet<string>): Phase[] {
  const tail = shell.phases.filter((p) => p.name === 'workspace automations');
  for (const p of tail) {
    p.steps = creationOrder(input.workspaceAutomations).map((a) => {
      const body = mapUsers({ name: a.name, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive }, input.userMap);
      return { op: 'createWorkspaceAutomation', kind: 'automation', key: `ws-automation:${a.id}`, oldId: a.id, chain: `ws-automations:${input.workspace.id}`, workspaceId: wsId, body: remappable(body, allIds) } satisfies Step;
    });
  }
  return tail;
}

/** Whole groups of modules naming each other, about `limit` records a batch, in the workspace's order. */
function makeBatches(index: ModuleIndex, groups: ReturnType<typeof moduleGroups>, limit: number): WorkspaceBatch[] {
  const byRoot = new Map<string, string[]>();
  for (const id of index.present) {
    const r = groups.root(id);
    if (!byRoot.has(r)) byRoot.set(r, []);
    byRoot.get(r)!.push(id);
  }
  const batches: WorkspaceBatch[] = [];
  let open: WorkspaceBatch | null = null;
  for (const group of byRoot.values()) {
    const n = group.reduce((k, id) => k + (index.records.get(id) ?? 0), 0);
    if (!open || open.records >= limit || open.records + n > limit) {
      open = { moduleIds: [], records: 0 };
      batches.push(open);
    }
    open.moduleIds.push(...group);
    open.records += n;
  }
  // keep the workspace's module order inside a batch
  const rank = new Map(index.present.map((id, i) => [id, i]));
  for (const b of batches) b.moduleIds.sort((x, y) => rank.get(x)! - rank.get(y)!);
  return batches;
}

/** A batch's content phases: its modules planned again, structure left out (the head made it). */
function batchPhases(batch: WorkspaceBatch, planOf: (id: string) => RestorePlan | null): Phase[] {
  const content = new Map<string, Step[]>();
  const seqs: string[][] = [];
  for (const id of batch.moduleIds) {
    const plan = planOf(id);
    if (!plan) continue;
    const seq: string[] = [];
    for (const p of plan.phases) {
      if (STRUCTURE_PHASES.has(p.name)) continue;
      seq.push(p.name);
      const list = content.get(p.name) ?? [];
      for (const s of p.steps) list.push(s.op === 'grantAccess' ? { ...s, chain: `grants:${s.userId}` } : s);
      content.set(p.name, list);
    }
    seqs.push(seq);
  }
  return mergeOrders(seqs)
    .filter((n) => content.get(n)?.length)
    .map((name) => ({ name, steps: content.get(name)! }));
}

export function planWorkspaceInBatches(input: BatchedPlanInput): BatchedWorkspacePlan {
  const mapped = (id: string): string => input.userMap.get(id) ?? id;
  const members = input.members.filter((m) => m.status !== 'removed');
  const memberIds = new Set(members.map((m) => mapped(m.userId)));
  const userNames = new Map(members.map((m) => [m.userId, displayName(m)]));

  // 1. every restored id, and the module holding it
  const index = indexModules(input);
  const allIds: ReadonlySet<string> = new Set(index.owner.keys());
  const wsId = 'create' in input.target ? input.workspace.id : input.target.into;
  const planOf = (id: string): RestorePlan | null => {
    const original = input.loadTree(id);
    if (!original) return null;
    const tree = mapUsers({ ...original, grants: original.grants?.map(mapped) ?? null }, input.userMap);
    return planRestore({ tree, targetWorkspaceId: wsId, liveModuleIds: input.liveModuleIds, moduleNames: index.moduleNames, memberIds, userNames, attribution: input.attribution, alsoInternal: allIds });
  };

  // 2. every module planned once: the head (workspace, members, structure), the whole plan's
  // figures, and which modules name each other (they go in one batch)
  const shell = planWorkspace({ ...input, modules: [] });
  const groups = moduleGroups(index.present);
  const { head, steps: headAndContent } = planHead(input, index, planOf, shell, groups);
  const tail = planTail(input, shell, wsId, allIds);
  const steps = headAndContent + tail.reduce((n, p) => n + p.steps.length, 0);

  // 3. batches: whole groups of modules naming each other, in the workspace's order
  const batches = makeBatches(index, groups, input.batchRecords ?? BATCH_RECORDS);
  const whole = (): WorkspacePlan => planWorkspace({ ...input, modules: index.present.map((id) => input.loadTree(id)).filter((t): t is ModuleTree => t !== null) });
  return { head, batches, phasesOf: (batch) => batchPhases(batch, planOf), tail, steps, whole };
}
