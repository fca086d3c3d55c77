// Regressions: the incremental pass must never lose what the service still shows. Each case failed
// before the crawl stopped inferring gone-marks (a collection took the sub-records of a parent moved
// away; a column took its values; an archived parent took its live sub-records; a comment on an
// archived row took the row), and before full passes backfilled archived rows from the feed.

import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { restoreModule } from '../../src/restore/index.js';
import { api, dumpOf, makeHarness, view, type Harness } from '../helpers/harness.js';
import { VIEWS, viewDiff } from '../helpers/random-writes.js';

type Doc = Record<string, any>;

/** A live top-level record with live sub-records holding cells, and another collection of its module. */
function parentWithSubs(h: Harness): { parent: Doc; subs: Doc[]; other: Doc } {
  const d = dumpOf(h.emu);
  const liveCols = d.collections.filter((c) => !c.isDeleted);
  for (const p of d.records.filter((r) => !r.isDeleted && !r.isArchived && !r.parentRecord)) {
    const subs = d.records.filter((s) => s.parentRecord === p._id && !s.isDeleted && !s.isArchived);
    const other = liveCols.find((c) => c.module === p.module && c._id !== p.collectionName);
    const withCells = subs.some((s) => d.values.some((v) => v.record === s._id && !v.isDeleted));
    if (subs.length >= 2 && other && withCells) return { parent: p, subs, other };
  }
  throw new Error('the demo seed has no parent with sub-records and cells in a module with two groups');
}

/** One write, then an incremental pass that must succeed. */
async function writeThenSync(h: Harness, method: string, path: string, body?: unknown): Promise<void> {
  const res = await api(h.emu, method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  h.emu.clock.advance(1000);
  await h.emu.idle();
  const pass = await h.sync();
  expect(pass.kind).toBe('incremental');
  expect(pass.failures).toEqual([]);
}

const recordRow = (h: Harness, id: string): Doc | undefined => view(h.store, 'records', 'WHERE id = ?', [id])[0];
const cellsOf = (h: Harness, ids: string[]): Doc[] => view(h.store, 'cells', `WHERE record_id IN (${ids.map(() => '?').join(',')})`, ids);

describe.each(['spec', 'observed'] as Dialect[])('the incremental pass keeps what the service shows (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const step = (method: string, path: string, body?: unknown) => writeThenSync(h!, method, path, body);

  it('keeps the sub-records of a moved parent when its old collection is deleted, through later passes, and restores them', async () => {
    h = await makeHarness(dialect);
    await h.sync();
    const { parent, subs, other } = parentWithSubs(h);
    const subIds = subs.map((s) => s._id as string);
    const cellsBefore = cellsOf(h, subIds).length;
    expect(cellsBefore).toBeGreaterThan(0);

    await step('PUT', `/records/${parent._id}`, { collectionName: other._id });
    await step('DELETE', `/collections/${parent.collectionName}`);
    // the service still lists them under their parent, carrying the deleted collection's id
    const listed = await api(h.emu, 'GET', `/records/${parent._id}/sub-records`);
    expect((listed.body.records as Doc[]).map((r) => r._id).sort()).toEqual([...subIds].sort());
    for (const id of subIds) expect(recordRow(h, id), `sub-record ${id}`).toMatchObject({ parent_record_id: parent._id, is_archived: 0 });
    expect(cellsOf(h, subIds)).toHaveLength(cellsBefore);

    // a later pass that re-crawls the module for another reason keeps them too
    await step('PUT', `/records/${parent._id}`, { name: 'Moved parent, renamed' });
    for (const id of subIds) expect(recordRow(h, id)).toBeTruthy();
    const full = h.openOther('full');
    await full.sync({ full: true });
    // (activity rows are stored once; their revertability, which later writes change, is not compared)
    expect(viewDiff(h.store, full.store, VIEWS.filter((v) => v !== 'activity'))).toEqual([]);

    // restore after one more pass: the moved parent comes back with its sub-records and their cells
    await step('DELETE', `/modules/${parent.module}`);
    const res = await restoreModule({ client: h.client, store: h.store }, { moduleId: parent.module, settleMs: 5, attribution: 'Restored by wbsync — originally by {author} at {createdAt}.' });
    await h.emu.idle();
    expect(res.moduleId).toBeTruthy();
    const groups = await h.client.listCollections(res.moduleId!);
    const rows = (await Promise.all(groups.map((g) => h!.client.listRecords(g.id)))).flat();
    const back = rows.find((r) => r.name === 'Moved parent, renamed');
    expect(back, 'the moved parent is restored').toBeTruthy();
    const backSubs = await h.client.listSubRecords(back!.id);
    expect(backSubs.map((s) => s.name).sort()).toEqual(subs.map((s) => s.name).sort());
    const backCells = (await Promise.all(backSubs.map((s) => h!.client.listValues(s.id)))).flat();
    expect(backCells).toHaveLength(cellsBefore);
  });

  it('backfills on the first full pass the records archived before it, with cells and threads', async () => {
    h = await makeHarness(dialect);
    const d = dumpOf(h.emu);
    const rec = d.records.find(
      (r) => !r.isDeleted && !r.isArchived && !r.parentRecord && d.values.some((v) => v.record === r._id && !v.isDeleted) && d.amendments.some((a) => a.record === r._id && !a.isDeleted),
    )!;
    expect(rec).toBeTruthy();
    // observed: DELETE archives and logs record_deleted; spec: PUT {isArchived} logs record_archived
    const res = dialect === 'observed' ? await api(h.emu, 'DELETE', `/records/${rec._id}`) : await api(h.emu, 'PUT', `/records/${rec._id}`, { isArchived: true });
    expect(res.status).toBe(200);
    const pass = await h.sync();
    expect(pass.kind).toBe('full');
    expect(recordRow(h, rec._id)).toMatchObject({ is_archived: 1, name: rec.name, collection_id: rec.collectionName, module_id: rec.module });
    const liveCells = d.values.filter((v) => v.record === rec._id && !v.isDeleted);
    expect(cellsOf(h, [rec._id]).map((c) => c.id).sort()).toEqual(liveCells.map((v) => v._id).sort());
    expect(view(h.store, 'amendments', 'WHERE record_id = ?', [rec._id]).length).toBeGreaterThan(0);
    // and the next incremental pass agrees with it
    await step('PUT', `/records/${d.records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord && r._id !== rec._id)!._id}`, { name: 'something else' });
    expect(recordRow(h, rec._id)).toMatchObject({ is_archived: 1 });
  });
});

describe('the incremental pass keeps what the deployed service shows (observed dialect)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const step = (method: string, path: string, body?: unknown) => writeThenSync(h!, method, path, body);

  it('keeps the live sub-records of a parent archived with PUT {isArchived: true}', async () => {
    h = await makeHarness('observed');
    await h.sync();
    const { parent, subs } = parentWithSubs(h);
    await step('PUT', `/records/${parent._id}`, { isArchived: true });
    expect(recordRow(h, parent._id)).toMatchObject({ is_archived: 1 });
    for (const s of subs) expect(recordRow(h, s._id), `sub-record ${s._id}`).toMatchObject({ is_archived: 0 });
  });

  it('keeps an archived record and its thread when a comment is posted on it', async () => {
    h = await makeHarness('observed');
    await h.sync();
    const d = dumpOf(h.emu);
    const rec = d.records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord && d.amendments.some((a) => a.record === r._id && !a.isDeleted))!;
    await step('DELETE', `/records/${rec._id}`);
    const before = view(h.store, 'amendments', 'WHERE record_id = ?', [rec._id]).length;
    expect(before).toBeGreaterThan(0);
    await step('POST', `/amendments/${rec._id}`, { message: 'posted on an archived row' });
    expect(recordRow(h, rec._id)).toMatchObject({ is_archived: 1 });
    const notes = view(h.store, 'amendments', 'WHERE record_id = ?', [rec._id]);
    expect(notes).toHaveLength(before + 1);
    expect(notes.some((n) => n.message === 'posted on an archived row')).toBe(true);
  });

  it('keeps the values of a deleted sub-record column (listed with column: null)', async () => {
    h = await makeHarness('observed');
    await h.sync();
    const d = dumpOf(h.emu);
    const col = d.columns.find((c) => !c.isDeleted && c.scope === 'subrecord' && d.values.some((v) => v.column === c._id && !v.isDeleted))!;
    expect(col).toBeTruthy();
    const ids = d.values.filter((v) => v.column === col._id && !v.isDeleted).map((v) => v._id as string);
    await step('DELETE', `/columns/${col._id}`);
    const kept = view(h.store, 'cells', `WHERE id IN (${ids.map(() => '?').join(',')})`, ids);
    expect(kept).toHaveLength(ids.length);
    for (const c of kept) expect(c.column_id).toBeNull();
  });

  // The deployed service keeps an archived record whose collection was deleted (no listing reaches
  // it); a restore or rollback moves it into a live collection by id. The backup saw it go with its
  // collection: the move row proves it lives again, in an incremental pass and in a full one.
  it.each(['incremental', 'full'] as const)('brings back an archived record moved out of a deleted collection (%s pass)', async (kind) => {
    h = await makeHarness('observed');
    const d = dumpOf(h.emu);
    const rec = d.records.find((r) => {
      if (r.isDeleted || r.isArchived || r.parentRecord || !d.values.some((v) => v.record === r._id && !v.isDeleted)) return false;
      return d.collections.some((c) => !c.isDeleted && c.module === r.module && c._id !== r.collectionName);
    })!;
    const other = d.collections.find((c) => !c.isDeleted && c.module === rec.module && c._id !== rec.collectionName)!;
    const cellIds = d.values.filter((v) => v.record === rec._id && !v.isDeleted).map((v) => v._id as string).sort();
    await h.sync();
    await step('PUT', `/records/${rec._id}`, { isArchived: true });
    expect(recordRow(h, rec._id)).toMatchObject({ is_archived: 1, position: rec.position });
    await step('DELETE', `/collections/${rec.collectionName}`);
    expect(recordRow(h, rec._id), 'gone with its collection').toBeUndefined();

    expect((await api(h.emu, 'PUT', `/records/${rec._id}`, { collectionName: other._id })).status).toBe(200);
    h.emu.clock.advance(1000);
    await h.emu.idle();
    const pass = await h.sync({ full: kind === 'full' });
    expect(pass.kind).toBe(kind);
    const moved = dumpOf(h.emu).records.find((r) => r._id === rec._id)!;
    expect(recordRow(h, rec._id)).toMatchObject({ is_archived: 1, name: rec.name, collection_id: other._id, position: moved.position });
    expect(cellsOf(h, [rec._id]).map((c) => c.id).sort()).toEqual(cellIds);
    // and a later full pass keeps it (no endless probing either: it is current again)
    await h.sync({ full: true });
    expect(recordRow(h, rec._id)).toMatchObject({ is_archived: 1, collection_id: other._id });
  });

  it('keeps a sub-record created on an archived parent that was un-archived and archived again between passes (neither logged)', async () => {
    h = await makeHarness('observed');
    await h.sync();
    // a parent with no sub-records yet: nothing stored marks it as one
    const d = dumpOf(h.emu);
    const parent = d.records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord && !d.records.some((s) => s.parentRecord === r._id))!;
    await step('PUT', `/records/${parent._id}`, { isArchived: true });
    expect(recordRow(h, parent._id)).toMatchObject({ is_archived: 1 });
    expect((await api(h.emu, 'PUT', `/records/${parent._id}`, { isArchived: false })).status).toBe(200);
    const made = await api(h.emu, 'POST', `/records/${parent._id}/sub-records`, { name: 'added while un-archived' });
    expect(made.status).toBe(201);
    await step('PUT', `/records/${parent._id}`, { isArchived: true });
    const sub = dumpOf(h.emu).records.find((r) => r.parentRecord === parent._id && r.name === 'added while un-archived')!;
    expect(recordRow(h, sub._id), 'the new sub-record').toMatchObject({ parent_record_id: parent._id });
  });
});

