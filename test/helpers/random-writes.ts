// Random writes of every kind the spec lists, for the differential tests (an incremental database
// against a full pass over the same history) and the view-by-view difference they print.

import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import type { Store } from '../../src/store/port.js';
import { expect } from 'vitest';
import { view, type Harness, type LooseDump } from './harness.js';
import { emulatorTarget, type ServiceTarget } from './service-target.js';

export const VIEWS = ['workspaces', 'members', 'modules', 'collections', 'columns', 'records', 'cells', 'amendments', 'automations', 'activity', 'resolved_references'];

/** Once the service is idle: an incremental pass into `h`, a full pass into `full`, both clean. */
export async function syncBoth(h: Harness, full: { sync: Harness['sync'] }): Promise<void> {
  await h.target.idle();
  const inc = await h.sync();
  expect(inc.kind).toBe('incremental');
  expect(inc.failures).toEqual([]);
  const f = await full.sync({ full: true });
  expect(f.failures).toEqual([]);
}

/** Every row of every view, keyed for a readable entity-by-entity difference. */
export function viewDiff(a: Store, b: Store, views: readonly string[] = VIEWS): string[] {
  const out: string[] = [];
  for (const v of views) {
    const key = (r: Record<string, unknown>) =>
      v === 'members' ? `${r.workspace_id}/${r.user_id}` : v === 'resolved_references' ? `${r.module_id}/${r.record_id}/${r.column_id}` : String(r.id);
    const ra = new Map(view(a, v).map((r) => [key(r), r]));
    const rb = new Map(view(b, v).map((r) => [key(r), r]));
    for (const [k, x0] of ra) {
      const y0 = rb.get(k);
      if (!y0) {
        out.push(`${v} ${k}: only in the incremental database`);
        continue;
      }
      const [x, y] = v === 'activity' ? asFirstRead(x0, y0) : [x0, y0];
      for (const f of Object.keys(x)) if (JSON.stringify(x[f]) !== JSON.stringify(y[f])) out.push(`${v} ${k}.${f}: ${describeChange(x[f], y[f])}`);
    }
    for (const k of rb.keys()) if (!ra.has(k)) out.push(`${v} ${k}: only in the full database`);
  }
  return out;
}

const REF_KEYS = ['module', 'collectionName', 'record', 'column'] as const;
const REF_COLUMNS: Record<(typeof REF_KEYS)[number], string> = { module: 'module_id', collectionName: 'collection_id', record: 'record_id', column: 'column_id' };

/**
 * An activity row is stored once, as first read. The deployed service populates a row's references
 * when the feed is read: today's names, and null for a module, collection or column deleted since —
 * so a later full pass may read an older row with other names, or without an id the incremental
 * database kept. Allowed: the names, and an id the full pass no longer sees. Everything else of the
 * row must agree.
 */
function asFirstRead(inc: Record<string, unknown>, full: Record<string, unknown>): [Record<string, unknown>, Record<string, unknown>] {
  const a = { ...inc };
  const b = { ...full };
  const ra = typeof a.raw === 'string' ? (JSON.parse(a.raw) as Record<string, any>) : null;
  const rb = typeof b.raw === 'string' ? (JSON.parse(b.raw) as Record<string, any>) : null;
  for (const key of REF_KEYS) {
    const col = REF_COLUMNS[key];
    if (b[col] === null && a[col] !== null) b[col] = a[col];
    if (ra && rb) {
      ra[key] = ra[key] && typeof ra[key] === 'object' ? ra[key]._id : ra[key] ?? null;
      rb[key] = rb[key] && typeof rb[key] === 'object' ? rb[key]._id : rb[key] ?? null;
      if (rb[key] === null && ra[key] !== null) rb[key] = ra[key];
    }
  }
  if (ra && rb) {
    a.raw = JSON.stringify(ra);
    b.raw = JSON.stringify(rb);
  }
  return [a, b];
}

/** The fields that differ (JSON text compared key by key), else the two values. */
function describeChange(a: unknown, b: unknown): string {
  if (typeof a === 'string' && typeof b === 'string' && a.startsWith('{') && b.startsWith('{')) {
    const x = JSON.parse(a) as Record<string, unknown>;
    const y = JSON.parse(b) as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]));
    return keys.map((k) => `${k}: incremental ${JSON.stringify(x[k])?.slice(0, 100)} vs full ${JSON.stringify(y[k])?.slice(0, 100)}`).join('; ');
  }
  return `incremental ${JSON.stringify(a)?.slice(0, 120)} vs full ${JSON.stringify(b)?.slice(0, 120)}`;
}

/** Small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

type Doc = Record<string, any>;

export class Writer {
  readonly applied: string[] = [];
  private readonly target: ServiceTarget;
  constructor(
    service: RunningEmulator | ServiceTarget,
    private readonly rnd: () => number,
    private readonly dialect: Dialect,
    /** How many write kinds to draw from (the first 22 are the original mix). */
    private readonly kinds = 22,
    /** Also make the writes that leave no signal at all (amendment edits on the deployed service,
     * automation changes with no other write after them): for tests of the freshness window. */
    private readonly blindWrites = false,
  ) {
    this.target = 'requestLog' in service ? emulatorTarget(service) : service;
  }

  /** The writes so far, as a reproducer to paste into a bug report. */
  reproducer(seed: number): string {
    return `dialect ${this.dialect}, seed ${seed}, ${this.applied.length} writes:\n${this.applied.join('\n')}`;
  }

  private pick<T>(xs: T[]): T | undefined {
    return xs.length ? xs[Math.floor(this.rnd() * xs.length)] : undefined;
  }

  private async live() {
    const d: LooseDump = await this.target.dump();
    const mods = d.modules.filter((m) => !m.isDeleted);
    const modIds = new Set(mods.map((m) => m._id));
    const cols = d.collections.filter((c) => !c.isDeleted && modIds.has(c.module));
    const colIds = new Set(cols.map((c) => c._id));
    const recs = d.records.filter((r) => !r.isDeleted && !r.isArchived && modIds.has(r.module) && colIds.has(r.collectionName));
    const top = recs.filter((r) => !r.parentRecord);
    const topIds = new Set(top.map((r) => r._id));
    const subs = recs.filter((r) => r.parentRecord && topIds.has(r.parentRecord));
    const columns = d.columns.filter((c) => !c.isDeleted && modIds.has(c.module));
    const values = d.values.filter((v) => !v.isDeleted && (topIds.has(v.record) || subs.some((s) => s._id === v.record)));
    const amendments = d.amendments.filter((a) => !a.isDeleted && topIds.has(a.record));
    const autos = d.automations.filter((a) => !a.isDeleted && (a.module === null || modIds.has(a.module)));
    // archived but reachable: top-level in a live collection, or a sub-record of a reachable parent
    const archivedTop = d.records.filter((r) => !r.isDeleted && r.isArchived && !r.parentRecord && modIds.has(r.module) && colIds.has(r.collectionName));
    const reachableParents = new Set([...topIds, ...archivedTop.map((r) => r._id)]);
    const allSubs = d.records.filter((r) => !r.isDeleted && r.parentRecord && reachableParents.has(r.parentRecord));
    const parentsWithSubs = top.filter((r) => allSubs.some((x) => x.parentRecord === r._id));
    return { d, mods, cols, top, subs, columns, values, amendments, autos, archivedTop, allSubs, parentsWithSubs, ws: d.workspaces[0] };
  }

  private async call(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.target.call(method, path, body);
    this.applied.push(`${method} ${path}${body === undefined ? '' : ` ${JSON.stringify(body).slice(0, 160)}`} -> ${res.status}`);
    return res;
  }

  /** A write in the module so that automation edits there are picked up (see README: blind spots). */
  private async nudge(moduleId: string): Promise<void> {
    if (this.blindWrites) return;
    const r = (await this.live()).top.find((x) => x.module === moduleId);
    if (r) await this.call('PUT', `/records/${r._id}`, { name: `${String(r.name).slice(0, 40)} ·` });
  }

  async randomWrite(): Promise<void> {
    const s = await this.live();
    const rec = this.pick(s.top);
    const mod = this.pick(s.mods.filter((m) => s.cols.some((c) => c.module === m._id)));
    const kind = Math.floor(this.rnd() * this.kinds);
    switch (kind) {
      case 0: { const c = this.pick(s.cols); if (c) await this.call('POST', `/records/${c._id}`, { name: `new ${this.applied.length}` }); return; }
      case 1: if (rec) await this.call('PUT', `/records/${rec._id}`, { name: `renamed ${this.applied.length}` }); return;
      case 2: { if (!rec) return; const c = this.pick(s.cols.filter((x) => x.module === rec.module && x._id !== rec.collectionName)); if (c) await this.call('PUT', `/records/${rec._id}`, { collectionName: c._id }); return; }
      case 3: if (rec) await this.call('PUT', `/records/${rec._id}`, { isCompleted: !rec.isCompleted }); return;
      case 4: if (rec) await this.call('PUT', `/records/${rec._id}`, { isArchived: true }); return;
      case 5: if (rec) await this.call('DELETE', `/records/${rec._id}`); return;
      case 6: {
        if (!rec) return;
        // create the sub-record grid's columns first where none exist, as a careful user would
        await this.call('POST', `/records/${rec._id}/sub-records`, { name: `sub ${this.applied.length}` });
        return;
      }
      case 7: { const sub = this.pick(s.subs); if (sub) await this.call('PUT', `/records/${sub._id}`, { name: `sub renamed ${this.applied.length}`, isCompleted: true }); return; }
      case 8: { const sub = this.pick(s.subs); if (sub) await this.call('DELETE', `/records/${sub._id}`); return; }
      case 9: case 10: {
        if (!rec) return;
        const col = this.pick(s.columns.filter((c) => c.module === rec.module && c.scope === 'record' && ['text', 'number', 'status'].includes(c.type)));
        if (!col) return;
        const value = col.type === 'number' ? String(Math.floor(this.rnd() * 1000)) : col.type === 'status' ? (col.statusOptions[0]?.label ?? 'Done') : `text ${this.applied.length}`;
        const existing = s.values.find((v) => v.record === rec._id && v.column === col._id);
        if (existing) await this.call('PUT', `/record-values/${existing._id}`, { value });
        else await this.call('POST', '/record-values', { record: rec._id, column: col._id, collectionName: rec.collectionName, module: rec.module, workspace: rec.workspace, value });
        return;
      }
      case 11: { const v = this.pick(s.values); if (v) await this.call('DELETE', `/record-values/${v._id}`); return; }
      case 12: if (rec) await this.call('POST', `/amendments/${rec._id}`, { message: `note ${this.applied.length}` }); return;
      case 13: { const n = this.pick(s.amendments.filter((a) => !a.parentComment)); if (n) await this.call('POST', `/amendments/${n.record}`, { message: `reply ${this.applied.length}`, parentComment: n._id }); return; }
      case 14: {
        // The deployed service logs amendment edits nowhere and moves no timestamp: in the
        // observed dialect they are picked up by the next full pass only (README: blind spots).
        if (this.dialect === 'observed' && !this.blindWrites) return;
        const n = this.pick(s.amendments.filter((a) => a.user === this.target.users[0]!.id));
        if (n) await this.call('PUT', `/amendments/${n._id}`, { message: `edited ${this.applied.length}` });
        return;
      }
      case 15: { const n = this.pick(s.amendments); if (n) await this.call('DELETE', `/amendments/${n._id}`); return; }
      case 16: if (mod) await this.call('POST', `/collections/${mod._id}`, { name: `group ${this.applied.length}`, color: '#123456' }); return;
      case 17: { const c = this.pick(s.cols); if (c) await this.call(this.rnd() < 0.5 ? 'PUT' : 'DELETE', `/collections/${c._id}`, { name: `group renamed ${this.applied.length}` }); return; }
      case 18: {
        if (!mod) return;
        const r = this.rnd();
        if (r < 0.4) await this.call('POST', `/columns/${mod._id}`, { name: `col ${this.applied.length}`, type: 'text' });
        else {
          const col = this.pick(s.columns.filter((c) => c.module === mod._id));
          if (!col) return;
          if (r < 0.7) await this.call('PUT', `/columns/${col._id}`, col.type === 'status' ? { statusOptions: [{ label: 'Only', color: '#000000' }] } : { name: `col renamed ${this.applied.length}` });
          else await this.call('DELETE', `/columns/${col._id}`);
        }
        return;
      }
      case 19: {
        // (an automation change leaves no signal: unless the test is about that, only where a
        // logged write can follow it in the same module)
        const a = this.pick(s.autos.filter((x) => this.blindWrites || !x.module || s.top.some((r) => r.module === x.module)));
        if (!a) return;
        await this.call('PUT', `/automations/${a._id}`, { isActive: !a.isActive });
        if (a.module) await this.nudge(a.module);
        else if (rec && !this.blindWrites) await this.call('PUT', `/records/${rec._id}`, { name: `after automation toggle ${this.applied.length}` });
        return;
      }
      case 20: {
        const a = this.pick(s.autos.filter((x) => x.module && (this.blindWrites || s.top.some((r) => r.module === x.module))));
        if (!a) return;
        await this.call('PUT', `/automations/${a._id}`, { name: `${a.name} (edited)`, trigger: a.trigger, conditions: a.conditions, match: a.match, actions: a.actions, isActive: a.isActive });
        await this.nudge(a.module);
        return;
      }
      case 21: {
        // several writes in one millisecond
        if (!rec) return;
        const n = this.applied.length;
        await this.target.together([
          ...[0, 1, 2, 3].map((i) => () => this.call('PUT', `/records/${rec._id}`, { name: `same ms ${n}.${i}` })),
          () => this.call('POST', `/amendments/${rec._id}`, { message: `same ms note ${n}` }),
        ]);
        return;
      }
      default:
        return this.recoveryWrite(kind - 22, s);
    }
  }

  /** The writes the recovery issues found lossy: moves then collection deletes, archive and
   * un-archive on records and sub-records, comments on archived rows, sub-record columns. */
  private async recoveryWrite(kind: number, s: Awaited<ReturnType<Writer['live']>>): Promise<void> {
    const n = this.applied.length;
    switch (kind) {
      case 0: {
        // move a parent that has sub-records, then delete the collection it came from
        const p = this.pick(s.parentsWithSubs);
        if (!p) return;
        const to = this.pick(s.cols.filter((c) => c.module === p.module && c._id !== p.collectionName));
        if (!to) return;
        await this.call('PUT', `/records/${p._id}`, { collectionName: to._id });
        if (this.rnd() < 0.7) await this.call('DELETE', `/collections/${p.collectionName}`);
        return;
      }
      case 1: { const r = this.pick(s.parentsWithSubs.length && this.rnd() < 0.6 ? s.parentsWithSubs : s.top); if (r) await this.call('PUT', `/records/${r._id}`, { isArchived: true }); return; }
      case 2: { const r = this.pick(s.archivedTop); if (r) await this.call('PUT', `/records/${r._id}`, { isArchived: false }); return; }
      case 3: { const r = this.pick(s.archivedTop); if (r) await this.call('POST', `/amendments/${r._id}`, { message: `on archived ${n}` }); return; }
      case 4: { const x = this.pick(s.allSubs.filter((v) => !v.isArchived)); if (x) await this.call('PUT', `/records/${x._id}`, { isArchived: true }); return; }
      case 5: { const x = this.pick(s.allSubs.filter((v) => v.isArchived)); if (x) await this.call('PUT', `/records/${x._id}`, { isArchived: false }); return; }
      case 6: {
        // sub-record grid columns: add, change, delete
        const mod = this.pick(s.mods);
        if (!mod) return;
        const subCols = s.columns.filter((c) => c.module === mod._id && c.scope === 'subrecord');
        const r = this.rnd();
        const col = this.pick(subCols);
        if (r < 0.35 || !col) await this.call('POST', `/columns/${mod._id}`, { name: `sub col ${n}`, type: 'text', scope: 'subrecord' });
        else if (r < 0.6) await this.call('PUT', `/columns/${col._id}`, { name: `sub col renamed ${n}` });
        else await this.call('DELETE', `/columns/${col._id}`);
        return;
      }
      case 7: {
        // a cell on a sub-record
        const x = this.pick(s.allSubs);
        if (!x) return;
        const col = this.pick(s.columns.filter((c) => c.module === x.module && c.scope === 'subrecord' && c.type !== 'status' && c.type !== 'person'));
        if (col) await this.call('POST', '/record-values', { record: x._id, column: col._id, collectionName: x.collectionName, module: x.module, workspace: x.workspace, value: `sub value ${n}` });
        return;
      }
      case 8: { const r = this.pick(s.parentsWithSubs); if (r) await this.call('DELETE', `/records/${r._id}`); return; }
      case 9: {
        // a thread whose parent is deleted while a reply lives (a tombstone)
        const a = this.pick(s.amendments.filter((x) => !x.parentComment && s.amendments.some((y) => y.parentComment === x._id)));
        if (a) await this.call('DELETE', `/amendments/${a._id}`);
        return;
      }
      case 10: {
        // a new module with a group and a row
        const m = await this.call('POST', `/modules/${s.ws._id}`, { name: `board ${n}` });
        const id = m.body?.module?._id ?? m.body?._id;
        if (typeof id !== 'string') return;
        const c = await this.call('POST', `/collections/${id}`, { name: `group ${n}` });
        const cid = c.body?.collection?._id ?? c.body?._id;
        if (typeof cid === 'string') await this.call('POST', `/records/${cid}`, { name: `row ${n}` });
        return;
      }
      case 11: { const r = this.pick(s.top); if (r) await this.call('POST', `/records/${r._id}/sub-records`, { name: `sub ${n}` }); return; }
      // unlogged on the deployed service: a sub-record's completion and position
      case 12: { const x = this.pick(s.allSubs); if (x) await this.call('PUT', `/records/${x._id}`, { isCompleted: !x.isCompleted }); return; }
      case 13: { const x = this.pick(s.allSubs); if (x) await this.call('PUT', `/records/${x._id}`, { position: Math.floor(this.rnd() * 10) }); return; }
    }
  }

  async deleteModule(): Promise<void> {
    const m = this.pick((await this.live()).mods);
    if (m) await this.call('DELETE', `/modules/${m._id}`);
  }
}

