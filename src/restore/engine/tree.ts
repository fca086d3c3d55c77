// A module with everything in it, as one value: what diff compares and what restore plans from.
// Read either from the store (the state as of a snapshot) or live, through the LiveModuleReader
// port (the sync crawler, injected by the CLI, so both sides come out of the very same normalisers).

import type { Amendment, Automation, BoardRecord, Cell, Collection, Column, Member, Module } from '../../domain/entities.js';
import { isWbsyncError } from '../../domain/errors.js';
import type { ServiceClient } from '../../api/port.js';
import type Database from 'better-sqlite3';
import { erasedIn, erasedSet } from '../../store/erasure/index.js';
import type { StateReader } from '../../store/port.js';
import type { NotRestored } from './plan-steps.js';
import { commandLine } from '../../domain/shell-command.js';

export interface ModuleTree {
  module: Module;
  collections: Collection[];
  /** Both scopes. */
  columns: Column[];
  /** Records and sub-records, archived ones included when the source can see them. */
  records: BoardRecord[];
  cells: Cell[];
  amendments: Amendment[];
  /** Module-scope automations. */
  automations: Automation[];
  /** User ids holding an explicit grant on the module; null when the reader may not see grants. */
  grants: string[] | null;
  /** Creation times of collections and columns the activity feed saw created (their objects may
   * carry none): restore orders siblings tied in position by them. */
  creationTimes?: ReadonlyMap<string, string>;
  /** What the erasure ledger took out of this module (wbsync erase): listed by restores, never
   * restored; an erased person's amendments are left out here, their replies kept. */
  erased?: NotRestored[];
}

/**
 * Amendments without those of erased persons: their text is gone ("[erased]") and is not posted
 * again. A reply to one moves up to the erased amendment's own parent so the thread stays readable.
 */
export function withoutErasedAuthors(amendments: Amendment[], users: ReadonlySet<string>, erasedAt: (userId: string) => string): { kept: Amendment[]; skipped: NotRestored[] } {
  if (users.size === 0) return { kept: amendments, skipped: [] };
  const gone = new Map(amendments.filter((a) => a.userId !== null && users.has(a.userId)).map((a) => [a.id, a]));
  if (gone.size === 0) return { kept: amendments, skipped: [] };
  const up = (parent: string | null): string | null => {
    let p = parent;
    for (let i = 0; p !== null && gone.has(p) && i < 64; i++) p = gone.get(p)!.parentId;
    return p;
  };
  const kept = amendments.filter((a) => !gone.has(a.id)).map((a) => (a.parentId !== null && gone.has(a.parentId) ? { ...a, parentId: up(a.parentId) } : a));
  const skipped = [...gone.values()].map((a) => ({ entity: 'amendment', id: a.id, label: '[erased]', reason: `by a person erased on ${erasedAt(a.userId!)} (by ${commandLine(['wbsync', 'erase', '--user', a.userId!])}): not restored; replies to it are kept` }));
  return { kept, skipped };
}

/** The ledger's view for restoring `moduleIds`: erased persons, and what was erased from there. */
export function erasureView(db: Database.Database | undefined, moduleIds: string[]): { users: ReadonlySet<string>; erasedAt: (u: string) => string; listed: NotRestored[] } {
  if (!db) return { users: new Set(), erasedAt: () => '', listed: [] };
  const skips = erasedIn(db, { moduleIds });
  const at = new Map(skips.filter((x) => x.kind === 'user').map((x) => [x.id, x.erasedAt]));
  return {
    users: erasedSet(db).users,
    erasedAt: (u) => at.get(u) ?? '?',
    listed: skips
      .filter((x) => x.kind !== 'user')
      .map((x) => ({ entity: x.kind, id: x.id, label: '[erased]', reason: `erased on ${x.erasedAt} (by ${x.erasure}): not in any snapshot, not restored` })),
  };
}

export function treeFromState(state: StateReader, moduleId: string, ledger?: Database.Database): ModuleTree | null {
  const module = state.module(moduleId);
  if (!module) return null;
  const view = erasureView(ledger, [moduleId]);
  const amendments = withoutErasedAuthors(state.amendments(moduleId), view.users, view.erasedAt);
  const grants = state
    .moduleAccess(module.workspaceId)
    .filter((a) => a.moduleId === moduleId && a.granted)
    .map((a) => a.userId)
    .sort();
  const collections = state.collections(moduleId);
  const columns = state.columns(moduleId);
  // Only snapshots taken before tie ranks were kept need the feed's creation rows (a scan of the
  // workspace's activity): skipped when every collection and column carries its rank.
  const unranked = [...collections, ...columns].some((x) => x.tieRank === null && typeof x.raw['createdAt'] !== 'string');
  return {
    module,
    collections,
    columns,
    records: state.records(moduleId),
    cells: state.cells(moduleId),
    amendments: amendments.kept,
    automations: state.moduleAutomations(moduleId),
    grants,
    creationTimes: unranked ? state.creationTimes(module.workspaceId, moduleId) : new Map(),
    erased: [...view.listed, ...amendments.skipped],
  };
}

/** Explicit grants per user of a workspace, read live; null when the key may not read them. */
export async function readGrantsLive(client: ServiceClient, workspaceId: string, members: Member[]): Promise<Map<string, Set<string>> | null> {
  const out = new Map<string, Set<string>>();
  try {
    await Promise.all(
      members.map(async (m) => {
        const rows = await client.getModuleAccess(workspaceId, m.userId);
        out.set(m.userId, new Set(rows.filter((r) => r.granted).map((r) => r.moduleId)));
      }),
    );
  } catch (e) {
    if (isWbsyncError(e) && e.code === 'forbidden') return null;
    throw e;
  }
  return out;
}

export function grantsOf(moduleId: string, grants: Map<string, Set<string>> | null): string[] | null {
  if (!grants) return null;
  return [...grants.entries()].filter(([, ids]) => ids.has(moduleId)).map(([u]) => u).sort();
}

/** What a live read of one module gives: everything in it but the module and its grants. */
export type LiveModuleContent = Pick<ModuleTree, 'collections' | 'columns' | 'records' | 'cells' | 'amendments' | 'automations'>;

/**
 * The port restore reads a module live through (the sync crawler implements it; the CLI injects
 * it). `known` (a snapshot's state) lets the reader tell archived records (still answering by id)
 * from deleted ones; records archived before are not listable live and so are absent.
 */
export type LiveModuleReader = (client: ServiceClient, module: Module, known: StateReader | null) => Promise<LiveModuleContent>;

/** A module read live through `read`, with the grants read beside it. */
export async function treeFromLive(
  read: LiveModuleReader,
  client: ServiceClient,
  module: Module,
  known: StateReader | null,
  grants: Map<string, Set<string>> | null,
): Promise<ModuleTree> {
  const c = await read(client, module, known);
  return { module, collections: c.collections, columns: c.columns, records: c.records, cells: c.cells, amendments: c.amendments, automations: c.automations, grants: grantsOf(module.id, grants) };
}
