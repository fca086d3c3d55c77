import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCollection, makeModule, makeRecord, makeTempDir, makeWorkspace } from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';
import { lastSnapshotsHolding } from './last-held.js';

describe('lastSnapshotsHolding', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 'h.db'));
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  it("is snapshotsHolding's last snapshot for each record, in one statement", async () => {
    const ws = makeWorkspace('w1');
    const mod = makeModule('m1', 'w1');
    const coll = makeCollection('c1', 'm1');
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
    const pass = async (status: 'complete' | 'failed', write: (s: number) => Promise<void>): Promise<number> => {
      const s = store.beginSnapshot('full');
      await write(s);
      store.finishSnapshot(s, status, { requests: 0, durationMs: 0 });
      return s;
    };
    // 1: every record; 2: r1 renamed, r2 gone; 3 (failed): r3 gone; 4: r4 gone, r2 back;
    // 5: r1 renamed again; 6: r5 gone — then 5 forgotten by retention
    await pass('complete', (s) => store.apply(s, { upserts: { workspaces: [ws], modules: [mod], collections: [coll], records: ids.map((id) => makeRecord(id, 'm1', 'c1')) } }).then(() => undefined));
    await pass('complete', async (s) => {
      await store.apply(s, { upserts: { records: [makeRecord('r1', 'm1', 'c1', { name: 'renamed' })] }, gone: [{ kind: 'record', id: 'r2' }] });
    });
    await pass('failed', async (s) => {
      await store.apply(s, { gone: [{ kind: 'record', id: 'r3' }] });
    });
    await pass('complete', async (s) => {
      await store.apply(s, { upserts: { records: [makeRecord('r2', 'm1', 'c1', { name: 'back' })] }, gone: [{ kind: 'record', id: 'r4' }] });
    });
    const five = await pass('complete', async (s) => {
      await store.apply(s, { upserts: { records: [makeRecord('r1', 'm1', 'c1', { name: 'again' })] } });
    });
    await pass('complete', async (s) => {
      await store.apply(s, { gone: [{ kind: 'record', id: 'r5' }] });
    });
    const expected = (): Map<string, number> => new Map(ids.flatMap((id) => store.snapshotsHolding('record', id).slice(-1).map((at) => [id, at] as [string, number])));
    expect(lastSnapshotsHolding(store.db, [...ids, 'never', 'r1'])).toEqual(expected());
    expect(lastSnapshotsHolding(store.db, ids).get('r4')).toBe(2);
    expect(lastSnapshotsHolding(store.db, ids).get('r5')).toBe(5);
    store.db.prepare('INSERT INTO snapshot_forgets (snapshot_id, decided_at) VALUES (?, ?)').run(five, new Date().toISOString());
    expect(lastSnapshotsHolding(store.db, ids)).toEqual(expected());
    expect(lastSnapshotsHolding(store.db, ids).get('r5')).toBe(4);
    expect(lastSnapshotsHolding(store.db, [])).toEqual(new Map());
  });
});
