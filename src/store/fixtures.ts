// Entity builders for tests (store tests and anyone else's): minimal valid entities with `raw`
// mirroring the fields, overridable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  Activity, Amendment, Automation, BoardRecord, Cell, Collection, Column, Member, Module, ModuleAccess, Workspace,
} from '../domain/entities.js';

const T = '2026-01-15T09:00:00.000Z';

export function makeWorkspace(id: string, over: Partial<Workspace> = {}): Workspace {
  return { id, name: `Workspace ${id}`, slug: id, description: null, icon: null, banner: null, createdAt: T, updatedAt: T, raw: { _id: id }, ...over };
}
export function makeMember(workspaceId: string, userId: string, over: Partial<Member> = {}): Member {
  return {
    workspaceId, userId, membershipId: `m-${userId}`, role: 'member', status: 'active', firstName: 'Ada', lastName: 'L',
    email: `${userId}@example.com`, joinedAt: T, raw: { user: userId }, ...over,
  };
}
export function makeModule(id: string, workspaceId: string, over: Partial<Module> = {}): Module {
  return {
    id, workspaceId, name: `Module ${id}`, description: null, icon: null, color: '#fff', visibility: 'private',
    tags: [{ label: 'a', color: 'red' }], createdAt: T, updatedAt: T, raw: { _id: id }, ...over,
  };
}
export function makeCollection(id: string, moduleId: string, over: Partial<Collection> = {}): Collection {
  return { id, moduleId, name: `Collection ${id}`, color: null, position: 1, isCollapsed: false, tieRank: null, raw: { _id: id }, ...over };
}
export function makeColumn(id: string, moduleId: string, over: Partial<Column> = {}): Column {
  return {
    id, moduleId, scope: 'record', name: `Column ${id}`, type: 'text', position: 0, width: 120, isRequired: false,
    isHidden: false, statusOptions: null, settings: null, tieRank: null, raw: { _id: id }, ...over,
  };
}
export function makeRecord(id: string, moduleId: string, collectionId: string | null, over: Partial<BoardRecord> = {}): BoardRecord {
  return {
    id, workspaceId: 'w1', moduleId, collectionId, parentRecordId: null, name: `Record ${id}`, position: 1,
    isCompleted: false, isArchived: false, subRecordCount: 0, amendmentCount: 0, createdAt: T, updatedAt: T, raw: { _id: id }, ...over,
  };
}
export function makeCell(id: string, recordId: string, columnId: string | null, over: Partial<Cell> = {}): Cell {
  return { id, recordId, columnId, value: `v-${id}`, createdAt: T, updatedAt: T, raw: { _id: id }, ...over };
}
export function makeAmendment(id: string, recordId: string, over: Partial<Amendment> = {}): Amendment {
  return {
    id, workspaceId: 'w1', moduleId: null, recordId, parentId: null, userId: 'u1', message: `note ${id}`, edited: false,
    isDeleted: false, createdAt: T, raw: { _id: id }, ...over,
  };
}
export function makeAutomation(id: string, workspaceId: string, moduleId: string | null, over: Partial<Automation> = {}): Automation {
  return {
    id, workspaceId, moduleId, scope: moduleId ? 'module' : 'workspace', name: `Auto ${id}`, trigger: { type: 'created' },
    conditions: [], match: 'all', actions: [{ type: 'notify' }], isActive: true, runCount: 0, lastRunAt: null, lastError: null,
    createdAt: T, raw: { _id: id }, ...over,
  };
}
export function makeActivity(id: string, workspaceId: string, over: Partial<Activity> = {}): Activity {
  return {
    id, workspaceId, action: 'record.created', message: null, targetName: null, moduleId: null, collectionId: null,
    recordId: null, columnId: null, userId: 'u1', automationId: null, before: null, after: '{"a":1}', createdAt: T,
    raw: { _id: id }, ...over,
  };
}
export function makeModuleAccess(workspaceId: string, userId: string, moduleId: string, over: Partial<ModuleAccess> = {}): ModuleAccess {
  return { workspaceId, userId, moduleId, granted: true, openToRole: false, canAccess: true, isCreator: false, raw: { moduleId }, ...over };
}

/** A fresh temporary folder and a cleanup for afterEach. */
export function makeTempDir(prefix = 'wbsync-store-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The source of a function `(fs) => { [tid]: nice }`: the nice value of each thread of the process
 * it runs in (field 19 of /proc/self/task/<tid>/stat; Linux; {} without /proc). A source, so a
 * child process a test starts reads its threads the same way (threadNices reads this one's).
 */
export const THREAD_NICES_SOURCE = `(fs) => {
  const out = {};
  if (!fs.existsSync('/proc/self/task')) return out;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
      out[tid] = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}`;

const readNices = new Function(`return ${THREAD_NICES_SOURCE}`)() as (f: typeof fs) => Record<string, number>;

/** The nice value of each thread of this process, by thread id (THREAD_NICES_SOURCE). */
export function threadNices(): Map<number, number> {
  return new Map(Object.entries(readNices(fs)).map(([tid, nice]) => [Number(tid), nice]));
}
