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
//
// Second property (#38), the damage teams do: the module is first driven into realistic states by
// the same writer (relations and references, automations, threads, moved parents, archived rows), backed
// up, then damaged as boards are (DamageWriter: a column overwritten on every row, columns deleted —
// relation columns references go through, columns automations name —, collections deleted, rows renamed,
// moved and DELETEd with their sub-records, notes deleted), backed up, rolled back. The module must
// equal the one before the damage modulo the ids of what was recreated — its automations included —,
// its references must resolve as before, nothing may point at a dead id, and nothing may be declared
// but what the service makes impossible: a value it refuses when sent again (an automation or an
// observed POST stored it unchecked), a position no backup ever saw (archived before the first one).
// Each dialect prints how many rounds came back exactly.
// Longer runs: WBSYNC_ROLLBACK_ROUNDS=20 WBSYNC_ROLLBACK_SEED=$RANDOM npx vitest run <this file>
// Against a running service too: WBSYNC_LIVE_URL + WBSYNC_LIVE_KEY_FILE (docs/real-backend.md).

import { describe, expect, it } from 'vitest';
import { idMapOf, type NotRestored, POSITION_UNSEEN, rollback } from '../../src/restore/index.js';
import { readModuleLive } from '../../src/sync/live-module.js';
import { dumpOf, makeHarness, makeTargetHarness, silentLogger, type Harness } from '../helpers/harness.js';
import { LIVE_SUBSTITUTES, LiveService } from '../helpers/live-service.js';
import { liveSettings, suiteTargets } from '../helpers/service-target.js';
import { checkDeclared, compareModules, formatDifferences, idsOf, invertIdMap } from '../helpers/module-compare.js';
import { readModule, type Difference } from '../helpers/module-snapshot.js';
import { prng } from '../helpers/random-writes.js';
import { RestoreWriter } from '../helpers/restore-writes.js';
import { DamageWriter } from '../helpers/damage-writes.js';
import { deadIdsIn, readReferences } from '../helpers/rollback-checks.js';
import type { Dialect } from '../../src/emulator/types.js';

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

        const r = await rollback({ client: h.client, store: h.store, logger: silentLogger, readLive: readModuleLive }, { moduleId, toSnapshot: good.snapshot, attribution: '', settleMs: 1, pauseAutomations: true });
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

/** Resolved references that differ, one line per record and column (but `exceptColumns`). */
function referenceDifferences(before: Record<string, Record<string, unknown>>, after: Record<string, Record<string, unknown>>, reachable: ReadonlySet<string>, exceptColumns: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  // records no listing reaches (left in a deleted collection) are resolved too, but nobody sees them
  for (const rec of new Set([...Object.keys(before), ...Object.keys(after)].filter((id) => reachable.has(id)))) {
    for (const col of new Set([...Object.keys(before[rec] ?? {}), ...Object.keys(after[rec] ?? {})])) {
      if (exceptColumns.has(col)) continue;
      const b = JSON.stringify(before[rec]?.[col] ?? null);
      const a = JSON.stringify(after[rec]?.[col] ?? null);
      if (a !== b) out.push(`reference of record ${rec}, column ${col} resolves differently: ${b.slice(0, 200)} → ${a.slice(0, 200)}`);
    }
  }
  return out;
}

/** A relation column (another module's, or the module's own) naming a recreated column where
 * settings are create-only: re-pointing it in place is impossible, and making it anew would drop
 * the links its cells hold. It still names the dead id, and its references resolve through it. */
const createOnlyRelation = (n: NotRestored): boolean =>
  n.entity === 'column' && /^the service refused it: settings not taken \(the service keeps them create-only\), and a relation column (of another module )?is not made anew/.test(n.reason);

/** What the service makes impossible to put back, and so may be declared. */
const impossible = (n: NotRestored): boolean =>
  n.status !== undefined ||
  n.reason === POSITION_UNSEEN ||
  // a sub-record carrying a collection deleted before the snapshot (its parent moved away first):
  // a record made anew cannot be put into a deleted collection
  /\(not its parent's\) is gone: it is placed in its parent's collection$/.test(n.reason) ||
  createOnlyRelation(n);
const PREPARE_WRITES = 16;
const TEAM_DAMAGE_WRITES = 8;

describe.each(['spec', 'observed'] as Dialect[])('rollback property: the damage teams do, everything back (%s dialect)', (dialect) => {
  it(`seed ${SEED}`, { timeout: ROUNDS * 60_000 + 30_000 }, async () => {
    const h = await makeHarness(dialect, { randomSeed: SEED });
    try {
      const rnd = prng(SEED + 38);
      const w = new RestoreWriter(h.emu, rnd, dialect, new Set());
      const damage = new DamageWriter(h.emu, rnd, w.applied);
      const ws = dumpOf(h.emu).workspaces[0]!._id as string;
      const failed: string[] = [];
      let exact = 0;
      let unseen = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const from = w.applied.length;
        const moduleId = await w.chooseModule(ws, 0.3);
        // realistic states first; archived rows need a backup that saw them live
        await w.shape(moduleId, PREPARE_WRITES);
        await h.emu.idle();
        expect((await h.sync({ full: true })).failures).toEqual([]);
        await w.archive(moduleId, 3);
        await h.emu.idle();
        const good = await h.sync({ full: true });
        expect(good.failures).toEqual([]);
        const before = await readModule(h.emu, moduleId);
        const refsBefore = await readReferences(h.emu, moduleId);
        w.note('the damage');
        await damage.damage(moduleId, TEAM_DAMAGE_WRITES);
        await h.emu.idle();
        expect((await h.sync({ full: true })).failures).toEqual([]);

        const r = await rollback({ client: h.client, store: h.store, logger: silentLogger, readLive: readModuleLive }, { moduleId, toSnapshot: good.snapshot, attribution: '', settleMs: 1, pauseAutomations: true });
        await h.emu.idle();
        const after = await readModule(h.emu, moduleId);
        const map = invertIdMap(idMapOf(h.store.db, r.runId!));
        const diffs = compareModules(before, after, map);
        const recreated = r.writes.filter((x) => x.field === '(deleted)').map((x) => String(x.base ?? ''));
        const notOurs = (d: Difference): boolean => d.entity === 'module' || d.entity === 'grant' || (d.entity === 'amendment' && d.field === 'edited');
        // An archived record no backup ever held (one a restore made archived is never listed, so no
        // pass learns its id): nothing can bring it back — counted, reported, not the rollback's to fix.
        const held = new Set(h.store.stateAt(good.snapshot)!.records(moduleId).map((x) => x.id));
        const unheld = new Set(before.archived.map((x) => x.id).filter((id) => !held.has(id)));
        const neverBackedUp = (d: Difference): boolean => d.field === '(exists)' && d.covers.some((id) => unheld.has(id));
        const left = diffs.filter((d) => !createdSince(d) && !orderOfOldMembers(d) && !notOurs(d) && !reorderedByRecreation(d, recreated) && !neverBackedUp(d));
        const unseenHere = diffs.filter((d) => d.entity === 'record' && neverBackedUp(d)).length;
        unseen += unseenHere;
        const { undeclared } = checkDeclared(left, r.notRestored, before);
        const refsAfter = await readReferences(h.emu, moduleId, map);
        // a relation column declared beyond repair still names the dead id, and resolves through it
        const beyondRepair = new Set(r.notRestored.filter(createOnlyRelation).map((n) => n.id));
        const dead = await deadIdsIn(h.emu, moduleId, before, beyondRepair);
        const declared = r.notRestored.filter((n) => !impossible(n));
        const problems = [
          ...(r.conflicts.length ? [`conflicts with no later edit: ${JSON.stringify(r.conflicts.map((c) => [c.entity, c.label, c.field, c.live, c.base, c.after])).slice(0, 1500)}`] : []),
          ...formatDifferences(undeclared).map((l) => `not put back: ${l}`),
          ...declared.map((n) => `declared, though the service allows it: ${n.entity} ${n.label} (${n.id}): ${n.reason}`),
          ...referenceDifferences(refsBefore, refsAfter, idsOf(before), beyondRepair),
          ...dead.map((x) => `points at nothing: ${x}`),
        ];
        if (!problems.length && left.length === 0 && r.notRestored.length === 0 && unseenHere === 0) exact += 1;
        if (problems.length) failed.push([`[${dialect}] seed ${SEED}, round ${round}, module ${moduleId}:`, ...problems.map((p) => `  ${p}`), `  declared: ${JSON.stringify(r.notRestored).slice(0, 1500)}`, `  ${w.reproducer('the writes', from).replace(/\n/g, '\n  ')}`].join('\n'));
      }
      console.log(`rollback property (team damage) [${dialect}] seed ${SEED}: ${exact}/${ROUNDS} rounds came back exactly, ${ROUNDS - failed.length}/${ROUNDS} with nothing but what the service makes impossible declared; ${unseen} archived record(s) no backup ever held (not restorable)`);
      if (failed.length) console.log(failed.join('\n\n'));
      expect(failed.map((f) => f.split('\n')[0]), 'rounds that failed (details printed above)').toEqual([]);
    } finally {
      await h.close();
    }
  });
});
