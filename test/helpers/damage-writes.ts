// Damage the way teams damage boards, for the rollback property test: a column overwritten on every
// row, a column deleted (preferring a relation column that reference columns go through, or one a
// automation names), a collection deleted, rows renamed, moved, completed and deleted (DELETE, the route
// people use: preferring rows with sub-records), sub-records deleted, amendments deleted, cells set and
// cleared. Nothing here touches automations, the module's settings or grants (a rollback leaves those
// alone). Seeded; every write waits for the service's automation runs, and is logged in the
// RestoreWriter's `applied` list for the reproducer.

import type { RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf } from './harness.js';

type Doc = Record<string, any>;

export class DamageWriter {
  constructor(
    private readonly emu: RunningEmulator,
    private readonly rnd: () => number,
    private readonly applied: string[],
  ) {}

  private pick<T>(xs: readonly T[]): T | undefined {
    return xs.length ? xs[Math.floor(this.rnd() * xs.length)] : undefined;
  }

  private async call(method: string, path: string, body?: unknown): Promise<void> {
    const res = await api(this.emu, method, path, body);
    await this.emu.idle();
    this.applied.push(`${method} ${path}${body === undefined ? '' : ` ${JSON.stringify(body).slice(0, 200)}`} -> ${res.status}`);
  }

  private scene(moduleId: string) {
    const d = dumpOf(this.emu);
    const colls = d.collections.filter((c) => c.module === moduleId && !c.isDeleted);
    const live = new Set(colls.map((c) => c._id));
    const recs = d.records.filter((r) => r.module === moduleId && !r.isDeleted && !r.isArchived);
    const tops = recs.filter((r) => !r.parentRecord && live.has(r.collectionName));
    const topIds = new Set(tops.map((r) => r._id));
    const subs = recs.filter((r) => r.parentRecord && topIds.has(r.parentRecord));
    const reachable = new Set([...topIds, ...subs.map((r) => r._id)]);
    const cols = d.columns.filter((c) => c.module === moduleId && !c.isDeleted);
    const autos = d.automations.filter((a) => !a.isDeleted && (a.module === moduleId || a.module === null));
    return {
      d,
      colls,
      tops,
      subs,
      cols,
      autos,
      values: d.values.filter((v) => !v.isDeleted && reachable.has(v.record) && cols.some((c) => c._id === v.column)),
      amendments: d.amendments.filter((a) => !a.isDeleted && reachable.has(a.record)),
    };
  }

  private valueFor(col: Doc, n: number): string | undefined {
    switch (col.type) {
      case 'status':
        return this.pick(col.statusOptions as Doc[])?.label;
      case 'number':
      case 'rating':
        return String(n % 5);
      case 'text':
      case 'link':
      case 'dropdown':
        return `overwritten ${n}`;
      case 'checkbox':
        return 'false';
      case 'date':
        return '2030-01-01';
      default:
        return undefined;
    }
  }

  private async setValue(moduleId: string, s: ReturnType<DamageWriter['scene']>, rec: Doc, col: Doc, value: string): Promise<void> {
    const existing = s.values.find((v) => v.record === rec._id && v.column === col._id);
    if (existing) await this.call('PUT', `/record-values/${existing._id}`, { value });
    else await this.call('POST', '/record-values', { record: rec._id, column: col._id, collectionName: rec.collectionName, module: moduleId, workspace: rec.workspace, value });
  }

  /** `count` damaging writes on module `moduleId`. */
  async damage(moduleId: string, count: number): Promise<void> {
    const kinds = this.kinds(moduleId);
    const total = kinds.reduce((t, [w]) => t + w, 0);
    for (let done = 0, tries = 0; done < count && tries < count * 20; tries++) {
      let r = this.rnd() * total;
      const kind = kinds.find(([w]) => (r -= w) < 0) ?? kinds[kinds.length - 1]!;
      this.applied.push(`# damage: ${kind[1]}`);
      if (await kind[2](this.scene(moduleId))) done++;
    }
  }

  private kinds(moduleId: string): Array<[number, string, (s: ReturnType<DamageWriter['scene']>) => Promise<boolean>]> {
    const n = (): number => this.applied.length;
    return [
      [2.5, 'overwrite a column on every row', async (s) => {
        const col = this.pick(s.cols.filter((c) => c.scope === 'record' && this.valueFor(c, 0) !== undefined));
        if (!col || !s.tops.length) return false;
        const value = this.valueFor(col, n())!;
        for (const rec of s.tops) await this.setValue(moduleId, s, rec, col, value);
        return true;
      }],
      [2, 'delete a column (a relation references go through, or one an automation names)', async (s) => {
        if (s.cols.length < 3) return false;
        const via = new Set(s.cols.filter((c) => c.type === 'reference').map((c) => c.settings?.via));
        const automations = JSON.stringify(s.autos.map((a) => [a.trigger, a.conditions, a.actions]));
        const relations = s.cols.filter((c) => via.has(c._id));
        const named = s.cols.filter((c) => automations.includes(c._id));
        const r = this.rnd();
        const c = this.pick(r < 0.4 && relations.length ? relations : r < 0.75 && named.length ? named : s.cols)!;
        await this.call('DELETE', `/columns/${c._id}`);
        return true;
      }],
      [1, 'delete a collection', async (s) => {
        if (s.colls.length < 3) return false;
        const automations = JSON.stringify(s.autos.map((a) => [a.conditions, a.actions]));
        const named = s.colls.filter((c) => automations.includes(c._id));
        const c = this.pick(named.length && this.rnd() < 0.5 ? named : s.colls)!;
        await this.call('DELETE', `/collections/${c._id}`);
        return true;
      }],
      [2, 'rename rows', async (s) => {
        const rows = [...s.tops, ...s.subs];
        if (!rows.length) return false;
        for (let i = 0; i < 1 + Math.floor(this.rnd() * 4); i++) await this.call('PUT', `/records/${this.pick(rows)!._id}`, { name: `renamed by mistake ${n()}` });
        return true;
      }],
      [1.5, 'move rows', async (s) => {
        const r = this.pick(s.tops);
        const to = r && this.pick(s.colls.filter((c) => c._id !== r.collectionName));
        if (!r || !to) return false;
        await this.call('PUT', `/records/${r._id}`, { collectionName: to._id });
        return true;
      }],
      [1, 'complete / reopen rows', async (s) => {
        const r = this.pick([...s.tops, ...s.subs]);
        if (!r) return false;
        await this.call('PUT', `/records/${r._id}`, { isCompleted: !r.isCompleted });
        return true;
      }],
      [3, 'delete rows (DELETE, rows with sub-records first)', async (s) => {
        if (s.tops.length < 3) return false;
        const parents = s.tops.filter((r) => s.subs.some((x) => x.parentRecord === r._id));
        const k = 1 + Math.floor(this.rnd() * 3);
        for (let i = 0; i < k && i < s.tops.length - 2; i++) {
          const r = this.pick(parents.length && this.rnd() < 0.7 ? parents : s.tops)!;
          await this.call('DELETE', `/records/${r._id}`);
        }
        return true;
      }],
      [1.5, 'delete a sub-record', async (s) => {
        const x = this.pick(s.subs);
        if (!x) return false;
        await this.call('DELETE', `/records/${x._id}`);
        return true;
      }],
      [1.5, 'delete amendments', async (s) => {
        const withReplies = s.amendments.filter((x) => !x.parentComment && s.amendments.some((y) => y.parentComment === x._id));
        const a = this.pick(withReplies.length && this.rnd() < 0.6 ? withReplies : s.amendments);
        if (!a) return false;
        await this.call('DELETE', `/amendments/${a._id}`);
        return true;
      }],
      [2, 'set or clear a cell', async (s) => {
        if (this.rnd() < 0.3) {
          const v = this.pick(s.values);
          if (!v) return false;
          await this.call('DELETE', `/record-values/${v._id}`);
          return true;
        }
        const col = this.pick(s.cols.filter((c) => this.valueFor(c, 0) !== undefined));
        const rec = col && this.pick(col.scope === 'subrecord' ? s.subs : s.tops);
        if (!col || !rec) return false;
        await this.setValue(moduleId, s, rec, col, this.valueFor(col, n())!);
        return true;
      }],
    ];
  }
}
