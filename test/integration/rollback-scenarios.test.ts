// `wbsync rollback` against the bad days it exists for, both dialects, on the demo seed. Each
// scenario: read the module ("good"), full sync; DAMAGE; incremental sync; LATER LEGITIMATE EDITS
// (some to damaged fields, some elsewhere); rollback; then the module read live must equal "good"
// with exactly the later edits on top (recreated objects compared through the run's id map), and
// every later edit must be reported as a conflict (exit 5 through the CLI).

import { type FieldChange, idMapOf, POSITION_UNSEEN, runDiff } from '../../src/restore/index.js';
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { api, dumpOf } from '../helpers/harness.js';
import { checkDeclared, compareModules, formatDifferences, invertIdMap, readModule, type ModuleView } from '../helpers/module-snapshot.js';
import { readModuleLive } from '../../src/sync/live-module.js';
import {
  ATTRIBUTION,
  attributed,
  board,
  call,
  cellId,
  differencesFrom,
  expectCollection,
  expectColumn,
  expectNote,
  expectRecord,
  rollbackCli,
  runRollback,
  setCell,
  sleep,
  syncAfterDamage,
  withoutOrphans,
  writesSince,
  type Board,
} from '../helpers/rollback-kit.js';

/** A deep copy of "good", to put the expected edits on. */
const expectedFrom = (good: ModuleView): ModuleView => structuredClone(good);

/** Sets (or adds) a cell of the expected view. */
function expectCellValue(v: ModuleView, recordId: string, columnId: string, value: unknown): void {
  const list = (v.cells[recordId] ??= []);
  const c = list.find((x) => x.column === columnId);
  if (c) c.value = value;
  else list.push({ id: `new:${recordId}|${columnId}`, column: columnId, label: `cell ${recordId}|${columnId}`, value });
}

const brief = (c: FieldChange): string => `${c.entity} ${c.label} ${c.field}: base ${JSON.stringify(c.base)}, after ${JSON.stringify(c.after)}, live ${JSON.stringify(c.live)}`;
const conflictOf = (entity: FieldChange['entity'], id: string, field: string, live: unknown) => expect.objectContaining({ entity, id, field, live });

async function closing<T>(b: Board, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } finally {
    await b.h.close();
  }
}

describe.each(['spec', 'observed'] as Dialect[])('rollback scenarios (%s dialect)', (dialect) => {
  it('a. bulk overwrite of a status column, with the automation it set off; CLI --json --pause-automations', async () => {
    let recipeId = '';
    const b = await board(dialect, 'Sales Pipeline', async (x) => {
      // a second module recipe on the same trigger, writing another column
      const r = await call(x.h, 'POST', `/automations/${x.mod}`, {
        name: 'Won deals get a closing note',
        trigger: { type: 'column_changed_to', column: x.col('Stage'), value: 'Won' },
        conditions: [],
        match: 'all',
        actions: [{ type: 'set_column_value', column: x.col('Notes'), value: 'Closed: won' }],
      }, 'automation');
      recipeId = r._id;
    });
    await closing(b, async () => {
      const { h } = b;
      const stage = b.col('Stage');
      const notes = b.col('Notes');
      const won = b.coll('Won 🎉');
      const d0 = dumpOf(h.emu);
      const stageOf = (id: string) => d0.values.find((v) => v.record === id && v.column === stage && !v.isDeleted)?.value;
      const live = d0.records.filter((r) => r.module === b.mod && !r.parentRecord && !r.isArchived && !r.isDeleted);
      const A = live.filter((r) => stageOf(r._id) !== 'Won').slice(0, 9).map((r) => r._id as string);
      const B = live.filter((r) => stageOf(r._id) === 'Won').map((r) => r._id as string);
      expect(A).toContain(b.rec('Vandelay Imports')); // no Stage cell: the damage creates one
      expect(B.length).toBeGreaterThan(0);

      // DAMAGE: an import sets Stage on many rows; the recipes complete, move and annotate them
      for (const id of A) await setCell(b, id, stage, 'Won');
      for (const id of B) await setCell(b, id, stage, 'Lost');
      await h.emu.idle();
      const d1 = dumpOf(h.emu);
      for (const id of A) {
        const r = d1.records.find((x) => x._id === id)!;
        expect([r.isCompleted, r.collectionName], `the recipe completed and moved ${r.name}`).toEqual([true, won]);
        expect(d1.values.find((v) => v.record === id && v.column === notes && !v.isDeleted)?.value).toBe('Closed: won');
      }
      await syncAfterDamage(h);

      // LATER EDITS: two damaged cells, one on a row the import set to Lost, two undamaged fields
      const [globex, initech] = [A[0]!, A[1]!];
      const stark = B[0]!;
      const massive = b.rec('Massive Dynamic');
      const cyberdyne = b.rec('Cyberdyne');
      const dealValue = b.col('Deal value');
      await setCell(b, globex, stage, 'Negotiating');
      await setCell(b, initech, notes, 'Called: they want a discount');
      await setCell(b, stark, stage, 'Negotiating');
      await call(h, 'PUT', `/records/${massive}`, { name: 'Massive Dynamic AG' });
      await setCell(b, cyberdyne, dealValue, '123456');
      await h.emu.idle();

      const wsRecipesBefore = Object.fromEntries((await h.client.listWorkspaceAutomations(b.ws)).map((a) => [a.name, a.isActive]));
      const recipeStats = () =>
        dumpOf(h.emu)
          .automations.filter((a) => a.workspace === b.ws)
          .map((a) => `${a.name}: runs ${a.runCount}, last ${a.lastRunAt}, active ${a.isActive}`)
          .sort();
      const statsBefore = recipeStats();
      const automationRows = () => dumpOf(h.emu).activity.filter((a) => a.automation).length;
      const rowsBefore = automationRows();

      const { code, json: r, err } = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--pause-automations', '--json']);
      expect(r, err).not.toBeNull();
      expect(code, 'conflicts kept → exit 5').toBe(5);
      expect(r.dryRun).toBe(false);
      expect(r.snapshot).toBe(b.s1);

      // the recipes did not fire during the rollback and are as they were afterwards
      expect(automationRows(), 'no automation wrote anything during the rollback').toBe(rowsBefore);
      expect(recipeStats()).toEqual(statsBefore);
      expect(r.pausedAutomations).toEqual(expect.arrayContaining([recipeId]));
      expect(Object.fromEntries((await h.client.listWorkspaceAutomations(b.ws)).map((a) => [a.name, a.isActive]))).toEqual(wsRecipesBefore);

      // every later edit kept and reported
      expect(r.conflicts).toEqual(
        expect.arrayContaining([
          conflictOf('cell', cellId(h, globex, stage), 'value', 'Negotiating'),
          conflictOf('cell', cellId(h, initech, notes), 'value', 'Called: they want a discount'),
          conflictOf('cell', cellId(h, stark, stage), 'value', 'Negotiating'),
          conflictOf('record', massive, 'name', 'Massive Dynamic AG'),
          conflictOf('cell', cellId(h, cyberdyne, dealValue), 'value', '123456'),
        ]),
      );
      expect.soft(r.conflicts.map(brief), 'only the later edits are conflicts').toHaveLength(5);

      const expected = expectedFrom(b.good);
      expectCellValue(expected, globex, stage, 'Negotiating');
      expectCellValue(expected, initech, notes, 'Called: they want a discount');
      expectCellValue(expected, stark, stage, 'Negotiating');
      expectRecord(expected, massive, { name: 'Massive Dynamic AG' });
      expectCellValue(expected, cyberdyne, dealValue, '123456');
      expect(await differencesFrom(b, expected, r.runId)).toEqual([]);

      // diff afterwards, limited to what a rollback of cells and records touches: only the conflicts
      const report = await runDiff({ client: h.client, store: h.store, readLive: readModuleLive }, { moduleId: b.mod, snapshotId: b.s1, attribution: ATTRIBUTION, selection: { kinds: ['cells', 'records'] } });
      const left = report.modules.flatMap((m) => m.entries);
      expect(left.map((e) => e.id).sort()).toEqual(r.conflicts.map((c: { id: string }) => c.id).sort());
    });
  });

  it('b. a deleted column comes back with its cells (compared by name and values); --to TIME', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const priority = b.col('Priority');
      const goodCells = Object.fromEntries(Object.entries(b.good.cells).map(([rid, cs]) => [rid, cs.find((c) => c.column === priority)?.value]).filter(([, v]) => v !== undefined));
      expect(Object.keys(goodCells).length).toBeGreaterThan(5);
      // DAMAGE
      await call(h, 'DELETE', `/columns/${priority}`);
      await syncAfterDamage(h);
      // LATER EDITS (nothing damaged can be edited: the column is gone)
      const hooli = b.rec('Hooli');
      const notes = b.col('Notes');
      const phone = b.col('Phone');
      await setCell(b, hooli, notes, 'Follow up in May');
      await call(h, 'PUT', `/columns/${phone}`, { width: 260 });
      await h.emu.idle();

      const at = h.store.listSnapshots().find((s) => s.id === b.s1)!.finishedAt!;
      const r = await runRollback(h, { moduleId: b.mod, toTime: at });
      expect([r.snapshot, r.chosenBy]).toEqual([b.s1, 'to']);
      expect(r.counts.columnsRecreated).toBe(1);
      expect(r.notRestored).toEqual([]);
      expect(r.conflicts).toEqual(expect.arrayContaining([conflictOf('cell', cellId(h, hooli, notes), 'value', 'Follow up in May'), conflictOf('column', phone, 'width', 260)]));
      expect.soft(r.conflicts.map(brief), 'only the later edits are conflicts').toHaveLength(2);

      // by name and values: one Priority column, its cells as they were
      const after = withoutOrphans(await readModule(h.emu, b.mod));
      const again = after.columns.record.filter((c) => c.fields.name === 'Priority');
      expect(again).toHaveLength(1);
      const newId = again[0]!.id;
      const backCells = Object.fromEntries(Object.entries(after.cells).map(([rid, cs]) => [rid, cs.find((c) => c.column === newId)?.value]).filter(([, v]) => v !== undefined));
      expect(backCells).toEqual(goodCells);

      const expected = expectedFrom(b.good);
      expectCellValue(expected, hooli, notes, 'Follow up in May');
      expectColumn(expected, phone, { width: 260 });
      expect(await differencesFrom(b, expected, r.runId)).toEqual([]);

      // diff afterwards, limited to the column: the recreated copy pairs with the original through
      // the rollback's journal, its cells compare equal — nothing left
      const report = await runDiff({ client: h.client, store: h.store, readLive: readModuleLive }, { moduleId: b.mod, snapshotId: b.s1, attribution: ATTRIBUTION, selection: { columns: ['Priority'] } });
      expect(report.modules.flatMap((m) => m.entries)).toEqual([]);
    });
  });

  it('c. a deleted collection comes back with its records: moved back (observed keeps them) or recreated with their cells and notes (spec deletes them)', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const leads = b.coll('Leads');
      const inLeads = dumpOf(h.emu)
        .records.filter((r) => r.module === b.mod && r.collectionName === leads && !r.parentRecord && !r.isDeleted)
        .map((r) => r._id as string);
      expect(inLeads).toEqual(expect.arrayContaining([b.rec('Globex Corporation'), b.rec('Cyberdyne'), b.rec('Tyrell Systems')]));
      const leadNotes = dumpOf(h.emu).amendments.filter((a) => inLeads.includes(a.record) && !a.isDeleted);
      // DAMAGE
      await call(h, 'DELETE', `/collections/${leads}`);
      await syncAfterDamage(h);
      // LATER EDITS
      const qualified = b.coll('Qualified');
      const hooli = b.rec('Hooli');
      const notes = b.col('Notes');
      await call(h, 'PUT', `/collections/${qualified}`, { name: 'Qualified ✓' });
      await setCell(b, hooli, notes, 'Follow up in May');

      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1 });
      expect(r.counts.collectionsRecreated).toBe(1);
      expect(r.conflicts).toEqual(expect.arrayContaining([conflictOf('collection', qualified, 'name', 'Qualified ✓'), conflictOf('cell', cellId(h, hooli, notes), 'value', 'Follow up in May')]));
      expect.soft(r.conflicts.map(brief), 'only the later edits are conflicts').toHaveLength(2);

      const expected = expectedFrom(b.good);
      expectCollection(expected, qualified, { name: 'Qualified ✓' });
      expectCellValue(expected, hooli, notes, 'Follow up in May');
      if (dialect === 'spec') {
        // recreated records' notes are posted again, with the attribution line
        for (const n of leadNotes) expectNote(expected, n._id, { message: attributed(h, n) });
      }
      const after = withoutOrphans(await readModule(h.emu, b.mod));
      const diffs = compareModules(expected, after, invertIdMap(idMapOf(h.store.db, r.runId!)));
      if (dialect === 'observed') {
        // the records were never deleted: they are moved back into the recreated collection
        // (Tyrell Systems was archived before the first backup: its position is unknown, and said)
        expect.soft(r.notRestored.filter((n) => n.entity === 'record' && n.reason !== POSITION_UNSEEN)).toEqual([]);
        expect(formatDifferences(diffs)).toEqual([]);
      } else {
        // the service deleted them with the collection: each is recreated in the copy (new ids,
        // paired through the journal), with its sub-records, cells and notes
        const map = idMapOf(h.store.db, r.runId!);
        for (const id of inLeads) expect(map.get(id), `record ${id} recreated`).toMatch(/^[0-9a-f]{24}$/);
        expect(r.notRestored.filter((n) => n.entity === 'record' && n.reason !== POSITION_UNSEEN)).toEqual([]);
        expect(formatDifferences(checkDeclared(diffs, r.notRestored, expected).undeclared)).toEqual([]);
      }
    });
  });

  it('d. a deleted thread is re-posted (attributed, parents first) and edited notes get their text back', async () => {
    let hooliNote = '';
    const b = await board(dialect, 'Sales Pipeline', async (x) => {
      hooliNote = (await call(x.h, 'POST', `/amendments/${x.rec('Hooli')}`, { message: 'Renewal call booked.' }, 'amendment'))._id;
    });
    await closing(b, async () => {
      const { h } = b;
      const [ada, grace] = h.emu.users as [(typeof h.emu.users)[0], (typeof h.emu.users)[0]];
      const notesOf = (recordId: string) =>
        dumpOf(h.emu)
          .amendments.filter((a) => a.record === recordId && !a.isDeleted)
          .sort((x, y) => (x.createdAt < y.createdAt ? -1 : 1));
      const globex = b.rec('Globex Corporation');
      const thread = notesOf(globex);
      expect(thread.map((n) => n.parentComment === null)).toEqual([true, false, false]);
      const rocketNote = notesOf(b.rec('🚀 Rocket Labs'))[0]!;
      const [starkRoot, starkReply] = notesOf(b.rec('Stark Industries')) as [Record<string, any>, Record<string, any>];
      expect([rocketNote.user, starkRoot.user, starkReply.user]).toEqual([ada.id, grace.id, ada.id]);

      // DAMAGE: the Globex thread deleted (replies first); two of Ada's notes and one of Grace's rewritten
      for (const n of [...thread].reverse()) await call(h, 'DELETE', `/amendments/${n._id}`);
      await call(h, 'PUT', `/amendments/${rocketNote._id}`, { message: 'removed' });
      await call(h, 'PUT', `/amendments/${starkReply._id}`, { message: 'see drive' });
      expect((await api(h.emu, 'PUT', `/amendments/${starkRoot._id}`, { message: 'SOC 2 — ignore' }, grace.apiKey)).status).toBeLessThan(300);
      // the deployed service logs note edits nowhere: only a full pass sees them (README: rollback, step 1)
      await syncAfterDamage(h, { full: dialect === 'observed' });
      // LATER EDITS by Ada: a damaged note again; an undamaged one
      await call(h, 'PUT', `/amendments/${rocketNote._id}`, { message: 'Unicode note, rewritten on purpose' });
      await call(h, 'PUT', `/amendments/${hooliNote}`, { message: 'Renewal call booked for Tuesday.' });

      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1 });
      expect(r.counts.amendments).toBe(3);
      expect(r.conflicts).toEqual(
        expect.arrayContaining([
          conflictOf('amendment', rocketNote._id, 'message', 'Unicode note, rewritten on purpose'),
          conflictOf('amendment', hooliNote, 'message', 'Renewal call booked for Tuesday.'),
        ]),
      );
      expect.soft(r.conflicts.map(brief), 'only the later edits are conflicts').toHaveLength(2);
      // Ada's rewritten reply is put back; Grace's note: only its author may edit it — refused, listed
      expect.soft(r.writes, "Ada's rewritten reply is put back").toEqual(expect.arrayContaining([expect.objectContaining({ entity: 'amendment', id: starkReply._id, field: 'message', live: 'see drive', base: starkReply.message })]));
      expect.soft(r.refused).toBe(1);
      expect.soft(r.notRestored).toEqual([expect.objectContaining({ entity: 'amendment', id: starkRoot._id, reason: expect.stringMatching(/refused/) })]);

      // re-posted in thread order, parents first, each with the attribution line
      const map = idMapOf(h.store.db, r.runId!);
      const posted = thread.map((n) => map.get(n._id));
      thread.forEach((n, i) => expect(posted[i], `note ${i} re-posted with a new id`).toMatch(new RegExp(`^(?!${n._id}$)[0-9a-f]{24}$`)));
      const now = notesOf(globex);
      expect(now.map((n) => n._id)).toEqual(posted);
      expect(now.map((n) => n.parentComment)).toEqual([null, posted[0], posted[0]]);

      const expected = expectedFrom(b.good);
      for (const n of thread) expectNote(expected, n._id, { message: attributed(h, n) });
      expectNote(expected, rocketNote._id, { message: 'Unicode note, rewritten on purpose', edited: true });
      expectNote(expected, hooliNote, { message: 'Renewal call booked for Tuesday.', edited: true });
      expectNote(expected, starkReply._id, { edited: true }); // text back; the service keeps the flag
      expectNote(expected, starkRoot._id, { message: 'SOC 2 — ignore', edited: true }); // refused, declared
      expect(await differencesFrom(b, expected, r.runId)).toEqual([]);
    });
  });

  it('e. bulk rename and move of records and sub-records: names, collections, positions back', async () => {
    const b = await board(dialect, 'Product Roadmap');
    await closing(b, async () => {
      const { h } = b;
      const later = b.coll('Later');
      const renamed = ['SSO with SAML', 'Audit log export', 'Mobile offline mode', 'Bulk record import', 'Board templates', 'Usage-based billing'].map((n) => b.rec(n));
      const moved = ['SSO with SAML', 'Audit log export', 'Public API v2'].map((n) => b.rec(n));
      const repositioned = ['Dark mode', 'Bulk record import'].map((n) => b.rec(n));
      const subSpec = b.rec('Spec', 'SSO with SAML');
      const subBuild = b.rec('Build', 'Mobile offline mode');
      const subQa = b.rec('QA', 'Mobile offline mode');
      // DAMAGE: an agent renames, moves and reorders
      const names = new Map(dumpOf(h.emu).records.map((r) => [r._id as string, r.name as string]));
      for (const id of renamed) await call(h, 'PUT', `/records/${id}`, { name: `${names.get(id)} (v2)` });
      for (const id of moved) await call(h, 'PUT', `/records/${id}`, { collectionName: later });
      for (const [i, id] of repositioned.entries()) await call(h, 'PUT', `/records/${id}`, { position: 40 + i });
      await call(h, 'PUT', `/records/${subSpec}`, { name: 'Spec [renamed]' });
      await call(h, 'PUT', `/records/${subBuild}`, { name: 'Build [renamed]' });
      await call(h, 'PUT', `/records/${subQa}`, { position: 99 });
      await syncAfterDamage(h);
      // LATER EDITS: a renamed record renamed again; an undamaged record and sub-record renamed
      const boardTemplates = b.rec('Board templates (v2)');
      const slack = b.rec('Slack integration');
      const review = b.rec('Design review', 'Bulk record import (v2)');
      await call(h, 'PUT', `/records/${boardTemplates}`, { name: 'Board templates & themes' });
      await call(h, 'PUT', `/records/${slack}`, { name: 'Slack + Teams integration' });
      await call(h, 'PUT', `/records/${review}`, { name: 'Design review (done)' });
      await h.emu.idle();

      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1 });
      expect(r.conflicts).toEqual(
        expect.arrayContaining([
          conflictOf('record', boardTemplates, 'name', 'Board templates & themes'),
          conflictOf('record', slack, 'name', 'Slack + Teams integration'),
          conflictOf('record', review, 'name', 'Design review (done)'),
        ]),
      );
      expect.soft(r.conflicts.map(brief), 'only the later edits are conflicts').toHaveLength(3);
      expect(r.notRestored).toEqual([]);

      const expected = expectedFrom(b.good);
      expectRecord(expected, boardTemplates, { name: 'Board templates & themes' });
      expectRecord(expected, slack, { name: 'Slack + Teams integration' });
      expectRecord(expected, review, { name: 'Design review (done)' });
      expect(await differencesFrom(b, expected, r.runId)).toEqual([]);
    });
  });

  it("f. only an automation's writes, by --changed-by automation --changed-between T1 T2; a person's edits in the window stay", async () => {
    const b = await board(dialect, 'Product Roadmap', async (x) => {
      await call(x.h, 'POST', `/automations/${x.mod}`, {
        name: 'Blocked work waits',
        trigger: { type: 'column_changed_to', column: x.col('Status'), value: 'Blocked' },
        conditions: [],
        match: 'all',
        actions: [
          { type: 'move_to_collection', collectionName: x.coll('Later') },
          { type: 'set_column_value', column: x.col('Effort'), value: '0' },
          { type: 'rename_record', value: '⛔ {{name}}' },
        ],
      }, 'automation');
    });
    await closing(b, async () => {
      const { h } = b;
      const [status, effort, owner] = [b.col('Status'), b.col('Effort'), b.col('Owner')];
      const later = b.coll('Later');
      const blocked = ['Audit log export', 'Bulk record import', 'Dark mode'].map((n) => b.rec(n));
      const [audit, bulk, dark] = blocked as [string, string, string];
      const perms = b.rec('Advanced permissions');
      const api2 = b.rec('Public API v2');
      for (const id of blocked) expect(b.good.cells[id]?.find((c) => c.column === status)?.value).not.toBe('Blocked');

      // DAMAGE WINDOW: a person blocks three items (the recipe moves, zeroes and renames them) and
      // makes other edits of their own
      await sleep(5);
      const T1 = h.emu.clock.now().toISOString();
      await sleep(5);
      for (const id of blocked) await setCell(b, id, status, 'Blocked');
      await h.emu.idle();
      await call(h, 'PUT', `/records/${perms}`, { name: 'Advanced permissions (RBAC)' });
      await setCell(b, api2, effort, '8');
      await setCell(b, dark, owner, JSON.stringify([h.emu.users[1]!.id]));
      await call(h, 'PUT', `/records/${bulk}`, { isCompleted: true });
      await h.emu.idle();
      await sleep(5);
      const T2 = h.emu.clock.now().toISOString();
      await sleep(5);
      const d1 = dumpOf(h.emu);
      for (const id of blocked) {
        const rr = d1.records.find((x) => x._id === id)!;
        expect([rr.collectionName, String(rr.name).startsWith('⛔ ')], `the recipe moved and renamed ${rr.name}`).toEqual([later, true]);
      }
      await syncAfterDamage(h);
      // LATER EDITS to fields the recipe wrote
      await setCell(b, audit, effort, '5');
      await call(h, 'PUT', `/records/${dark}`, { name: 'Dark mode (blocked on design)' });
      await h.emu.idle();

      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, changedBy: 'automation', changedBetween: [T1, T2] });
      expect(r.conflicts).toEqual(expect.arrayContaining([conflictOf('cell', cellId(h, audit, effort), 'value', '5'), conflictOf('record', dark, 'name', 'Dark mode (blocked on design)')]));
      expect.soft(r.conflicts.map(brief), 'only the later edits are conflicts').toHaveLength(2);

      const expected = expectedFrom(b.good);
      // the person's edits in the window
      for (const id of blocked) expectCellValue(expected, id, status, 'Blocked');
      expectRecord(expected, perms, { name: 'Advanced permissions (RBAC)' });
      expectCellValue(expected, api2, effort, '8');
      expectCellValue(expected, dark, owner, JSON.stringify([h.emu.users[1]!.id]));
      expectRecord(expected, bulk, { isCompleted: true });
      // the later edits
      expectCellValue(expected, audit, effort, '5');
      expectRecord(expected, dark, { name: 'Dark mode (blocked on design)' });
      expect(await differencesFrom(b, expected, r.runId)).toEqual([]);
    });
  });

  it('later edits the daemon already synced are kept when --changed-between pins the damage', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const notes = b.col('Notes');
      const targets = ['Globex Corporation', 'Initech (renewal)', 'Hooli'].map((n) => b.rec(n));
      await sleep(5);
      const T1 = h.emu.clock.now().toISOString();
      for (const id of targets) await setCell(b, id, notes, 'IMPORTED');
      await sleep(5);
      const T2 = h.emu.clock.now().toISOString();
      await sleep(5);
      const damaged = await syncAfterDamage(h);
      await setCell(b, targets[0]!, notes, 'Fixed by hand');
      await syncAfterDamage(h); // the daemon's next pass sees the later edit
      const r = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, changedBetween: [T1, T2] });
      expect(r.afterSnapshot).toBe(damaged);
      expect(r.conflicts).toEqual([conflictOf('cell', cellId(h, targets[0]!, notes), 'value', 'Fixed by hand')]);
      const expected = expectedFrom(b.good);
      expectCellValue(expected, targets[0]!, notes, 'Fixed by hand');
      expect(await differencesFrom(b, expected, r.runId)).toEqual([]);
    });
  });

  it('--dry-run sends only GETs, and lists exactly the writes a real run then makes', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const stage = b.col('Stage');
      const d0 = dumpOf(h.emu);
      const stageOf = (id: string) => d0.values.find((v) => v.record === id && v.column === stage && !v.isDeleted)?.value;
      const targets = ['Globex Corporation', 'Initech (renewal)', 'Vandelay Imports', 'Cyberdyne'].map((n) => b.rec(n));
      for (const id of targets) expect(stageOf(id)).not.toBe('Contacted');
      // DAMAGE: cells overwritten (one set where there was none), two renames
      for (const id of targets) await setCell(b, id, stage, 'Contacted');
      await call(h, 'PUT', `/records/${b.rec('Wonka Industries')}`, { name: 'Wonka' });
      await call(h, 'PUT', `/records/${b.rec('Hooli')}`, { name: 'Hooli (old)' });
      await syncAfterDamage(h);

      const from = h.emu.requestLog.total();
      const dry = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--dry-run', '--json']);
      expect(dry.json, dry.err).not.toBeNull();
      expect(dry.code).toBe(0);
      expect(dry.json.dryRun).toBe(true);
      expect(writesSince(h, from), 'a dry run sends only GETs').toEqual([]);
      expect(dry.json.writes).toHaveLength(6);
      // the recipe on Stage is named as one the writes could set off
      expect(dry.json.wouldTrigger.map((a: { name: string }) => a.name)).toContain('Won deals are completed');

      const start = h.emu.requestLog.total();
      const real = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1 });
      expect(JSON.parse(JSON.stringify(real.writes))).toEqual(dry.json.writes);
      const sent = writesSince(h, start).sort();
      const wanted = [
        ...new Set(
          (real.writes as FieldChange[]).map((w) =>
            w.entity === 'cell' ? `${w.base === null ? 'DELETE' : 'PUT'} /api/record-values/${w.id}` : `PUT /api/records/${w.id}`,
          ),
        ),
      ].sort();
      expect(sent).toEqual(wanted);
      expect(await differencesFrom(b, b.good, real.runId)).toEqual([]);
    });
  });

  it('refusals write nothing: module deleted (6, restore module), snapshot without the module (6), neither/both of --to-snapshot/--to (2)', async () => {
    const b = await board(dialect, 'Sales Pipeline');
    await closing(b, async () => {
      const { h } = b;
      const fresh = await call(h, 'POST', `/modules/${b.ws}`, { name: 'Scratch board' }, 'module');
      await syncAfterDamage(h);
      const from = h.emu.requestLog.total();

      const notHeld = await rollbackCli(h, ['--module', fresh._id, '--to-snapshot', String(b.s1)]);
      expect(notHeld.code, notHeld.err).toBe(6);
      expect(notHeld.err + notHeld.out).toMatch(/does not hold/);

      const neither = await rollbackCli(h, ['--module', b.mod]);
      expect(neither.code, neither.err).toBe(2);
      const at = h.store.listSnapshots().find((s) => s.id === b.s1)!.finishedAt!;
      const both = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--to', at]);
      expect(both.code, both.err).toBe(2);
      expect(writesSince(h, from)).toEqual([]);

      await call(h, 'DELETE', `/modules/${b.mod}`);
      const after = h.emu.requestLog.total();
      const gone = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1)]);
      expect(gone.code, gone.err).toBe(6);
      expect(gone.err + gone.out).toMatch(/restore module/);
      const goneJson = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--json']);
      expect(goneJson.code).toBe(6);
      expect(goneJson.err + goneJson.out).toMatch(/restore module/);
      expect(writesSince(h, after)).toEqual([]);
    });
  });
});
