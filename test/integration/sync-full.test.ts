// A full sync of the demo seed, in both dialects, then every view compared with the emulator's
// state value by value; then re-sync, change, delete: history is kept and versions are exact.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { diffRows } from '../helpers/compare.js';
import { expectedViews } from '../helpers/expected-views.js';
import { api, dumpOf, makeHarness, unwrap, view, type Harness } from '../helpers/harness.js';

const VIEWS = ['workspaces', 'members', 'modules', 'collections', 'columns', 'records', 'cells', 'amendments', 'automations', 'activity'] as const;

describe.each(['spec', 'observed'] as Dialect[])('full sync (%s dialect)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(dialect);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('mirrors every view value by value', async () => {
    const result = await h.sync({ full: true });
    expect(result.kind).toBe('full');
    expect(result.status).toBe('complete');
    expect(result.failures).toEqual([]);
    await h.emu.idle();
    const exp = expectedViews(dumpOf(h.emu), h.emu.users[0].id, dialect);
    const problems: string[] = [];
    for (const v of VIEWS) {
      const rows = view(h.store, v);
      let expected = exp[v];
      if (v === 'activity' && dialect === 'observed') {
        // observed *_deleted rows carry no id of what was deleted; compare the rest of them
        const deleted = new Set(rows.filter((r) => String(r.action).endsWith('_deleted')).map((r) => r.id));
        expected = expected.map((r) => (deleted.has(r.id) ? { id: r.id, action: r.action, created_at: r.created_at } : r));
      }
      const key = v === 'members' ? (r: Record<string, any>) => `${r.workspace_id}/${r.user_id}` : undefined;
      problems.push(...diffRows(v, expected, rows, key));
    }
    expect(problems).toEqual([]);
    // the seed is not trivially small: every entity kind is present
    for (const v of VIEWS) expect(exp[v].length, v).toBeGreaterThan(0);
    expect(exp.records.some((r) => r.parent_record_id)).toBe(true);
    expect(exp.amendments.some((a) => a.is_deleted === 1)).toBe(true);
    expect(new Set(exp.columns.map((c) => c.type)).size).toBeGreaterThanOrEqual(15);
  });

  it('a second full sync with no change adds no version', async () => {
    const again = await h.sync({ full: true });
    expect(again.status).toBe('complete');
    const writtenEntities = Object.entries(again.counts).filter(([k, n]) => k !== 'activity' && n > 0);
    expect(writtenEntities).toEqual([]);
    expect(Object.values(again.gone).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('one change adds exactly that version; deletes are marked gone and stay in history', async () => {
    const dump = dumpOf(h.emu);
    const rec = dump.records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord)!;
    const renamed = await api(h.emu, 'PUT', `/records/${rec._id}`, { name: 'Renamed by test ✓' });
    expect(renamed.status).toBe(200);
    const r1 = await h.sync({ full: true });
    expect(r1.counts.record).toBe(1);
    const row = view(h.store, 'records', 'WHERE id = ?', [rec._id])[0];
    expect(row.name).toBe('Renamed by test ✓');
    const versions = h.store.db.prepare('SELECT COUNT(*) AS n FROM record_versions WHERE id = ?').get(rec._id) as { n: number };
    expect(versions.n).toBe(2);

    // delete a column and a whole module: gone from the views, kept in history
    const mod = dump.modules.find((m) => !m.isDeleted && m.name === 'Hiring')!;
    const col = dump.columns.find((c) => !c.isDeleted && c.module !== mod._id && c.type === 'text')!;
    expect((await api(h.emu, 'DELETE', `/columns/${col._id}`)).status).toBe(200);
    expect((await api(h.emu, 'DELETE', `/modules/${mod._id}`)).status).toBe(200);
    const r2 = await h.sync({ full: true });
    expect(r2.failures).toEqual([]);
    expect(view(h.store, 'modules', 'WHERE id = ?', [mod._id])).toEqual([]);
    expect(view(h.store, 'records', 'WHERE module_id = ?', [mod._id])).toEqual([]);
    expect(view(h.store, 'columns', 'WHERE id = ?', [col._id])).toEqual([]);
    const before = h.store.stateAt(r1.snapshot)!;
    expect(before.module(mod._id)?.name).toBe('Hiring');
    expect(before.records(mod._id).length).toBeGreaterThan(0);
    expect(h.store.snapshotsHolding('module', mod._id)).toContain(r1.snapshot);
    expect(h.store.snapshotsHolding('module', mod._id)).not.toContain(r2.snapshot);
    expect(h.store.verify().problems).toEqual([]);
    void unwrap;
  });
});
