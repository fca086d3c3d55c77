// Shared pieces of the rollback integration tests (rollback-scenarios, rollback-crash): a harness on
// the demo seed whose clock is wall time (so the feed's times and the snapshots' times compare as
// they would in production, where the service and wbsync share a clock), plain-API writes for damage and later edits, the rollback through
// the function or the CLI, the "dying client" proxy, and edits of an expected module view.

import { expect } from 'vitest';
import type { ServiceClient } from '../../src/api/port.js';
import { runCli } from '../../src/cli/run.js';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf, rollback, type FieldChange, type RollbackResult, type RollbackScope, type RollbackTo } from '../../src/restore/index.js';
import { readModuleLive } from '../../src/sync/live-module.js';
import { api, dumpOf, makeHarness, silentLogger, unwrap, type Harness } from './harness.js';
import { compareModules, formatDifferences, invertIdMap } from './module-compare.js';
import { readModule, type ModuleView } from './module-snapshot.js';

export const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';
export { WRITE } from './dying-client.js';

export interface Board {
  h: Harness;
  dialect: Dialect;
  ws: string;
  mod: string;
  /** Names → ids in the module (record names are unique in the demo seed). */
  col: (name: string, scope?: 'record' | 'subrecord') => string;
  coll: (name: string) => string;
  rec: (name: string, parentName?: string) => string;
  /** The module read live before the damage. */
  good: ModuleView;
  /** The full snapshot taken before the damage. */
  s1: number;
}

/** Demo seed, optional preparation (before the good read and the full sync), then both. */
export async function board(dialect: Dialect, moduleName: string, prepare?: (b: Omit<Board, 'good' | 's1'>) => Promise<void>): Promise<Board> {
  const h = await makeHarness(dialect, { clockMode: 'real', startTime: new Date() });
  const ws = (await h.client.listWorkspaces())[0]!.id;
  const dump = dumpOf(h.emu);
  const mod = dump.modules.find((m) => m.name === moduleName && !m.isDeleted)!._id as string;
  const live = () => dumpOf(h.emu);
  const col = (name: string, scope: 'record' | 'subrecord' = 'record'): string => {
    const c = live().columns.find((x) => x.module === mod && x.name === name && x.scope === scope && !x.isDeleted);
    if (!c) throw new Error(`no column ${name}`);
    return c._id;
  };
  const coll = (name: string): string => {
    const c = live().collections.find((x) => x.module === mod && x.name === name && !x.isDeleted);
    if (!c) throw new Error(`no collection ${name}`);
    return c._id;
  };
  const rec = (name: string, parentName?: string): string => {
    const d = live();
    const parent = parentName ? d.records.find((x) => x.module === mod && x.name === parentName && !x.parentRecord)?._id : null;
    const r = d.records.find((x) => x.module === mod && x.name === name && !x.isDeleted && (parentName ? x.parentRecord === parent : !x.parentRecord));
    if (!r) throw new Error(`no record ${name}`);
    return r._id;
  };
  const b = { h, dialect, ws, mod, col, coll, rec };
  if (prepare) await prepare(b);
  await h.emu.idle();
  const good = await readModule(h.emu, mod);
  const full = await h.sync({ full: true });
  expect(full.failures).toEqual([]);
  return { ...b, good, s1: full.snapshot };
}

/** A plain API call that must succeed; the body unwrapped when it is `{message, <key>}`. */
export async function call(h: Harness, method: string, path: string, body?: unknown, key?: string): Promise<any> {
  const r = await api(h.emu, method, path, body);
  expect(r.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(r.body).slice(0, 300)}`).toBeLessThan(300);
  return key ? unwrap(r.body, key) : r.body;
}

/** Sets a cell as a person would: PUT on the pair's value, POST when the pair is empty. */
export async function setCell(b: Pick<Board, 'h' | 'mod' | 'ws'>, recordId: string, columnId: string, value: string): Promise<void> {
  const d = dumpOf(b.h.emu);
  const v = d.values.find((x) => x.record === recordId && x.column === columnId && !x.isDeleted);
  if (v) return void (await call(b.h, 'PUT', `/record-values/${v._id}`, { value }));
  const r = d.records.find((x) => x._id === recordId)!;
  const top = r.parentRecord ? d.records.find((x) => x._id === r.parentRecord)! : r;
  await call(b.h, 'POST', '/record-values', { record: recordId, column: columnId, value, collectionName: top.collectionName, module: b.mod, workspace: b.ws });
}

/** The id of the live value of (record, column). */
export function cellId(h: Harness, recordId: string, columnId: string): string {
  const v = dumpOf(h.emu).values.find((x) => x.record === recordId && x.column === columnId && !x.isDeleted);
  if (!v) throw new Error(`no value for ${recordId}|${columnId}`);
  return v._id;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The pass that records the damage: incremental, or full where the feed cannot show it (README). */
export async function syncAfterDamage(h: Harness, opts: { full?: boolean } = {}): Promise<number> {
  await h.emu.idle();
  const r = await h.sync(opts);
  expect(r.failures).toEqual([]);
  expect(r.status).toBe('complete');
  return r.snapshot;
}

export async function runRollback(h: Harness, opts: Omit<RollbackScope, 'attribution'> & RollbackTo, client: ServiceClient = h.client): Promise<RollbackResult> {
  const r = await rollback({ client, store: h.store, logger: silentLogger, readLive: readModuleLive }, { attribution: ATTRIBUTION, settleMs: 1, ...opts });
  await h.emu.idle();
  return r;
}

export async function rollbackCli(h: Harness, args: string[]): Promise<{ code: number; out: string; err: string; json: any }> {
  let out = '';
  let err = '';
  const code = await runCli(['rollback', ...args, '--db', h.dbPath], {
    stdout: { write: (s) => void (out += s) },
    stderr: { write: (s) => void (err += s) },
    env: { WBSYNC_BASE_URL: h.emu.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_LOG_LEVEL: 'silent' },
  });
  await h.emu.idle();
  let json: any = null;
  try {
    json = JSON.parse(out);
  } catch {
    /* not JSON */
  }
  return { code, out, err, json };
}

/** Non-GET requests the emulator answered since `from` (an index into the request log). */
export function writesSince(h: Harness, from: number): string[] {
  return h.emu.requestLog
    .entries()
    .slice(from)
    .filter((e) => e.method !== 'GET')
    .map((e) => `${e.method} ${e.path}`);
}

/** The view without values whose column is gone (the deployed service keeps them, `column: null`). */
export function withoutOrphans(v: ModuleView): ModuleView {
  const out = structuredClone(v);
  for (const [rid, list] of Object.entries(out.cells)) {
    const kept = list.filter((c) => c.column !== null);
    if (kept.length) out.cells[rid] = kept;
    else delete out.cells[rid];
  }
  return out;
}

/** Differences between `expected` and the module read live now (ids mapped back through the run). */
export async function differencesFrom(b: Board, expected: ModuleView, runId: number | null): Promise<string[]> {
  const after = withoutOrphans(await readModule(b.h.emu, b.mod));
  const map = runId === null ? new Map<string, string>() : invertIdMap(idMapOf(b.h.store.db, runId));
  return formatDifferences(compareModules(expected, after, map));
}

// --- edits of an expected view (a deep copy of `good`)

function recordItem(v: ModuleView, id: string) {
  const item = [...Object.values(v.records).flat(), ...Object.values(v.subRecords).flat(), ...v.archived].find((r) => r.id === id);
  if (!item) throw new Error(`expected view: no record ${id}`);
  return item;
}
export function expectRecord(v: ModuleView, id: string, fields: Record<string, unknown>): void {
  Object.assign(recordItem(v, id).fields, fields);
}
export function expectCell(v: ModuleView, recordId: string, columnId: string, value: unknown): void {
  const list = (v.cells[recordId] ??= []);
  const c = list.find((x) => x.column === columnId);
  if (!c) throw new Error(`expected view: no cell ${recordId}|${columnId} (add it by hand)`);
  c.value = value;
}
export function expectColumn(v: ModuleView, id: string, fields: Record<string, unknown>): void {
  const c = [...v.columns.record, ...v.columns.subrecord].find((x) => x.id === id);
  if (!c) throw new Error(`expected view: no column ${id}`);
  Object.assign(c.fields, fields);
}
export function expectCollection(v: ModuleView, id: string, fields: Record<string, unknown>): void {
  const c = v.collections.find((x) => x.id === id);
  if (!c) throw new Error(`expected view: no collection ${id}`);
  Object.assign(c.fields, fields);
}
export function expectAmendment(v: ModuleView, id: string, fields: Record<string, unknown>): void {
  const n = Object.values(v.amendments).flat().find((x) => x.id === id);
  if (!n) throw new Error(`expected view: no amendment ${id}`);
  Object.assign(n.fields, fields);
}

export { dyingClient } from './dying-client.js';

/** The attributed text a reposted amendment carries. */
export function attributed(h: Harness, amendment: Record<string, any>): string {
  const u = h.emu.users.find((x) => x.id === amendment.user);
  const author = u ? [u.firstName, u.lastName].filter(Boolean).join(' ') : String(amendment.user);
  const line = ATTRIBUTION.split('{author}').join(author).split('{createdAt}').join(String(amendment.createdAt));
  return amendment.message ? `${amendment.message}\n\n${line}` : line;
}

// ---- expectations shared by the rollback scenarios ----------------------------------------

/** A deep copy of "good", to put the expected edits on. */
export const expectedFrom = (good: ModuleView): ModuleView => structuredClone(good);

/** Sets (or adds) a cell of the expected view. */
export function expectCellValue(v: ModuleView, recordId: string, columnId: string, value: unknown): void {
  const list = (v.cells[recordId] ??= []);
  const c = list.find((x) => x.column === columnId);
  if (c) c.value = value;
  else list.push({ id: `new:${recordId}|${columnId}`, column: columnId, label: `cell ${recordId}|${columnId}`, value });
}

export const brief = (c: FieldChange): string => `${c.entity} ${c.label} ${c.field}: base ${JSON.stringify(c.base)}, after ${JSON.stringify(c.after)}, live ${JSON.stringify(c.live)}`;
export const conflictOf = (entity: FieldChange['entity'], id: string, field: string, live: unknown) => expect.objectContaining({ entity, id, field, live });

/** Runs the scenario, then closes the board's harness whatever happens. */
export async function closing<T>(b: Board, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } finally {
    await b.h.close();
  }
}
