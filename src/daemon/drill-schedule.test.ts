// The drill schedule's turns, with the drill process replaced by a promise the test settles: a
// tick or a full pass that comes while a drill runs is not dropped — the next drill follows the
// running one at once when a full pass has completed since, else after the next full pass.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../config/logger.js';
import type { Notifier } from '../alerts/notifier.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/port.js';
import type { PassResult } from '../sync/pass.js';
import type { DrillReport } from '../drill/drill.js';

const drills: Array<{ resolve: (v: unknown) => void }> = [];
vi.mock('../drill/run-child.js', () => ({
  runDrillInChild: () => new Promise((resolve) => drills.push({ resolve })),
}));

const { createDrillSchedule } = await import('./drill-schedule.js');

const report = (snapshot: number): DrillReport => ({ ok: true, snapshot, service: 'the bundled emulator', startedAt: '', durationMs: 1, workspaces: [], phases: { copyMs: 0, restoreMs: 0, readBackMs: 0, compareMs: 0 }, notRestorableFields: [] });
const passed = (snapshot: number): PassResult => ({ snapshot, kind: 'full', status: 'complete', counts: {}, gone: {}, requests: 0, retries: 0, durationMs: 0, workspaces: [], failures: [] });
const turn = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('drill schedule', () => {
  const real = openStore(':memory:');
  afterEach(() => void (drills.length = 0));

  function schedule(fulls: number[]): { tick(): void; afterPass(r: PassResult): void; idle(stop?: boolean): Promise<void>; runs: number[] } {
    const runs: number[] = [];
    const store = { db: real.db, path: ':memory:', listSnapshots: () => fulls.map((id) => ({ id, kind: 'full', status: 'complete' })) } as unknown as Store;
    const s = createDrillSchedule({
      store,
      config: { drill: { schedule: '* * * * *', dialect: 'observed' }, restore: { attribution: 'x' }, http: { concurrency: 1, timeoutMs: 1000, retries: 0 } } as never,
      logger: createLogger({ level: 'silent' }),
      notifier: { notify: () => undefined } as unknown as Notifier,
      now: () => Date.now(),
      onDrill: (o) => void runs.push(o.atMs),
    });
    return { ...s, runs };
  }

  it('a tick while a drill runs is kept: the next drill starts as the running one ends, on the newer full pass', async () => {
    const fulls = [1];
    const s = schedule(fulls);
    s.tick();
    expect(drills).toHaveLength(1);
    fulls.push(2);
    s.afterPass(passed(2));
    s.tick(); // while the first drill runs
    expect(drills).toHaveLength(1);
    drills[0]!.resolve({ ok: true, report: report(1), maxRssKb: 1, wallMs: 1 });
    await turn();
    expect(drills).toHaveLength(2);
    drills[1]!.resolve({ ok: true, report: report(2), maxRssKb: 1, wallMs: 1 });
    await s.idle();
    await turn();
    // nothing due any more: no third drill until the schedule says so
    expect(drills).toHaveLength(2);
    expect(s.runs).toHaveLength(2);
  });

  it('a tick while a drill runs with no newer full pass: the next drill follows the next full pass', async () => {
    const fulls = [1];
    const s = schedule(fulls);
    s.tick();
    s.tick();
    drills[0]!.resolve({ ok: true, report: report(1), maxRssKb: 1, wallMs: 1 });
    await turn();
    expect(drills).toHaveLength(1);
    fulls.push(2);
    s.afterPass(passed(2));
    expect(drills).toHaveLength(2);
    drills[1]!.resolve({ ok: true, report: report(2), maxRssKb: 1, wallMs: 1 });
    await s.idle();
  });

  it('a drill stopped (the daemon stopping) starts no other', async () => {
    const fulls = [1];
    const s = schedule(fulls);
    s.tick();
    fulls.push(2);
    s.tick();
    const idle = s.idle(true);
    drills[0]!.resolve({ ok: false, code: 'partial', message: 'stopped', maxRssKb: 1, wallMs: 1 });
    await idle;
    await turn();
    expect(drills).toHaveLength(1);
  });
});
