// Crash safety of the re-pointing `restore module` does in the workspace's other modules (#31 item 7),
// both dialects: the restore of a deleted Sales Pipeline is killed at each of its writes from the
// first one that touches another module to the last (before the write reaches the service, or after
// it did and before the journal heard back). Running the same restore again must end as an
// uninterrupted run does: every automation re-pointed at the copy with its on/off state as it was, each
// reference column once (re-pointed in place, or made anew with the old one gone — never twice), the
// relation column re-pointed where the service lets its settings change — and the resumed run reports
// all of it, what the killed invocation did included.

import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { idMapOf, restoreModule, type RestoreModuleResult } from '../../src/restore/index.js';
import { dyingClient } from '../helpers/dying-client.js';
import { dumpOf, silentLogger } from '../helpers/harness.js';
import { nameSalesFromOthers, type Others } from '../helpers/repoint-others.js';
import { ATTRIBUTION, board, call, syncAfterDamage, type Board } from '../helpers/rollback-kit.js';

interface Old {
  qualified: string;
  proposal: string;
  stage: string;
  dealValue: string;
}

/** The demo seed with the other modules naming Sales Pipeline, the module deleted and synced. */
async function damaged(dialect: Dialect): Promise<{ b: Board; o: Others; old: Old }> {
  let o: Others | undefined;
  const b = await board(dialect, 'Sales Pipeline', async (x) => {
    o = await nameSalesFromOthers(x);
  });
  const old = { qualified: b.coll('Qualified'), proposal: b.coll('Proposal'), stage: b.col('Stage'), dealValue: b.col('Deal value') };
  await call(b.h, 'DELETE', `/modules/${b.mod}`);
  await syncAfterDamage(b.h, { full: true });
  return { b, o: o!, old };
}

const restore = (b: Board, client = b.h.client) => restoreModule({ client, store: b.h.store, logger: silentLogger }, { moduleId: b.mod, attribution: ATTRIBUTION, settleMs: 1, pauseAutomations: true });

/** What the other modules hold after the restore: the same whether or not it was killed midway. */
function othersNow(b: Board, o: Others, runId: number, old: Old) {
  const d = dumpOf(b.h.emu);
  const map = idMapOf(b.h.store.db, runId);
  const cols = (name: string) => d.columns.filter((c) => c.module === o.roadmap && c.name === name && !c.isDeleted);
  const auto = (id: string) => d.automations.find((a) => a._id === id)!;
  return {
    salesModules: d.modules.filter((m) => m.name === 'Sales Pipeline' && !m.isDeleted).length,
    customer: cols('Customer').map((c) => c.settings.displayField === map.get(old.dealValue)),
    customerValue: cols('Customer value').map((c) => c.settings.field === map.get(old.dealValue)),
    customerStage: cols('Customer stage').map((c) => c.settings.field === map.get(old.stage)),
    roadmapAuto: [auto(o.roadmapAuto).isActive, auto(o.roadmapAuto).actions[0].targetCollection === map.get(old.qualified)],
    wsOn: [auto(o.wsOn).isActive, auto(o.wsOn).conditions[0].value === map.get(old.proposal)],
    wsOff: [auto(o.wsOff).isActive, auto(o.wsOff).conditions[0].value === map.get(old.proposal)],
    allActive: d.automations.filter((a) => a.scope === 'workspace' && !a.isDeleted).map((a) => `${a.name}:${a.isActive}`).sort(),
  };
}

/** What a result says it re-pointed, free of ids (each run has its own emulator). */
const reported = (r: RestoreModuleResult): string[] =>
  [...r.repointed.columns.map((c) => `column ${c.owner?.name} › ${c.name}: ${c.how}`), ...r.repointed.automations.map((a) => `automation ${a.owner?.name} › ${a.name}`)].sort();

describe.each(['spec', 'observed'] as Dialect[])('restore module re-pointing other modules, killed and resumed (%s dialect)', (dialect) => {
  it('ends as an uninterrupted run does, whatever write it was killed at', async () => {
    // the uninterrupted run: its writes, and which is the first that touches another module
    const ref = await damaged(dialect);
    const writes: string[] = [];
    const roadmapColumns = new Set(dumpOf(ref.b.h.emu).columns.filter((c) => c.module === ref.o.roadmap).map((c) => c._id as string));
    let firstForeign = -1;
    const counting = dyingClient(ref.b.h.client, Infinity, 'before', (m) => void writes.push(m));
    const spy = new Proxy(counting, {
      get(t, prop, r) {
        const v = Reflect.get(t, prop, r) as unknown;
        if (prop === 'updateColumn') return async (id: string, ...rest: unknown[]) => {
          if (firstForeign < 0 && roadmapColumns.has(id)) firstForeign = writes.length + 1;
          return (v as (...a: unknown[]) => unknown).apply(t, [id, ...rest]);
        };
        return v;
      },
    });
    const whole = await restore(ref.b, spy);
    await ref.b.h.emu.idle();
    const expected = othersNow(ref.b, ref.o, whole.runId!, ref.old);
    await ref.b.h.close();
    expect(firstForeign).toBeGreaterThan(0);
    expect(expected.customerValue).toEqual([true]);
    expect(expected.customerStage).toEqual([true]);
    expect(expected.customer).toEqual([dialect === 'observed']);
    expect(expected.roadmapAuto).toEqual([true, true]);
    expect(expected.wsOn).toEqual([true, true]);
    expect(expected.wsOff).toEqual([false, true]);

    // killed at every other write from the first foreign one to the end, alternately before and after
    const points: number[] = [];
    for (let n = firstForeign; n <= writes.length; n += 2) points.push(n);
    // three column PUTs and three automation PUTs at least (spec: the copies made and the old deleted too)
    expect(points.length).toBeGreaterThanOrEqual(4);
    for (const [i, n] of points.entries()) {
      const when = i % 2 === 0 ? 'after' : 'before';
      const run = await damaged(dialect);
      try {
        await expect(restore(run.b, dyingClient(run.b.h.client, n, when))).rejects.toThrow(/killed/);
        await run.b.h.emu.idle();
        const resumed = await restore(run.b);
        await run.b.h.emu.idle();
        expect(resumed.resumed, `N=${n} ${when}`).toBe(true);
        expect(othersNow(run.b, run.o, resumed.runId!, run.old), `N=${n} ${when} (${writes[n - 1]})`).toEqual(expected);
        // and the resumed run reports what the whole run re-pointed, the killed part included
        expect(reported(resumed), `N=${n} ${when}`).toEqual(reported(whole));
      } finally {
        await run.b.h.close();
      }
    }
  });
});
