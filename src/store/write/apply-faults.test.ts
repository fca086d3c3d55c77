import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardRecord, Cell } from '../../domain/entities.js';
import { makeCell, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';

describe('apply: atomic batches, failures and event-loop fairness', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'f.db'));
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });
  const count = (table: string) => store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();

  it('should error and not write if the disk fills up mid-batch (SQLITE_FULL)', async () => {
    const snap = store.beginSnapshot('full');
    await store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')] } });
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages + 8}`);
    const records: BoardRecord[] = Array.from({ length: 3000 }, (_, i) => makeRecord(`r${i}`, 'm1', null, { name: 'n'.repeat(200) }));
    const err = await store
      .apply(snap, { upserts: { modules: [makeModule('m1', 'w1')], records }, cursor: { workspaceId: 'w1', cursor: 'c' } })
      .then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({
      code: 'storage',
      hint: 'disk full: nothing from this batch was written; free space and run again',
      message: expect.stringMatching(/rolled back.*full/i),
    });
    expect(store.db.inTransaction).toBe(false);
    expect(count('module_versions')).toBe(0);
    expect(count('record_versions')).toBe(0);
    expect(store.getCursor('w1')).toBeNull();
    expect(store.getSnapshot(snap)!.counts).toEqual({ workspace: 1 });
    store.db.pragma('max_page_count = 1073741823');
    expect(store.verify()).toMatchObject({ ok: true });
    // and the same batch goes through once there is room
    await store.apply(snap, { upserts: { modules: [makeModule('m1', 'w1')], records } });
    expect(count('record_versions')).toBe(3000);
  });

  it('should error and not write anything of a batch whose last row is invalid', async () => {
    const snap = store.beginSnapshot('full');
    const bad = { ...makeRecord('bad', 'm1', null), name: null } as unknown as BoardRecord;
    await expect(
      store.apply(snap, { upserts: { workspaces: [makeWorkspace('w1')], records: [makeRecord('ok', 'm1', null), bad] }, cursor: { workspaceId: 'w1', cursor: 'c' } }),
    ).rejects.toMatchObject({ code: 'storage', message: expect.stringContaining('NOT NULL') });
    expect(count('workspace_versions')).toBe(0);
    expect(count('record_versions')).toBe(0);
    expect(count('search')).toBe(0);
    expect(store.getCursor('w1')).toBeNull();
  });

  it('yields the event loop while writing a 50k-cell batch, in one transaction', async () => {
    const snap = store.beginSnapshot('full');
    const cells: Cell[] = Array.from({ length: 50_000 }, (_, i) => makeCell(`x${i}`, `r${i % 500}`, 'k1'));
    let applyDone = false;
    let timerFiredDuringApply = false;
    const gaps: number[] = [];
    let last = performance.now();
    const iv = setInterval(() => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }, 1);
    setTimeout(() => (timerFiredDuringApply = !applyDone), 0);
    const res = await store.apply(snap, { upserts: { cells } });
    applyDone = true;
    clearInterval(iv);
    expect(res.written).toEqual({ cell: 50_000 });
    expect(timerFiredDuringApply).toBe(true);
    expect(gaps.length).toBeGreaterThan(3);
    // slices are ~40 ms; allow generous slack for a loaded CI machine
    expect(Math.max(...gaps)).toBeLessThan(250);
    expect(count('cell_versions')).toBe(50_000);
  });

  it('serialises concurrent apply() calls and refuses other writes while a batch is open', async () => {
    const snap = store.beginSnapshot('full');
    const batch = (p: string) => ({ upserts: { cells: Array.from({ length: 20_000 }, (_, i) => makeCell(`${p}${i}`, 'r1', null)) } });
    const a = store.apply(snap, batch('a'));
    const b = store.apply(snap, batch('b'));
    let refused: unknown;
    setTimeout(() => {
      try {
        store.clearCursor('w1');
      } catch (e) {
        refused = e;
      }
    }, 0);
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.written).toEqual({ cell: 20_000 });
    expect(rb.written).toEqual({ cell: 20_000 });
    expect(refused).toMatchObject({ code: 'internal', message: expect.stringMatching(/while a batch is being applied/) });
    expect(store.getSnapshot(snap)!.counts).toEqual({ cell: 40_000 });
  });
});
