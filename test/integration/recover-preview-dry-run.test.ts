// The console's Recover page says what a rollback or a restore would do before anyone runs it. Its
// numbers must be the ones the command's own --dry-run then gives for the same selection, read from
// the live service: after damage of every kind the preview handles (status values overwritten and
// cleared, records renamed and deleted with their sub-records, a relation column deleted, a record
// added), synced, nobody editing since — rollback of the whole module and of one column, and the
// whole-module restore (as a copy), both dialects.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { restoreModule, type FieldChange } from '../../src/restore/index.js';
import { previewRecover } from '../../src/ui/recover-plan.js';
import { dumpOf } from '../helpers/harness.js';
import { ATTRIBUTION, board, call, runRollback, setCell, syncAfterDamage } from '../helpers/rollback-kit.js';

const key = (w: FieldChange): string => JSON.stringify([w.entity, w.id, w.field, w.live, w.base, w.label]);

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
      const latest = await syncAfterDamage(h, { full: true });

      for (const column of [undefined, status]) {
        const preview = previewRecover(h.store, { moduleId: b.mod, snapshot: b.s1, scope: 'rollback', columnId: column, attribution: ATTRIBUTION });
        expect(preview.latest).toBe(latest);
        const dry = await runRollback(h, { moduleId: b.mod, toSnapshot: b.s1, dryRun: true, ...(column ? { columns: [column] } : {}) });
        expect(dry.dryRun).toBe(true);
        expect(dry.conflicts, 'nobody edited since the last pass').toEqual([]);
        expect(preview.counts).toEqual(dry.counts);
        expect(preview.summary).toEqual(dry.plan);
        expect(preview.notRestored).toEqual(dry.notRestored);
        // the service lists in its own order: the same fields put back, whatever the order
        expect(preview.writeCount).toBe(dry.writes.length);
        expect(preview.writes.map(key).sort()).toEqual(dry.writes.map(key).sort());
        expect(preview.newRecords.map((r) => r.id).sort()).toEqual(dry.newRecords.map((r) => r.id).sort());
        if (!column) expect(preview.counts['cells'] ?? 0, 'the overwritten statuses').toBeGreaterThanOrEqual(4);
      }

      const restore = previewRecover(h.store, { moduleId: b.mod, snapshot: b.s1, scope: 'module', attribution: ATTRIBUTION });
      const dry = await restoreModule({ client: h.client, store: h.store }, { moduleId: b.mod, snapshotId: b.s1, asCopy: true, dryRun: true, attribution: ATTRIBUTION });
      expect(restore.counts).toEqual(dry.counts);
      expect(restore.summary).toEqual(dry.plan);
      expect(restore.notRestored).toEqual(dry.notRestored);
      expect(restore.counts['cells']).toBeGreaterThan(20);
    } finally {
      await h.close();
    }
  });
});
