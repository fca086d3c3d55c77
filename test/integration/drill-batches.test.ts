// A drill reads the restored workspace back a batch of modules at a time — only the batch's modules,
// each compared as it is read — and its scratch emulator forgets each batch once read, so the
// scratch holds a few modules however large the workspace; the verdict is the same as reading
// everything at the end. Both dialects; the `small` seed's
// modules stand alone (one batch each), the demo seed's name each other (they stay together).

import { afterEach, describe, expect, it } from 'vitest';
import { runDrill, type DrillReport } from '../../src/drill/drill.js';
import type { Dialect } from '../../src/emulator/types.js';
import { makeHarness, silentLogger, tempDir, type Harness } from '../helpers/harness.js';

const HTTP = { concurrency: 8, timeoutMs: 10_000, retries: 1 };
const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

function summary(r: DrillReport): string[] {
  return r.workspaces.flatMap((w) => [...(w.error ? [`${w.name}: ${w.error}`] : []), ...w.differing.map((d) => `${w.name}: ${d.entity} ${d.label}: ${d.reason}`)]);
}

describe.each(['spec', 'observed'] as Dialect[])('wbsync drill in batches (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const seed of ['small', 'demo'] as const) {
    it(`${seed} seed: each batch read back then forgotten; every entity compared and equal`, { timeout: 120_000 }, async () => {
      h = await makeHarness(dialect, { seed });
      await h.sync();
      const tmp = tempDir('wbsync-drill-batches-');
      // records (with sub-records) the scratch held when each batch was forgotten, and which modules
      const held: number[] = [];
      const forgotten: string[][] = [];
      let scratchLog: { total(): number } | undefined;
      try {
        const r = await runDrill({
          db: h.dbPath,
          dialect,
          attribution: ATTRIBUTION,
          http: HTTP,
          logger: silentLogger,
          tmpRoot: tmp.dir,
          batchRecords: 1,
          onScratch: (s) => {
            const emu = s.emulator!;
            scratchLog = emu.requestLog;
            const forget = emu.forgetModuleContent.bind(emu);
            emu.forgetModuleContent = (ids) => {
              held.push(emu.dump().records.length);
              forgotten.push([...ids]);
              forget(ids);
              // what was forgotten is gone from the scratch: its records, values and notes
              const left = emu.dump();
              expect(left.records.filter((x) => ids.includes(x['module'] as string))).toEqual([]);
              expect(left.values.filter((x) => ids.includes(x['module'] as string))).toEqual([]);
              expect(left.amendments.filter((x) => ids.includes(x['module'] as string))).toEqual([]);
            };
          },
        });
        const batchedRequests = scratchLog!.total();
        expect(summary(r)).toEqual([]);
        expect(r.ok).toBe(true);
        const w = r.workspaces[0]!;
        for (const e of ['module', 'collection', 'column', 'record', 'cell', 'member'] as const) {
          expect(w.entities[e].compared, e).toBeGreaterThan(0);
          expect(w.entities[e].differing, e).toBe(0);
        }
        // every restored module is forgotten once, after it was read
        const all = forgotten.flat();
        expect(new Set(all).size).toBe(all.length);
        expect(all.length).toBe(w.entities.module.compared);
        // only the batch just restored is read back: in batches of one module the scratch service
        // answers about as many requests as when the workspace is one batch (a pass per batch cost
        // a quarter more on the small seed)
        let wholeRequests = 0;
        const whole = await runDrill({ db: h.dbPath, dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger, tmpRoot: tmp.dir, onScratch: (s) => void (scratchLog = s.emulator!.requestLog) });
        wholeRequests = scratchLog!.total();
        expect(whole.ok).toBe(true);
        expect(batchedRequests).toBeLessThanOrEqual(Math.ceil(wholeRequests * 1.1));
        if (seed === 'small') {
          // three standalone modules: three batches, each forgotten once read, and the scratch
          // never held more than one
          expect(forgotten.length).toBe(3);
          const perModule = (w.entities.record.compared + w.entities.subrecord.compared) / 3;
          for (const n of held) expect(n).toBeLessThanOrEqual(Math.ceil(perModule * 1.5));
        }
      } finally {
        tmp.cleanup();
      }
    });
  }
});
