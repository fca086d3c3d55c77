// Rollback as a property: whatever damage random writes do to a live module, rolling it back to the
// snapshot before gives back the module as people saw it then — every field and the order of every
// list — except what was created since (rollback keeps it and lists new records) and what the
// rollback itself declares (notRestored). Nobody edits after the damage here, so there must be no
// conflict at all.
//
// Per dialect: one emulator (demo seed); rounds of: pick a module, full backup (the "good" snapshot),
// read it live, damage it with the seeded writer weighted toward hard states (ties, moves, deleted
// collections and columns, archived rows, tombstoned threads...), full backup (the damage, read in
// full: some of it leaves no trace in the feed), roll back, read live, compare modulo ids.
// Longer runs: WBSYNC_ROLLBACK_ROUNDS=20 WBSYNC_ROLLBACK_SEED=$RANDOM npx vitest run <this file>
// Against a running service too: WBSYNC_LIVE_URL + WBSYNC_LIVE_KEY_FILE (docs/real-backend.md).

import { describe, expect, it } from 'vitest';
import { idMapOf } from '../../src/restore/journal.js';
import { rollback } from '../../src/restore/rollback.js';
import { makeHarness, makeTargetHarness, silentLogger, type Harness } from '../helpers/harness.js';
import { LIVE_SUBSTITUTES, LiveService } from '../helpers/live-service.js';
import { liveSettings, suiteTargets } from '../helpers/service-target.js';
import { checkDeclared, compareModules, formatDifferences, invertIdMap, readModule, type Difference } from '../helpers/module-snapshot.js';
import { prng } from '../helpers/random-writes.js';
import { RestoreWriter } from '../helpers/restore-writes.js';

const ROUNDS = Number(process.env.WBSYNC_ROLLBACK_ROUNDS ?? 3);
const SEED = Number(process.env.WBSYNC_ROLLBACK_SEED ?? 20261125);
const DAMAGE_WRITES = 24;

/** Created since the snapshot: rollback keeps it (records are listed, not removed). */
const createdSince = (d: Difference): boolean => d.field === '(exists)' && d.after === 'present (extra)';
/** A list's order where the list gained members since: the old members' relative order is what counts. */
function orderOfOldMembers(d: Difference): boolean {
  if (d.field !== 'order') return false;
  const names = (xs: unknown): string[] => (Array.isArray(xs) ? xs.map(String) : []);
  const kept = names(d.after).filter((x) => names(d.before).includes(x));
  return JSON.stringify(kept) === JSON.stringify(names(d.before).filter((x) => kept.includes(x)));
}
/** Out of a rollback's reach by design (README): the module's own settings, its automations and
 * grants, and the `edited` flag the service keeps on a note whose text was put back. */
const outOfReach = (d: Difference): boolean =>
  d.entity === 'module' || d.entity === 'automation' || d.entity === 'grant' || (d.entity === 'amendment' && d.field === 'edited');
/** A list holding something recreated or posted again: it is new, so it sorts after the siblings it
 * ties with (the service orders ties by creation time); the rest of the list keeps its order. */
function reorderedByRecreation(d: Difference, recreated: readonly string[]): boolean {
  if (d.field !== 'order') return false;
  const text = JSON.stringify([d.before, d.after]);
  return recreated.some((name) => name.length > 0 && text.includes(JSON.stringify(name).slice(1, -1).slice(0, 28)));
}

describe.each(suiteTargets())('rollback property: damage, roll back, compare (%s)', (target) => {
  it(`seed ${SEED}`, { timeout: ROUNDS * (target === 'live' ? 120_000 : 30_000) + 60_000 }, async () => {
    let live: LiveService | undefined;
    let h: Harness;
    if (target === 'live') {
      live = new LiveService(liveSettings()!);
      const wsId = await live.seed(`wbsync rollback ${SEED} ${Date.now()}`, prng(SEED));
      h = makeTargetHarness(live, [wsId]);
      console.log(`live run against ${live.baseUrl}, workspace ${wsId}; substitutes:\n- ${LIVE_SUBSTITUTES.join('\n- ')}`);
    } else h = await makeHarness(target, { randomSeed: SEED });
    const dialect = h.target.dialect;
    try {
      const rnd = prng(SEED);
      const w = new RestoreWriter(h.target, rnd, dialect, new Set());
      const ws = (await h.target.dump()).workspaces[0]!._id as string;
      let agreed = 0;
      const failed: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const from = w.applied.length;
        const moduleId = await w.chooseModule(ws, 0);
        await h.target.idle();
        const good = await h.sync({ full: true });
        expect(good.failures).toEqual([]);
        const before = await readModule(h.target, moduleId);
        await w.shape(moduleId, DAMAGE_WRITES);
        await h.target.idle();
        expect((await h.sync({ full: true })).failures).toEqual([]);

        const r = await rollback({ client: h.client, store: h.store, logger: silentLogger }, { moduleId, toSnapshot: good.snapshot, attribution: '', settleMs: 1, pauseAutomations: true });
        await h.target.idle();
        const after = await readModule(h.target, moduleId);
        const diffs = compareModules(before, after, invertIdMap(idMapOf(h.store.db, r.runId!)));
        const recreated = r.writes.filter((x) => x.field === '(deleted)').map((x) => String(x.base ?? ''));
        const left = diffs.filter((d) => !createdSince(d) && !orderOfOldMembers(d) && !outOfReach(d) && !reorderedByRecreation(d, recreated));
        const { undeclared } = checkDeclared(left, r.notRestored, before);
        const problems = [
          ...(r.conflicts.length ? [`conflicts with no later edit: ${JSON.stringify(r.conflicts.map((c) => [c.entity, c.label, c.field, c.live, c.base, c.after])).slice(0, 1500)}`] : []),
          ...formatDifferences(undeclared).map((l) => `not put back: ${l}`),
        ];
        if (!problems.length) agreed++;
        if (problems.length) failed.push([`[${dialect}] seed ${SEED}, round ${round}, module ${moduleId}:`, ...problems.map((p) => `  ${p}`), `  declared: ${JSON.stringify(r.notRestored).slice(0, 1500)}`, `  ${w.reproducer('the damage', from).replace(/\n/g, '\n  ')}`].join('\n'));
      }
      console.log(`rollback-property ${h.target.label} seed ${SEED}: ${agreed} of ${ROUNDS} rounds agreed`);
      if (failed.length) console.log(failed.join('\n\n'));
      expect(failed.map((f) => f.split('\n')[0]), 'rounds that failed (details printed above)').toEqual([]);
    } finally {
      await h.close();
      await live?.cleanup();
    }
  });
});
