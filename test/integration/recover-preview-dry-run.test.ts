// The console's Recover page says what a rollback or a restore would do before anyone runs it. Its
// numbers must be the ones the command's own --dry-run then gives for the same selection, read from
// the live service: after damage of every kind the preview handles (status values overwritten and
// cleared, records renamed, completed, moved, reordered, archived and deleted with their
// sub-records, a relation column deleted, a record added), synced, nobody editing since — rollback
// of the whole module and of one column (first pages of every size: what is past the page is
// counted in SQL), and the whole-module restore (as a copy), both dialects. And when the rollback recreates structure other
// modules name (another module's automation and relation/reference columns naming deleted columns
// and a collection), the preview re-points and declares the same objects as `rollback --dry-run --json`.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { restoreModule, type FieldChange } from '../../src/restore/index.js';
import { previewRecover } from '../../src/ui/recover-plan.js';
import { plainColumns } from '../../src/ui/recover-restore.js';
import { readRestoreContent } from '../../src/store/read/index.js';
import { dumpOf } from '../helpers/harness.js';
import { nameSalesFromOthers, type Others } from '../helpers/repoint-others.js';
import { ATTRIBUTION, board, call, rollbackCli, runRollback, setCell, syncAfterDamage } from '../helpers/rollback-kit.js';
import { serveConsole } from '../helpers/ui-kit.js';

const key = (w: FieldChange): string => JSON.stringify([w.entity, w.id, w.field, w.live, w.base, w.label]);
const byId = <T extends { id: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const sorted = <T,>(xs: readonly T[]): T[] => [...xs].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe.each(['spec', 'observed'] as Dialect[])('recover previews give the dry run\'s numbers (%s dialect)', (dialect) => {
  it('rollback (whole module, one column) and restore module', { timeout: 120_000 }, async () => {
    const b = await board(dialect, 'Product Roadmap');
    const { h } = b;
    try {
      const status = b.col('Status');
      const records = ['SSO with SAML', 'Audit log export', 'Mobile offline mode', 'Bulk record import', 'Board templates', 'Usage-based billing'].map((n) => b.rec(n));
      // DAMAGE: a status overwritten on most rows (one cleared), renames, a parent row and a plain
      // row deleted, the relation column the reference columns go through deleted, a row added
      for (const id of records.slice(0, 5)) await setCell(b, id, status, 'Blocked');
      const cleared = dumpOf(h.emu).values.find((v) => v.record === records[5] && v.column === status && !v.isDeleted);
      if (cleared) await call(h, 'DELETE', `/record-values/${cleared._id}`);
      await call(h, 'PUT', `/records/${b.rec('Public API v2')}`, { name: 'Public API v3' });
      await call(h, 'PUT', `/records/${b.rec('Slack integration')}`, { name: 'Slack' });
      for (const id of [b.rec('SSO with SAML'), b.rec('Dark mode')]) await call(h, 'DELETE', `/records/${id}`);
      await call(h, 'DELETE', `/columns/${b.col('Customer')}`);
      await call(h, 'POST', `/records/${b.coll('Now')}`, { name: 'Added after the damage' });
      // every field a record step writes back: completion, position, collection, and an archived row
      // (brought back whole); the plain ones are counted in SQL past the preview's first page
      await call(h, 'PUT', `/records/${records[1]}`, { isCompleted: true });
      await call(h, 'PUT', `/records/${records[2]}`, { position: 97.5 });
      await call(h, 'PUT', `/records/${records[3]}`, { collectionName: b.coll('Later') });
      await call(h, 'PUT', `/records/${records[4]}`, { isArchived: true });
      const latest = await syncAfterDamage(h, { full: true });

      for (const column of [undefined, status]) {
        const dry = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, dryRun: true, ...(column ? { columns: [column] } : {}) });
        expect(dry.dryRun).toBe(true);
        expect(dry.conflicts, 'nobody edited since the last pass').toEqual([]);
        // the first page as the page shows it, one write, none (all counted)
        for (const listed of [undefined, 1, 0]) {
          const preview = previewRecover(h.store, { moduleId: b.mod, snapshot: b.s1, scope: 'rollback', columnId: column, attribution: ATTRIBUTION, ...(listed === undefined ? {} : { listed }) });
          expect(preview.latest).toBe(latest);
          expect(preview.counts).toEqual(dry.counts);
          expect(preview.summary).toEqual(dry.plan);
          expect(preview.notRestored).toEqual(dry.notRestored);
          // the service lists in its own order: the same fields put back, whatever the order
          expect(preview.writeCount).toBe(dry.writes.length);
          const listedKeys = preview.writes.map(key);
          if (listed === undefined) expect(listedKeys.sort()).toEqual(dry.writes.map(key).sort());
          else expect(listedKeys.length).toBe(Math.min(listed, dry.writes.length));
          for (const k of listedKeys) expect(dry.writes.map(key)).toContain(k);
          expect(preview.newRecords.map((r) => r.id).sort()).toEqual(dry.newRecords.map((r) => r.id).sort());
        }
        if (!column) {
          const fields = new Set(dry.writes.filter((w) => w.entity === 'record').map((w) => w.field));
          for (const f of ['name', 'isCompleted', 'position', 'collectionId', 'isArchived']) expect([...fields], f).toContain(f);
          expect(dry.counts['cells'] ?? 0, 'the overwritten statuses').toBeGreaterThanOrEqual(4);
        }
      }

      const restore = previewRecover(h.store, { moduleId: b.mod, snapshot: b.s1, scope: 'module', attribution: ATTRIBUTION });
      const dry = await restoreModule({ client: h.client, store: h.store }, { moduleId: b.mod, snapshotId: b.s1, asCopy: true, dryRun: true, attribution: ATTRIBUTION });
      expect(restore.counts).toEqual(dry.counts);
      expect(restore.summary).toEqual(dry.plan);
      expect(restore.notRestored).toEqual(dry.notRestored);
      expect(restore.counts['cells']).toBeGreaterThan(20);
      // the records counted in SQL (store/read/restore-content.ts) and those planned, both
      const read = readRestoreContent(h.store.db, b.mod, b.s1, plainColumns(h.store.stateAt(b.s1)!.columns(b.mod)));
      expect(read.plainRecords, 'records counted').toBeGreaterThan(0);
      expect(read.content.records.length, 'records planned').toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  it("a deleted collection's records: the preview counts them as the dry run does", { timeout: 120_000 }, async () => {
    const b = await board(dialect, 'Sales Pipeline');
    const { h } = b;
    try {
      const qualified = b.coll('Qualified');
      const inIt = dumpOf(h.emu).records.filter((x) => x.module === b.mod && x.collectionName === qualified && !x.parentRecord && !x.isDeleted && !x.isArchived);
      expect(inIt.length).toBeGreaterThan(0);
      // DAMAGE: the collection deleted with its deals in it (the deployed service leaves them
      // stranded, answering by id only; the published interface deletes them)
      await call(h, 'DELETE', `/collections/${qualified}`);
      await syncAfterDamage(h, { full: true });
      const preview = previewRecover(h.store, { moduleId: b.mod, snapshot: b.s1, scope: 'rollback', attribution: ATTRIBUTION });
      const dry = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--dry-run', '--json']);
      expect([0, 5], dry.err || dry.out).toContain(dry.code);
      expect(dry.json.conflicts, 'nobody edited since the last pass').toEqual([]);
      expect(preview.counts).toEqual(dry.json.counts);
      expect(preview.summary).toEqual(dry.json.plan);
      expect(sorted(preview.notRestored)).toEqual(sorted(dry.json.notRestored));
      expect(preview.newRecords.map((r) => r.id).sort()).toEqual(dry.json.newRecords.map((r: { id: string }) => r.id).sort());
      expect(preview.writeCount).toBe(dry.json.writes.length);
      expect(preview.counts['collectionsRecreated']).toBe(1);
      // and the page shows those counts
      const c = await serveConsole(h.dbPath);
      try {
        const page = await (await fetch(`${c.url}/recover?module=${b.mod}&snapshot=${b.s1}&scope=rollback`)).text();
        expect(page).toContain('Qualified');
      } finally {
        await c.close();
      }
    } finally {
      await h.close();
    }
  });

  it("a deleted collection's records edited after the snapshot: the preview puts the edits back as the dry run does", { timeout: 120_000 }, async () => {
    const b = await board(dialect, 'Sales Pipeline');
    const { h } = b;
    try {
      const qualified = b.coll('Qualified');
      const inIt = dumpOf(h.emu).records.filter((x) => x.module === b.mod && x.collectionName === qualified && !x.parentRecord && !x.isDeleted && !x.isArchived);
      expect(inIt.length).toBeGreaterThan(1);
      // edits after the snapshot rolled back to, seen by a pass: a value set on one deal, another's
      // cleared, a note on one; then the collection deleted with them in it, and a pass
      const text = dumpOf(h.emu).columns.find((c) => c.module === b.mod && c.type === 'text' && c.scope === 'record' && !c.isDeleted)!;
      await setCell(b, inIt[0]!._id, text._id, 'edited after the snapshot');
      const held = dumpOf(h.emu).values.find((v) => v.record === inIt[1]!._id && !v.isDeleted && v.column !== text._id);
      expect(held, 'a deal with a value to clear').toBeDefined();
      await call(h, 'DELETE', `/record-values/${held!._id}`);
      await call(h, 'POST', `/amendments/${inIt[0]!._id}`, { message: 'a note after the snapshot' });
      await syncAfterDamage(h);
      await call(h, 'DELETE', `/collections/${qualified}`);
      await syncAfterDamage(h, { full: true });
      const preview = previewRecover(h.store, { moduleId: b.mod, snapshot: b.s1, scope: 'rollback', attribution: ATTRIBUTION });
      const dry = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), '--dry-run', '--json']);
      expect([0, 5], dry.err || dry.out).toContain(dry.code);
      expect(preview.counts).toEqual(dry.json.counts);
      expect(preview.summary).toEqual(dry.json.plan);
      expect(sorted(preview.notRestored)).toEqual(sorted(dry.json.notRestored));
      expect(preview.writeCount).toBe(dry.json.writes.length);
      expect(sorted(preview.writes.map(key))).toEqual(sorted(dry.json.writes.map(key)));
      if (dialect === 'observed') {
        // the deals are found by id, and both edits go back
        const cellWrites = dry.json.writes.filter((w: FieldChange) => w.entity === 'cell' && (w.base === null || w.live === null || String(w.live).includes('edited')));
        expect(cellWrites.length, JSON.stringify(dry.json.writes)).toBeGreaterThanOrEqual(2);
      }
    } finally {
      await h.close();
    }
  });

  it("re-points and declares other modules' automations and relation/reference columns as the dry run does", { timeout: 120_000 }, async () => {
    let others: Others | undefined;
    const b = await board(dialect, 'Sales Pipeline', async (x) => {
      others = await nameSalesFromOthers(x);
    });
    const { h } = b;
    try {
      const { roadmap, roadmapAuto } = others!;
      const stage = b.col('Stage');
      const dealValue = b.col('Deal value');
      const qualified = b.coll('Qualified');
      const roadmapColumn = (name: string): string => dumpOf(h.emu).columns.find((c) => c.module === roadmap && c.name === name && !c.isDeleted)!._id as string;
      const customer = roadmapColumn('Customer');
      const customerStage = roadmapColumn('Customer stage');
      // DAMAGE: two columns other modules name and the collection Roadmap's automation creates into,
      // its deals moved out first (top-level records of a deleted collection are unreachable on the
      // deployed service: only the command's lookup by id can tell, which the preview names as such)
      for (const r of dumpOf(h.emu).records.filter((x) => x.module === b.mod && x.collectionName === qualified && !x.parentRecord && !x.isDeleted)) {
        await call(h, 'PUT', `/records/${r._id}`, { collectionName: b.coll('Proposal') });
      }
      await call(h, 'DELETE', `/columns/${stage}`);
      await call(h, 'DELETE', `/columns/${dealValue}`);
      await call(h, 'DELETE', `/collections/${qualified}`);
      await syncAfterDamage(h, { full: true });

      // the whole module (everything recreated, re-pointed), and one column (the other one gone is
      // left out: what names it is declared)
      for (const column of [undefined, stage]) {
        const preview = previewRecover(h.store, { moduleId: b.mod, snapshot: b.s1, scope: 'rollback', columnId: column, attribution: ATTRIBUTION });
        const dry = await rollbackCli(h, ['--module', b.mod, '--to-snapshot', String(b.s1), ...(column ? ['--column', column] : []), '--dry-run', '--json']);
        // exit 5 where something is declared (relation settings create-only, or a dead id named)
        expect([0, 5], dry.err || dry.out).toContain(dry.code);
        expect(dry.json?.dryRun).toBe(true);
        expect(preview.counts).toEqual(dry.json.counts);
        expect(sorted(preview.notRestored)).toEqual(sorted(dry.json.notRestored));
        expect(byId(preview.repointed.columns)).toEqual(byId(dry.json.repointed.columns));
        expect(byId(preview.repointed.automations)).toEqual(byId(dry.json.repointed.automations));

        const owner = { scope: 'module', id: roadmap, name: 'Product Roadmap' };
        const foreignColumns = preview.repointed.columns.filter((c) => c.owner?.id === roadmap).map((c) => c.id);
        const foreignDeclared = preview.notRestored.filter((n) => n.label.startsWith('Product Roadmap › ')).map((n) => n.id);
        if (!column) {
          // Roadmap's automation (on Qualified), its reference column (on Stage) and its relation column (on Deal value)
          expect(preview.repointed.automations).toContainEqual({ id: roadmapAuto, name: 'Shipped → follow-up deal', names: [qualified], owner });
          expect(foreignColumns).toEqual(expect.arrayContaining([customerStage, customer]));
          expect(preview.counts['automationsRepointed']).toBeGreaterThanOrEqual(1);
        } else {
          // only Stage comes back: Customer stage follows it; Customer (on Deal value) is declared
          expect(foreignColumns).toContain(customerStage);
          expect(foreignColumns).not.toContain(customer);
          expect(foreignDeclared).toContain(customer);
        }
      }

      // the page lists them
      const c = await serveConsole(h.dbPath);
      try {
        const page = await (await fetch(`${c.url}/recover?module=${b.mod}&snapshot=${b.s1}&scope=rollback`)).text();
        expect(page).toContain('Re-pointed at what is recreated');
        for (const id of [roadmapAuto, customerStage, customer]) expect(page).toContain(id);
        expect(page).toContain('automation Product Roadmap › Shipped → follow-up deal');
        expect(page).toContain('column Product Roadmap › Customer stage');
      } finally {
        await c.close();
      }
    } finally {
      await h.close();
    }
  });
});
