// A seeded random writer for restore tests, weighted toward the states a restore finds hard: ties in
// position (collections, columns, records, sub-records), parents moved away from the collection their
// sub-records still name (and that collection deleted), deleted collections and columns of both
// scopes, archived records and sub-records, tombstoned and edited amendments, relation and reference
// columns into other modules, several module automations and workspace automations, private modules
// with grants, and cell values the service stores but refuses when sent again (an automation's
// set_column_value, or in observed a POST on an existing pair, skip the value checks).
//
// All writes go to one module ("the target") through the HTTP API; other modules are only read (as
// relation targets). Every write waits for the service's automation runs (emu.idle()), so the
// sequence is the same for the same seed and starting state. `applied` lists it for a reproducer.
//
// A round is two phases, so that the backup can know everything the restore is asked to bring back:
//  - shape(): everything except archiving (the API has no single-record GET, so a record's own fields
//    are known to a backup only from a listing, i.e. while it is not archived);
//  - archive(): archive / delete records and sub-records, replies on archived records — only writes
//    a backup can see by id afterwards, and none that sets off an automation that changes an archived
//    record's own fields (the writer's automations never use the record_archived trigger).
// Take a full backup between the two.
//
// The writer (this file) draws and logs; restore-write-kinds.ts holds the weighted write kinds of
// each phase, restore-write-values.ts the values and automations they write.

import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { unwrap } from './harness.js';
import { archiveKinds, shapeKinds } from './restore-write-kinds.js';
import type { Doc, Kind, Scene, WriterTools } from './restore-write-values.js';
import { asTarget, type ServiceTarget } from './service-target.js';

const byPosition = (a: Doc, b: Doc): number => (a.position ?? 0) - (b.position ?? 0) || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

export class RestoreWriter implements WriterTools {
  readonly applied: string[] = [];
  readonly users: string[];
  readonly target: ServiceTarget;

  constructor(
    service: RunningEmulator | ServiceTarget,
    readonly rnd: () => number,
    readonly dialect: Dialect,
    /** Modules never written to nor named (e.g. deleted ones, restored copies): owned by the caller. */
    private readonly avoid: ReadonlySet<string> = new Set(),
  ) {
    this.target = asTarget(service);
    this.users = this.target.users.map((u) => u.id);
  }

  /** The writes from index `from` on (default: all), to paste into a bug report. */
  reproducer(header: string, from = 0): string {
    const list = this.applied.slice(from);
    return `${header}, ${list.length} writes${from ? ` (after ${from} earlier ones)` : ''}:\n${list.map((w) => `  ${w}`).join('\n')}`;
  }

  note(line: string): void {
    this.applied.push(`# ${line}`);
  }

  pick<T>(xs: readonly T[]): T | undefined {
    return xs.length ? xs[Math.floor(this.rnd() * xs.length)] : undefined;
  }
  chance(p: number): boolean {
    return this.rnd() < p;
  }
  get n(): number {
    return this.applied.length;
  }

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await this.target.call(method, path, body);
    await this.target.idle();
    this.applied.push(`${method} ${path}${body === undefined ? '' : ` ${JSON.stringify(body).slice(0, 200)}`} -> ${res.status}`);
    return res;
  }

  private async scene(moduleId: string): Promise<Scene> {
    const d = await this.target.dump();
    const mod = d.modules.find((m) => m._id === moduleId)!;
    const colls = d.collections.filter((c) => c.module === moduleId && !c.isDeleted).sort(byPosition);
    const live = new Set(colls.map((c) => c._id));
    const recs = d.records.filter((r) => r.module === moduleId && !r.isDeleted);
    const tops = recs.filter((r) => !r.parentRecord && !r.isArchived && live.has(r.collectionName)).sort(byPosition);
    const archivedTops = recs.filter((r) => !r.parentRecord && r.isArchived && live.has(r.collectionName));
    const parents = new Set([...tops, ...archivedTops].map((r) => r._id));
    const subs = recs.filter((r) => r.parentRecord && parents.has(r.parentRecord) && !r.isArchived);
    const archivedSubs = recs.filter((r) => r.parentRecord && parents.has(r.parentRecord) && r.isArchived);
    const reachable = new Set([...parents, ...subs.map((r) => r._id), ...archivedSubs.map((r) => r._id)]);
    const cols = d.columns.filter((c) => c.module === moduleId && !c.isDeleted);
    return {
      d,
      mod,
      ws: mod.workspace,
      colls,
      cols,
      tops,
      archivedTops,
      subs,
      archivedSubs,
      values: d.values.filter((v) => !v.isDeleted && reachable.has(v.record)),
      amendments: d.amendments.filter((a) => !a.isDeleted && reachable.has(a.record)),
      autos: d.automations.filter((a) => !a.isDeleted && a.module === moduleId),
      wsAutos: d.automations.filter((a) => !a.isDeleted && a.module === null && a.workspace === mod.workspace),
      others: d.modules.filter((m) => !m.isDeleted && m._id !== moduleId && m.workspace === mod.workspace && !this.avoid.has(m._id)),
    };
  }

  // ---- choosing / making the target ------------------------------------------------------

  /** A live module not in `avoid`, or (with probability `fresh`, or when none is left) a new one. */
  async chooseModule(workspaceId: string, fresh = 0.25): Promise<string> {
    const d = await this.target.dump();
    const mods = d.modules.filter((m) => !m.isDeleted && m.workspace === workspaceId && !this.avoid.has(m._id));
    const m = this.chance(fresh) ? undefined : this.pick(mods);
    if (m) {
      this.note(`target: module ${m._id} "${m.name}"`);
      return m._id;
    }
    return this.freshModule(workspaceId);
  }

  private async freshModule(ws: string): Promise<string> {
    const n = this.n;
    const m = await this.call('POST', `/modules/${ws}`, { name: `board ${n}`, description: `made by the restore writer at ${n}`, tags: [{ label: `t${n}`, color: '#10B981' }] });
    const id = unwrap(m.body, 'module')?._id as string;
    this.note(`target: new module ${id}`);
    const colls: string[] = [];
    for (const name of ['To do', 'Doing', 'Done']) {
      const c = await this.call('POST', `/collections/${id}`, { name, position: colls.length, color: '#3B82F6' });
      colls.push(unwrap(c.body, 'collection')._id);
    }
    await this.call('POST', `/columns/${id}`, { name: 'Status', type: 'status', position: 0, statusOptions: [{ label: 'Open', color: '#94A3B8' }, { label: 'Done', color: '#22C55E' }] });
    await this.call('POST', `/columns/${id}`, { name: 'Email', type: 'email', position: 1 });
    await this.call('POST', `/columns/${id}`, { name: 'Notes', type: 'text', position: 2 });
    await this.call('POST', `/columns/${id}`, { name: 'Step', type: 'text', scope: 'subrecord', position: 0 });
    const rows: string[] = [];
    for (let i = 0; i < 5; i++) rows.push(unwrap((await this.call('POST', `/records/${colls[i % 2]}`, { name: `row ${this.n}` })).body, 'record')._id);
    for (let i = 0; i < 3; i++) await this.call('POST', `/records/${rows[i % 2]}/sub-records`, { name: `step ${this.n}` });
    return id;
  }

  // ---- phases ------------------------------------------------------------------------------

  /** `count` writes of every kind but archiving. */
  async shape(moduleId: string, count: number): Promise<void> {
    await this.run(moduleId, count, shapeKinds(this));
  }

  /** `count` archiving writes (and replies on archived records). */
  async archive(moduleId: string, count: number): Promise<void> {
    await this.run(moduleId, count, archiveKinds(this));
  }

  /** Switches every active workspace automation off (so none fires on a restore that does not pause them). */
  async switchOffWorkspaceAutomations(workspaceId: string): Promise<void> {
    const d = await this.target.dump();
    for (const a of d.automations.filter((x) => !x.isDeleted && x.module === null && x.workspace === workspaceId && x.isActive)) {
      await this.call('PUT', `/automations/${a._id}`, { isActive: false });
    }
  }

  private async run(moduleId: string, count: number, kinds: Kind[]): Promise<void> {
    const total = kinds.reduce((t, [w]) => t + w, 0);
    for (let done = 0, tries = 0; done < count && tries < count * 20; tries++) {
      let r = this.rnd() * total;
      const kind = kinds.find(([w]) => (r -= w) < 0) ?? kinds[kinds.length - 1]!;
      if (await kind[2](await this.scene(moduleId))) done++;
    }
  }

  /** A cell written through the route the kinds use (POST /record-values). */
  async postValue(rec: Doc, col: Doc, value: string): Promise<{ status: number; body: any }> {
    return this.call('POST', '/record-values', { record: rec._id, column: col._id, collectionName: rec.collectionName, module: rec.module, workspace: rec.workspace, value });
  }
}
