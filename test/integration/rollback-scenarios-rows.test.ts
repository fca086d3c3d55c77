// `wbsync rollback` against the bad days it exists for (continued from rollback-scenarios.test.ts,
// whose opening says how each scenario runs): a deleted thread and edited amendments, bulk renames
// and moves of rows, and only an automation's writes picked out of a window.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { api, dumpOf } from '../helpers/harness.js';
import { idMapOf } from '../../src/restore/index.js';
import { attributed, board, type Board, brief, call, cellId, closing, conflictOf, differencesFrom, expectCellValue, expectedFrom, expectAmendment, expectRecord, runRollback, setCell, sleep, syncAfterDamage } from '../helpers/rollback-kit.js';

describe.each(['spec', 'observed'] as Dialect[])('rollback scenarios, rows and threads (%s dialect)', (dialect) => {
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
      for (const n of thread) expectAmendment(expected, n._id, { message: attributed(h, n) });
      expectAmendment(expected, rocketNote._id, { message: 'Unicode note, rewritten on purpose', edited: true });
      expectAmendment(expected, hooliNote, { message: 'Renewal call booked for Tuesday.', edited: true });
      expectAmendment(expected, starkReply._id, { edited: true }); // text back; the service keeps the flag
      expectAmendment(expected, starkRoot._id, { message: 'SOC 2 — ignore', edited: true }); // refused, declared
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

      // DAMAGE WINDOW: a person blocks three items (the automation moves, zeroes and renames them) and
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
        expect([rr.collectionName, String(rr.name).startsWith('⛔ ')], `the automation moved and renamed ${rr.name}`).toEqual([later, true]);
      }
      await syncAfterDamage(h);
      // LATER EDITS to fields the automation wrote
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
});
