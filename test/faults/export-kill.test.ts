// kill -9 during `wbsync export --format csv` (issue #32 item 7): the killed export leaves its
// temporary folder with a partial file; the next export clears it — only folders named for an
// export of this host whose process is gone, never a live export's or anything else.

import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildBigModuleDb } from '../../src/bench/ui-bench-data.js';
import { requireBuild, spawnCli, stopChildren } from '../helpers/fault-kit.js';
import { runCliCaptured, tempDir } from '../helpers/harness.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  requireBuild();
  tmp = tempDir('wbsync-export-kill-');
});
afterAll(async () => {
  await stopChildren();
  tmp?.cleanup();
});

const temps = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith('.wbsync-export-')).sort();

it('clears the folder a killed csv export left, and nothing that is not a dead export of ours', { timeout: 120_000 }, async () => {
  const db = join(tmp.dir, 'wbsync.db');
  await buildBigModuleDb(db, 10_000, 3);
  const parent = join(tmp.dir, 'exports');
  mkdirSync(parent);

  const victim = spawnCli(['export', '--format', 'csv', '--out', join(parent, 'first'), '--db', db], {});
  // as soon as a file of the export has bytes in its temporary folder: kill -9
  let partial: string | null = null;
  const t0 = Date.now();
  while (partial === null && Date.now() - t0 < 30_000 && victim.proc.exitCode === null) {
    for (const d of temps(parent)) {
      for (const f of readdirSync(join(parent, d))) if (statSync(join(parent, d, f)).size > 0) partial = join(d, f);
    }
    if (partial === null) await new Promise((r) => setImmediate(r));
  }
  expect(partial, `the export finished before it could be killed: ${victim.out()}`).not.toBeNull();
  process.kill(victim.proc.pid!, 'SIGKILL');
  await new Promise((r) => victim.proc.once('exit', r));
  const left = temps(parent);
  expect(left).toHaveLength(1);
  expect(readdirSync(parent)).not.toContain('first');

  // what must stay: a live export's folder (this process), another host's, one not named by us
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '_').slice(0, 64);
  const live = `.wbsync-export-${host}.${process.pid}-abc123`;
  const otherHost = `.wbsync-export-elsewhere.${victim.proc.pid}-abc123`;
  const notOurs = '.wbsync-export-notes';
  for (const d of [live, otherHost, notOurs]) mkdirSync(join(parent, d));

  const again = await runCliCaptured(['export', '--format', 'csv', '--out', join(parent, 'second'), '--db', db], {});
  expect(again.code, again.err).toBe(0);
  expect(temps(parent)).toEqual([live, otherHost, notOurs].sort());
  expect(readdirSync(join(parent, 'second'))).toContain('records.csv');
});
