// `wbsync diff`: gathers both sides for the asked scope (one module, one workspace, everything)
// and compares them module by module. Sides: snapshot N vs live (read through the LiveModuleReader port: the sync crawler) or
// snapshot N vs snapshot M (offline). A module that is gone live but was restored by wbsync is
// compared with its restored copy through the restore journal's id map (so a faithful restore
// shows no difference); `restoredAs` names a live copy explicitly (matched by shape).

import type { ServiceClient } from '../../api/port.js';
import type { Automation, Member, Module } from '../../domain/entities.js';
import { WbsyncError } from '../../domain/errors.js';
import type { StateReader, Store } from '../../store/port.js';
import { canon, diffModuleTrees, type DiffOptions, type EntityDiff, type ModuleDiff } from './trees.js';
import { filterEntries, type DiffSelection } from './filter.js';
import { pairRestoredModule } from './pairing.js';
import { restoredIdMap, restoredModules, rolledBackIdMap } from '../../store/ledgers/index.js';
import { columnIdsOf, type RollbackKind } from '../rollback/selection.js';
import { readGrantsLive, treeFromLive, treeFromState, type LiveModuleReader, type ModuleTree } from '../engine/tree.js';
import { memberName } from '../../domain/member-name.js';

export interface DiffScopeOptions {
  snapshotId?: number;
  moduleId?: string;
  workspaceId?: string;
  /** 'live' (default) or another snapshot id. */
  against?: 'live' | number;
  /** Compare --module (from the snapshot) with this live module, modulo ids. */
  restoredAs?: string;
  /** config.restore.attribution, stripped from restored amendments. */
  attribution: string;
  /** With moduleId: only these parts (a rollback's selection); column names allowed. */
  selection?: { kinds?: RollbackKind[]; columns?: string[]; records?: string[]; collections?: string[] };
}

export interface WorkspaceDiff {
  workspaceId: string;
  entries: EntityDiff[];
}

export interface DiffReport {
  snapshot: number;
  against: 'live' | number;
  modules: ModuleDiff[];
  workspaces: WorkspaceDiff[];
  differences: number;
  /** How --module was paired through the restore journal (a restored module), when it was. */
  pairing?: string;
}

interface Sides {
  workspaces(): Promise<string[]>;
  modules(ws: string): Promise<Module[]>;
  members(ws: string): Promise<Member[]>;
  automations(ws: string): Promise<Automation[]>;
  tree(m: Module, ws: string): Promise<ModuleTree>;
}

function offline(state: StateReader): Sides {
  return {
    workspaces: async () => state.workspaces().map((w) => w.id),
    modules: async (ws) => state.modules(ws),
    members: async (ws) => state.members(ws),
    automations: async (ws) => state.workspaceAutomations(ws),
    tree: async (m) => treeFromState(state, m.id)!,
  };
}

function live(client: ServiceClient, read: LiveModuleReader, known: StateReader): Sides {
  const grants = new Map<string, Promise<Map<string, Set<string>> | null>>();
  const members = new Map<string, Promise<Member[]>>();
  const membersOf = (ws: string): Promise<Member[]> => {
    if (!members.has(ws)) members.set(ws, client.listMembers(ws));
    return members.get(ws)!;
  };
  return {
    workspaces: async () => (await client.listWorkspaces()).map((w) => w.id),
    modules: (ws) => client.listModules(ws),
    members: membersOf,
    automations: (ws) => client.listWorkspaceAutomations(ws),
    tree: async (m, ws) => {
      if (!grants.has(ws)) grants.set(ws, membersOf(ws).then((ms) => readGrantsLive(client, ws, ms)));
      return treeFromLive(read, client, m, known, await grants.get(ws)!);
    },
  };
}

function compareById<T>(entity: EntityDiff['entity'], a: T[], b: T[], id: (x: T) => string, label: (x: T) => string, fields: (x: T) => unknown): EntityDiff[] {
  const out: EntityDiff[] = [];
  const bm = new Map(b.map((x) => [id(x), x]));
  for (const x of a) {
    const y = bm.get(id(x));
    if (!y) out.push({ entity, change: 'removed', id: id(x), label: label(x) });
    else {
      const fa = fields(x) as Record<string, unknown>;
      const fb = fields(y) as Record<string, unknown>;
      const changed = Object.keys(fa).filter((k) => canon(fa[k]) !== canon(fb[k])).map((k) => ({ field: k, before: fa[k], after: fb[k] }));
      if (changed.length) out.push({ entity, change: 'changed', id: id(x), label: label(x), fields: changed });
    }
  }
  const am = new Set(a.map(id));
  for (const y of b) if (!am.has(id(y))) out.push({ entity, change: 'added', id: id(y), label: label(y) });
  return out;
}

/** Flags to ids: column names are looked up in both trees, the snapshot's first. */
function selectionOf(s: NonNullable<DiffScopeOptions['selection']>, a: ModuleTree, b: ModuleTree): DiffSelection {
  const set = (xs: string[] | undefined): Set<string> | null => (xs?.length ? new Set(xs) : null);
  return { kinds: s.kinds?.length ? new Set(s.kinds) : null, columns: columnIdsOf(s.columns, [...a.columns, ...b.columns], a.module.name), records: set(s.records), collections: set(s.collections) };
}

/** What every module and workspace of one diff shares: the two sides and how they pair. */
interface DiffRun {
  store: Store;
  opts: DiffScopeOptions;
  a: Sides;
  b: Sides;
  isLive: boolean;
  /** Modules wbsync restored, by their old id: compared with the copy when gone live. */
  restored: ReturnType<typeof restoredModules>;
  base: DiffOptions;
}

/** `client` and `readLive` (the sync crawler, through restore's port) are needed against live only. */
export async function runDiff(deps: { client?: ServiceClient; readLive?: LiveModuleReader; store: Store }, opts: DiffScopeOptions): Promise<DiffReport> {
  const { store } = deps;
  const from = snapshotSide(store, opts);
  const { snapshot, aState, pairing } = from;
  opts = from.opts;
  const against = opts.against ?? 'live';
  const a = offline(aState);
  const b = otherSide(deps, against, aState);
  const isLive = against === 'live';
  const run: DiffRun = { store, opts, a, b, isLive, restored: isLive ? restoredModules(store.db) : new Map(), base: { matchBy: 'id', bHidesArchived: isLive } };

  const report: DiffReport = { snapshot, against, modules: [], workspaces: [], differences: 0, ...(pairing ? { pairing } : {}) };
  const modulesOfA = opts.moduleId ? [aState.module(opts.moduleId)].filter((m): m is Module => m !== null) : null;
  if (opts.moduleId && !modulesOfA?.length) throw new WbsyncError('usage', `snapshot ${snapshot} does not hold module ${opts.moduleId}`);

  let workspaces: string[];
  if (modulesOfA) workspaces = [modulesOfA[0].workspaceId];
  else if (opts.workspaceId) workspaces = [opts.workspaceId];
  else workspaces = [...new Set([...(await a.workspaces()), ...(await b.workspaces())])].sort();

  for (const ws of workspaces) {
    const wsEntries = await diffWorkspace(run, ws, modulesOfA, report);
    if (wsEntries.length) report.workspaces.push({ workspaceId: ws, entries: wsEntries });
    report.differences += wsEntries.length;
  }
  return report;
}

/** The snapshot side: the one asked for (or the latest complete); a module it does not hold that
 * wbsync restored (or a restore's copy) is paired with the snapshot it came from. */
function snapshotSide(store: Store, opts: DiffScopeOptions): { snapshot: number; aState: StateReader; opts: DiffScopeOptions; pairing?: string } {
  let snapshot = opts.snapshotId ?? store.latestCompleteSnapshot();
  if (snapshot === null || snapshot === undefined) throw new WbsyncError('usage', 'no complete snapshot to compare', { hint: "run 'wbsync sync' first" });
  const aState = store.stateAt(snapshot);
  if (!aState) throw new WbsyncError('usage', `snapshot ${snapshot} does not exist or is not complete`);
  if (!opts.moduleId || opts.restoredAs || aState.module(opts.moduleId)) return { snapshot, aState, opts };
  const p = pairRestoredModule(store, opts.moduleId, { asked: opts.snapshotId, snapshot, live: (opts.against ?? 'live') === 'live' });
  snapshot = p.snapshot;
  return { snapshot, aState: store.stateAt(snapshot)!, opts: { ...opts, moduleId: p.moduleId, ...(p.restoredAs ? { restoredAs: p.restoredAs } : {}) }, pairing: p.note };
}

/** The other side: live (through the service) or another snapshot. */
function otherSide(deps: { client?: ServiceClient; readLive?: LiveModuleReader; store: Store }, against: 'live' | number, aState: StateReader): Sides {
  if (against === 'live') {
    if (!deps.client) throw new WbsyncError('usage', 'diff against live needs the service (baseUrl and key)');
    if (!deps.readLive) throw new WbsyncError('internal', 'diff against live was given no live module reader');
    return live(deps.client, deps.readLive, aState);
  }
  const bState = deps.store.stateAt(against);
  if (!bState) throw new WbsyncError('usage', `snapshot ${against} does not exist or is not complete`);
  return offline(bState);
}

/** One workspace: each module of a against its counterpart (into the report), and the entries of
 * the workspace itself (modules removed, and unless one module was asked, added, members, automations). */
async function diffWorkspace(run: DiffRun, ws: string, modulesOfA: Module[] | null, report: DiffReport): Promise<EntityDiff[]> {
  const aMods = modulesOfA ?? (await run.a.modules(ws));
  const bMods = await run.b.modules(ws).catch(() => [] as Module[]);
  const bById = new Map(bMods.map((m) => [m.id, m]));
  const liveIds = new Set(bMods.map((m) => m.id));
  const journalMap = run.isLive ? restoredIdMap(run.store.db, liveIds) : new Map<string, string>();
  const wsEntries: EntityDiff[] = [];
  const pairedB = new Set<string>();
  for (const am of aMods) {
    const paired = await counterpart(run, am, ws, bById, journalMap, modulesOfA);
    if (!paired) {
      wsEntries.push({ entity: 'module', change: 'removed', id: am.id, label: am.name });
      continue;
    }
    pairedB.add(paired.target.id);
    const [aTree, bTree] = [await run.a.tree(am, ws), await run.b.tree(paired.target, ws)];
    const d = diffModuleTrees(aTree, bTree, paired.opt);
    if (run.opts.selection) d.entries = filterEntries(d.entries, aTree, bTree, paired.opt.idMap ?? new Map(), selectionOf(run.opts.selection, aTree, bTree));
    report.modules.push(d);
    report.differences += d.entries.length;
  }
  if (!modulesOfA) wsEntries.push(...(await workspaceEntries(run, ws, bMods, pairedB)));
  return wsEntries;
}

/** The b-side module a module of a is compared with, and how: by id (the same module), by shape
 * (--restored-as, or its restored copy when gone), or through a rollback's new ids; null: gone. */
async function counterpart(run: DiffRun, am: Module, ws: string, bById: Map<string, Module>, journalMap: Map<string, string>, modulesOfA: Module[] | null): Promise<{ target: Module; opt: DiffOptions } | null> {
  const { opts, base } = run;
  let target = bById.get(am.id);
  let opt: DiffOptions = base;
  const explicit = opts.restoredAs && modulesOfA ? opts.restoredAs : undefined;
  const viaJournal = run.restored.get(am.id)?.newModuleId;
  if (explicit || (!target && viaJournal && bById.has(viaJournal))) {
    const id = explicit ?? viaJournal!;
    target = bById.get(id) ?? (await run.b.modules(ws)).find((m) => m.id === id);
    if (!target) throw new WbsyncError('usage', `module ${id} is not live in workspace ${ws}`);
    opt = { ...base, matchBy: 'shape', idMap: journalMap, acrossRestore: true, attribution: opts.attribution };
  }
  if (!target) return null;
  // objects a rollback recreated with new ids pair with the snapshot's (amendments it re-posted
  // carry the attribution line and the restorer as author)
  const rolled = run.isLive && opt.matchBy === 'id' ? rolledBackIdMap(run.store.db, am.id) : new Map<string, string>();
  if (rolled.size) opt = { ...opt, idMap: rolled, acrossRestore: true, attribution: opts.attribution };
  return { target, opt };
}

/** The workspace's own entries: live modules neither paired nor a restored copy, members, automations. */
async function workspaceEntries(run: DiffRun, ws: string, bMods: Module[], pairedB: Set<string>): Promise<EntityDiff[]> {
  const { a, b } = run;
  const out: EntityDiff[] = [];
  const restoredCopies = new Set([...run.restored.values()].map((r) => r.newModuleId));
  for (const bm of bMods) if (!pairedB.has(bm.id) && !restoredCopies.has(bm.id)) out.push({ entity: 'module', change: 'added', id: bm.id, label: bm.name });
  out.push(
    ...compareById('member', await a.members(ws), await b.members(ws).catch(() => []), (m) => m.userId, memberName, (m) => ({ role: m.role, status: m.status })),
    ...compareById('workspaceAutomation', await a.automations(ws), await b.automations(ws).catch(() => []), (x) => x.id, (x) => x.name, (x) => ({
      name: x.name,
      trigger: x.trigger,
      conditions: x.conditions,
      match: x.match,
      actions: x.actions,
      isActive: x.isActive,
    })),
  );
  return out;
}
