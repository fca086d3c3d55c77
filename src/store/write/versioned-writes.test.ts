import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  makeActivity, makeAmendment, makeAutomation, makeCell, makeCollection, makeColumn, makeMember, makeModule,
  makeModuleAccess, makeRecord, makeTempDir, makeWorkspace,
} from '../fixtures.js';
import { openStore } from '../open.js';
import type { Store } from '../port.js';

describe('versioned writes', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore(path.join(tmp.dir, 's.db'));
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  const versions = (table: string, id: string) =>
    store.db.prepare(`SELECT valid_from, valid_to, name FROM ${table} WHERE id = ? ORDER BY vid`).all(id);
  const complete = (id: number) => store.finishSnapshot(id, 'complete', {});
  const base = () => ({
    workspaces: [makeWorkspace('w1')],
    modules: [makeModule('m1', 'w1')],
    collections: [makeCollection('c1', 'm1')],
    columns: [makeColumn('k1', 'm1')],
    records: [makeRecord('r1', 'm1', 'c1'), makeRecord('r2', 'm1', 'c1'), makeRecord('s1', 'm1', 'c1', { parentRecordId: 'r1' })],
    cells: [makeCell('x1', 'r1', 'k1'), makeCell('x2', 'r2', 'k1'), makeCell('x3', 's1', 'k1')],
    amendments: [makeAmendment('a1', 'r1'), makeAmendment('a2', 'r2')],
  });

  it('skips an unchanged upsert: no new version', async () => {
    const s1 = store.beginSnapshot('full');
    const r1 = await store.apply(s1, { upserts: base() });
    expect(r1.written).toMatchObject({ workspace: 1, module: 1, record: 3, cell: 3, amendment: 2 });
    complete(s1);
    const s2 = store.beginSnapshot('full');
    const r2 = await store.apply(s2, { upserts: base() });
    expect(r2.written).toEqual({});
    expect(r2.unchanged).toBe(12);
    expect(versions('record_versions', 'r1')).toEqual([{ valid_from: s1, valid_to: null, name: 'Record r1' }]);
  });

  it('writes exactly one new version on change and closes the old one', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: base() });
    complete(s1);
    const s2 = store.beginSnapshot('incremental');
    const changed = makeRecord('r1', 'm1', 'c1', { name: 'Renamed' });
    const res = await store.apply(s2, { upserts: { records: [changed] } });
    expect(res.written).toEqual({ record: 1 });
    expect(versions('record_versions', 'r1')).toEqual([
      { valid_from: s1, valid_to: s2, name: 'Record r1' },
      { valid_from: s2, valid_to: null, name: 'Renamed' },
    ]);
    // a second change in the same snapshot rewrites that version rather than splitting it
    await store.apply(s2, { upserts: { records: [{ ...changed, name: 'Again' }] } });
    expect(versions('record_versions', 'r1')).toHaveLength(2);
    expect(store.getSnapshot(s2)!.counts).toEqual({ record: 1 });
  });

  it('a listing marks gone only what is absent, only within its scope', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        ...base(),
        collections: [makeCollection('c1', 'm1'), makeCollection('c2', 'm1')],
        records: [
          ...base().records,
          makeRecord('r3', 'm1', 'c2'),
          makeRecord('arch', 'm1', 'c1', { isArchived: true }),
        ],
      },
    });
    complete(s1);
    const s2 = store.beginSnapshot('full');
    const res = await store.apply(s2, { listings: [{ kind: 'record', collectionId: 'c1', ids: ['r1'] }] });
    // r2 (absent) gone with its cell and amendment; r1 kept; r3 is another collection; the
    // archived record and the sub-record are outside a top-level record listing
    expect(res.gone).toEqual({ record: 1, cell: 1, amendment: 1 });
    const cur = store.db.prepare(`SELECT id FROM record_versions WHERE valid_to IS NULL ORDER BY id`).pluck().all();
    expect(cur).toEqual(['arch', 'r1', 'r3', 's1']);
    await store.apply(s2, { listings: [{ kind: 'subrecord', parentRecordId: 'r1', ids: [] }] });
    expect(versions('record_versions', 's1')[0]).toMatchObject({ valid_to: s2 });
    expect(store.getSnapshot(s2)!.counts).toEqual({ 'record.gone': 2, 'cell.gone': 2, 'amendment.gone': 1 });
  });

  it('scopes the other listings (members, columns by scope, access rows, automations)', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        workspaces: [makeWorkspace('w1'), makeWorkspace('w2')],
        members: [makeMember('w1', 'u1'), makeMember('w1', 'u2'), makeMember('w2', 'u2')],
        modules: [makeModule('m1', 'w1')],
        columns: [makeColumn('k1', 'm1'), makeColumn('k2', 'm1', { scope: 'subrecord' })],
        automations: [makeAutomation('au1', 'w1', 'm1'), makeAutomation('au2', 'w1', null)],
        moduleAccess: [makeModuleAccess('w1', 'u1', 'm1'), makeModuleAccess('w1', 'u2', 'm1')],
      },
    });
    const res = await store.apply(s1, {
      listings: [
        { kind: 'member', workspaceId: 'w1', ids: ['u1'] },
        { kind: 'column', moduleId: 'm1', scope: 'record', ids: [] },
        { kind: 'moduleAccess', workspaceId: 'w1', userId: 'u1', ids: [] },
        { kind: 'workspaceAutomation', workspaceId: 'w1', ids: [] },
        { kind: 'workspace', ids: [], scopeIds: ['w9'] },
      ],
    });
    expect(res.gone).toEqual({ member: 1, column: 1, moduleAccess: 1, automation: 1 });
    const gone = (t: string) => store.db.prepare(`SELECT count(*) FROM ${t} WHERE valid_to IS NULL`).pluck().get();
    expect(gone('member_versions')).toBe(2);
    expect(store.db.prepare(`SELECT id FROM column_versions WHERE valid_to IS NULL`).pluck().all()).toEqual(['k2']);
    expect(store.db.prepare(`SELECT id FROM automation_versions WHERE valid_to IS NULL`).pluck().all()).toEqual(['au1']);
  });

  it('cascades a gone module to everything beneath it, and only it', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        ...base(),
        modules: [makeModule('m1', 'w1'), makeModule('m2', 'w1')],
        records: [...base().records, makeRecord('o1', 'm2', null)],
        automations: [makeAutomation('au1', 'w1', 'm1')],
        moduleAccess: [makeModuleAccess('w1', 'u1', 'm1')],
      },
    });
    complete(s1);
    const s2 = store.beginSnapshot('incremental');
    const res = await store.apply(s2, { gone: [{ kind: 'module', id: 'm1', cascade: true }] });
    expect(res.gone).toEqual({ module: 1, collection: 1, column: 1, record: 3, cell: 3, amendment: 2, automation: 1, moduleAccess: 1 });
    expect(store.db.prepare(`SELECT id FROM record_versions WHERE valid_to IS NULL`).pluck().all()).toEqual(['o1']);
    expect(store.verify()).toMatchObject({ ok: true });
  });

  it('cascades a gone record to sub-records, cells and amendments; a column to nothing else', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: base() });
    const res = await store.apply(s1, { gone: [{ kind: 'record', id: 'r1', cascade: true }] });
    expect(res.gone).toEqual({ record: 2, cell: 2, amendment: 1 });
    // written and gone within the same snapshot: never existed as of any snapshot, so deleted
    expect(versions('record_versions', 'r1')).toEqual([]);
    // the deployed service keeps a deleted column's values (listed with column: null): the cells'
    // own listings decide, not the column's mark
    const res2 = await store.apply(s1, { gone: [{ kind: 'column', id: 'k1', cascade: true }] });
    expect(res2.gone).toEqual({ column: 1 });
    complete(s1);
    expect(store.verify().ok).toBe(true);
  });

  it('a collection takes its top-level records along, not the sub-records of a parent moved away', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, {
      upserts: {
        ...base(),
        collections: [makeCollection('c1', 'm1'), makeCollection('c2', 'm1')],
        // r1 moved to c2; its sub-record s1 still carries c1, as on the service
        records: [makeRecord('r1', 'm1', 'c2'), makeRecord('r2', 'm1', 'c1'), makeRecord('s1', 'm1', 'c1', { parentRecordId: 'r1' })],
      },
    });
    complete(s1);
    const s2 = store.beginSnapshot('incremental');
    const res = await store.apply(s2, { listings: [{ kind: 'collection', moduleId: 'm1', ids: ['c2'] }] });
    expect(res.gone).toEqual({ collection: 1, record: 1, cell: 1, amendment: 1 });
    complete(s2);
    const live = store.db.prepare(`SELECT id FROM records ORDER BY id`).pluck().all();
    expect(live).toEqual(['r1', 's1']);
    expect(store.db.prepare(`SELECT id FROM cells ORDER BY id`).pluck().all()).toEqual(['x1', 'x3']);
  });

  it('never marks activity gone, and versions a changed activity row', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: { workspaces: [makeWorkspace('w1')], activity: [makeActivity('ev1', 'w1')] } });
    complete(s1);
    const s2 = store.beginSnapshot('full');
    await store.apply(s2, {
      upserts: { activity: [makeActivity('ev1', 'w1', { raw: { _id: 'ev1', revertedAt: '2026-02-01T00:00:00Z' } })] },
      gone: [{ kind: 'workspace', id: 'w1', cascade: true }],
    });
    complete(s2);
    const rows = store.db.prepare(`SELECT valid_from, valid_to FROM activity_versions WHERE id = 'ev1' ORDER BY vid`).all();
    expect(rows).toEqual([{ valid_from: s1, valid_to: s2 }, { valid_from: s2, valid_to: null }]);
    expect(store.knownActivityIds(['ev1', 'ev2'])).toEqual(new Set(['ev1']));
  });

  it('stores the cursor in the batch transaction, and refuses writes into a finished snapshot', async () => {
    const s1 = store.beginSnapshot('full');
    await store.apply(s1, { upserts: { workspaces: [makeWorkspace('w1')] }, cursor: { workspaceId: 'w1', cursor: '2026-01-01T00:00:00Z' } });
    expect(store.getCursor('w1')).toMatchObject({ workspaceId: 'w1', cursor: '2026-01-01T00:00:00Z', snapshotId: s1 });
    complete(s1);
    await expect(store.apply(s1, { upserts: { workspaces: [makeWorkspace('w2')] } })).rejects.toThrow(/complete/);
    store.clearCursor('w1');
    expect(store.getCursor('w1')).toBeNull();
  });

  it('marks interrupted snapshots failed but not the ones this store is running', () => {
    const other = openStore(store.path);
    const orphan = other.beginSnapshot('full');
    other.close(); // as if that process died
    const mine = store.beginSnapshot('incremental');
    expect(store.failInterruptedSnapshots()).toEqual([orphan]);
    expect(store.getSnapshot(orphan)).toMatchObject({ status: 'failed', summary: { interrupted: true } });
    expect(store.getSnapshot(mine)!.status).toBe('running');
    // another live process's pass (here: pid 1, always alive) is left alone
    const foreign = openStore(store.path);
    const theirs = foreign.beginSnapshot('full');
    foreign.close();
    store.db.prepare('UPDATE snapshot_runs SET owner_pid = 1 WHERE id = ?').run(theirs);
    expect(store.failInterruptedSnapshots()).toEqual([]);
  });
});
