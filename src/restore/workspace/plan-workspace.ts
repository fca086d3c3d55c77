// The workspace restore planner: pure. The workspace (created, or an existing one to restore into),
// its members with their roles, every module as `restore module` plans it — merged phase by phase,
// so every module exists before any column, every record before any cell, and relations between
// the restored modules are remapped like a module's own ids — then the automations that watch every
// module. Users are mapped old → new (--map-users) in every value that names them first.

import type { Automation, Member, Workspace } from '../../domain/entities.js';
import { planRestore } from '../module/plan.js';
import type { NotRestored, Phase, RestorePlan, Step } from '../engine/plan-steps.js';
import { remappable, translateIds } from '../engine/remap.js';
import { creationOrder } from '../engine/sibling-order.js';
import type { ModuleTree } from '../engine/tree.js';
import { memberName } from '../../domain/member-name.js';

export interface WorkspacePlanInput {
  workspace: Workspace;
  members: Member[];
  modules: ModuleTree[];
  workspaceAutomations: Automation[];
  /** Create a workspace with this name, or restore into this live workspace id. */
  target: { create: string } | { into: string };
  /** Old user id → user id on the target (identity when absent). */
  userMap: ReadonlyMap<string, string>;
  /** Users already members of the target (an `into` workspace): not added again. */
  presentUsers: ReadonlySet<string>;
  /** Modules live on the target (values naming them stay as they are). */
  liveModuleIds: ReadonlySet<string>;
  attribution: string;
}

export interface WorkspacePlan extends RestorePlan {
  modules: { sourceModuleId: string; name: string; counts: Record<string, number> }[];
  members: { toAdd: number; present: number };
  automations: { workspace: number; module: number };
}

/** Every string in `v` naming an old user, swapped for the mapped one; JSON text inside strings too
 * (person cells hold arrays of ids as text). */
export function mapUsers<T>(v: T, map: ReadonlyMap<string, string>): T {
  if (map.size === 0) return v;
  const swap = (x: unknown): unknown => {
    if (typeof x === 'string') {
      if (map.has(x)) return map.get(x);
      if ((x.startsWith('[') || x.startsWith('{')) && [...map.keys()].some((k) => x.includes(k))) {
        try {
          return JSON.stringify(translateIds(JSON.parse(x) as unknown, map));
        } catch {
          return x;
        }
      }
      return x;
    }
    if (Array.isArray(x)) return x.map(swap);
    // plain objects only: a tree also holds Maps (creation times) that carry no user ids
    if (x && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype) return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, swap(y)]));
    return x;
  };
  return swap(v) as T;
}


export function planWorkspace(input: WorkspacePlanInput): WorkspacePlan {
  const ws = input.workspace;
  const wsId = 'create' in input.target ? ws.id : input.target.into;
  const notRestored: NotRestored[] = [];
  const counts: Record<string, number> = {};
  const byName = new Map<string, Step[]>();
  const sequences: string[][] = [];
  const add = (name: string, steps: Step[]): void => {
    if (!steps.length) return;
    if (!byName.has(name)) byName.set(name, []);
    byName.get(name)!.push(...steps);
  };
  const mapped = (id: string): string => input.userMap.get(id) ?? id;

  if ('create' in input.target) {
    const then: { description?: string; banner?: string } = {};
    if (ws.description) then.description = ws.description;
    if (ws.banner) then.banner = ws.banner;
    add('workspace', [{ op: 'createWorkspace', kind: 'workspace', key: `workspace:${ws.id}`, oldId: ws.id, name: input.target.create, ...(ws.icon ? { icon: ws.icon } : {}), then }]);
    counts['workspaces'] = 1;
  }

  const members = input.members.filter((m) => m.status !== 'removed');
  const toAdd = members.filter((m) => !input.presentUsers.has(mapped(m.userId)));
  add(
    'members',
    toAdd.map((m) => ({ op: 'addMember', key: `member:${m.userId}`, workspaceId: wsId, userId: mapped(m.userId), role: m.role, label: `${memberName(m)} (${m.role})` }) satisfies Step),
  );
  counts['members'] = toAdd.length;
  const memberIds = new Set(members.map((m) => mapped(m.userId)));
  const userNames = new Map(members.map((m) => [m.userId, memberName(m)]));

  // every restored module's ids are "internal" to every module's plan: relations between them remap
  const allIds = new Set<string>();
  for (const t of input.modules) for (const x of [t.module, ...t.collections, ...t.columns, ...t.records]) allIds.add(x.id);
  const moduleNames = new Map(input.modules.map((t) => [t.module.id, t.module.name]));
  const modules: WorkspacePlan['modules'] = [];
  let moduleAutomations = 0;
  for (const original of input.modules) {
    const tree = mapUsers({ ...original, grants: original.grants?.map(mapped) ?? null }, input.userMap);
    const plan = planRestore({ tree, targetWorkspaceId: wsId, liveModuleIds: input.liveModuleIds, moduleNames, memberIds, userNames, attribution: input.attribution, alsoInternal: allIds });
    modules.push({ sourceModuleId: tree.module.id, name: tree.module.name, counts: plan.counts });
    moduleAutomations += plan.counts['automations'] ?? 0;
    for (const [k, n] of Object.entries(plan.counts)) counts[k] = (counts[k] ?? 0) + n;
    notRestored.push(...plan.notRestored);
    for (const p of plan.phases) add(p.name, p.steps.map((s) => (s.op === 'grantAccess' ? { ...s, chain: `grants:${s.userId}` } : s)));
    sequences.push(plan.phases.map((p) => p.name));
  }
  const order = ['workspace', 'members', ...mergeOrders(sequences)].filter((n) => byName.has(n));
  splitCrossModuleColumns(byName, order, input.modules);

  const wsAutomations = creationOrder(input.workspaceAutomations).map((a) => {
    const body = mapUsers({ name: a.name, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive }, input.userMap);
    return { op: 'createWorkspaceAutomation', kind: 'automation', key: `ws-automation:${a.id}`, oldId: a.id, chain: `ws-automations:${ws.id}`, workspaceId: wsId, body: remappable(body, allIds) } satisfies Step;
  });
  add('workspace automations', wsAutomations);
  if (wsAutomations.length) order.push('workspace automations');
  counts['workspaceAutomations'] = wsAutomations.length;

  const phases: Phase[] = order.map((name) => ({ name, steps: byName.get(name)! }));
  return {
    moduleId: '',
    moduleName: ws.name,
    targetWorkspaceId: wsId,
    phases,
    counts,
    notRestored,
    modules,
    members: { toAdd: toAdd.length, present: members.length - toAdd.length },
    automations: { workspace: wsAutomations.length, module: moduleAutomations },
  };
}

/** One order of phase names that keeps every module plan's order (each plan may skip phases it
 * has nothing for): a topological merge, earliest-seen first among the free ones. */
export function mergeOrders(sequences: string[][]): string[] {
  const names: string[] = [];
  const after = new Map<string, Set<string>>();
  const before = new Map<string, number>();
  for (const seq of sequences) {
    for (const n of seq) {
      if (!after.has(n)) {
        after.set(n, new Set());
        before.set(n, 0);
        names.push(n);
      }
    }
    for (let i = 1; i < seq.length; i++) {
      const edges = after.get(seq[i - 1]!)!;
      if (!edges.has(seq[i]!)) {
        edges.add(seq[i]!);
        before.set(seq[i]!, before.get(seq[i]!)! + 1);
      }
    }
  }
  const out: string[] = [];
  while (out.length < names.length) {
    const next = names.find((n) => !out.includes(n) && before.get(n) === 0);
    if (!next) throw new Error(`restore workspace: module plans order their phases differently (${names.join(', ')})`);
    out.push(next);
    for (const m of after.get(next)!) before.set(m, before.get(m)! - 1);
  }
  return out;
}

/** Columns whose settings name a column of another restored module (a reference through a relation)
 * wait for every module's columns: they go to a phase of their own right after. */
export function splitCrossModuleColumns(byName: Map<string, Step[]>, order: string[], trees: Pick<ModuleTree, 'module' | 'columns'>[]): void {
  const columns = byName.get('columns');
  if (!columns) return;
  const moduleOfColumn = new Map<string, string>();
  for (const t of trees) for (const c of t.columns) moduleOfColumn.set(c.id, t.module.id);
  const late = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of columns) {
      if (s.op !== 'createColumn' || late.has(s.oldId)) continue;
      const own = moduleOfColumn.get(s.oldId);
      if (s.body.refs.some((r) => (moduleOfColumn.has(r) && moduleOfColumn.get(r) !== own) || late.has(r))) {
        late.add(s.oldId);
        grew = true;
      }
    }
  }
  if (!late.size) return;
  byName.set('columns', columns.filter((s) => !(s.op === 'createColumn' && late.has(s.oldId))));
  byName.set('columns naming other modules', columns.filter((s) => s.op === 'createColumn' && late.has(s.oldId)));
  order.splice(order.indexOf('columns') + 1, 0, 'columns naming other modules');
}
