// Beside a running daemon (issue #31 item 5): `wbsync sync`, `prune` and `rollback` are not
// refused and nobody is told to stop the daemon — each waits for the daemon's pass in flight, runs
// between its passes, and succeeds; its time holding the write lock never overlaps a daemon pass,
// and no two snapshots were ever being written at once.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { api, runCliCaptured, tempDir } from '../helpers/harness.js';
import { killAll, startDaemon, writeConfig, type DaemonChild, type LogLine } from './daemon-harness.js';

type Window = { from: number; to: number; what: string };

function jsonLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

const at = (l: LogLine): number => Date.parse(String(l.time));

/** The daemon's passes, from its log: 'pass started' to the next 'pass finished'. */
function passWindows(d: DaemonChild): Window[] {
  const out: Window[] = [];
  let open: LogLine | null = null;
  for (const l of d.lines) {
    if (l.msg === 'pass started') open = l;
    else if (open && (l.msg === 'pass finished' || l.msg === 'pass failed' || String(l.msg).startsWith('pass interrupted'))) {
      out.push({ from: at(open), to: at(l), what: `daemon ${String(open.kind)} pass` });
      open = null;
    }
  }
  return out;
}

/** The CLI's hold of the write lock, from its debug log lines. */
function lockWindow(stderr: string, what: string): Window {
  const lines = jsonLines(stderr);
  const taken = lines.find((l) => l.msg === 'database write lock taken');
  const released = lines.find((l) => l.msg === 'database write lock released');
  expect(taken && released, `${what} logs its hold of the write lock:\n${stderr}`).toBeTruthy();
  return { from: at(taken!), to: at(released!), what };
}

function overlaps(a: Window, b: Window): boolean {
  return a.from < b.to && b.from < a.to;
}

describe.each(['spec', 'observed'] as Dialect[])('writers beside a running daemon (%s dialect)', (dialect) => {
  let emu: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    emu = await startEmulator({ dialect, seed: 'demo' });
    tmp = tempDir();
  });
  afterEach(async () => {
    emu.faults.setLatency(0);
    await killAll();
  });
  afterAll(async () => {
    await emu.stop();
    tmp.cleanup();
  });

  it('sync, prune and rollback wait for the pass in flight, run between passes and succeed', { timeout: 120_000 }, async () => {
    const db = join(tmp.dir, dialect, 'wbsync.db');
    const d = startDaemon(writeConfig(tmp.dir, dialect, { db, incremental: '*/2 * * * * *' }), emu.baseUrl, emu.apiKey);
    await d.waitForLog((l) => l.msg === 'pass finished' && l.kind === 'full', 30_000, 'the first full pass');
    const env = { WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey, WBSYNC_DB: db, WBSYNC_LOG_LEVEL: 'debug' };
    const cli = (...argv: string[]) => runCliCaptured(argv, env);
    emu.faults.setLatency(60); // the daemon's passes take a while: the commands below meet one

    /** Runs `argv` as soon as a daemon pass has started, so that it must wait for that pass. */
    const duringAPass = async (argv: string[]) => {
      const seen = d.lines.length;
      await d.waitForLog((l) => l.msg === 'pass started' && d.lines.indexOf(l) >= seen, 15_000, 'a daemon pass');
      return cli(...argv);
    };

    const sync = await duringAPass(['sync']);
    expect(sync.code, sync.err).toBe(0);
    expect(sync.err).toContain("the database is being changed by the wbsync daemon's pass (pid");
    expect(sync.err).toContain('this sync waits its turn');
    expect(sync.out).toMatch(/^snapshot \d+ \(incremental\) complete/m);

    // a change on the service, recorded by a pass, then rolled back beside the daemon
    const mod = emu.dump().modules.find((m) => !m.isDeleted)!;
    const rec = emu.dump().records.find((r) => r.module === mod._id && !r.isDeleted && !r.isArchived && !r.parentRecord)!;
    expect((await api(emu, 'PUT', `/records/${rec._id}`, { name: 'Renamed beside the daemon' })).status).toBe(200);
    expect((await duringAPass(['sync'])).code).toBe(0);
    const rollback = await duringAPass(['rollback', '--module', String(mod._id), '--to-snapshot', '1', '--record', String(rec._id)]);
    expect(rollback.code, rollback.err + rollback.out).toBe(0);
    expect(rollback.err).toContain('this rollback waits its turn');
    expect(String(emu.dump().records.find((r) => r._id === rec._id)!.name)).toBe(String(rec.name));

    const prune = await duringAPass(['prune', '--keep-last', '3']);
    expect(prune.code, prune.err).toBe(0);
    expect(prune.err).toContain('this prune waits its turn');

    for (const r of [sync, rollback, prune]) expect(r.err + r.out).not.toMatch(/\bkill\b|stop the daemon|stop the other/);

    // let the pass in flight end, then compare the windows
    const seen = d.lines.length;
    await d.waitForLog((l) => l.msg === 'pass finished' && d.lines.indexOf(l) >= seen, 15_000, 'a later pass');
    const passes = passWindows(d);
    expect(passes.length).toBeGreaterThanOrEqual(4);
    for (const [w, name] of [[lockWindow(sync.err, 'sync'), 'sync'], [lockWindow(rollback.err, 'rollback'), 'rollback'], [lockWindow(prune.err, 'prune'), 'prune']] as const) {
      expect(passes.filter((p) => overlaps(p, w)), `${name} ran during a daemon pass`).toEqual([]);
    }
    // no two snapshots were written at the same time (the daemon's and the syncs')
    const x = new Database(db, { readonly: true });
    try {
      const snaps = x.prepare(`SELECT id, started_at, finished_at FROM snapshots WHERE finished_at IS NOT NULL ORDER BY id`).all() as Array<{ id: number; started_at: string; finished_at: string }>;
      for (let i = 1; i < snaps.length; i++) expect(Date.parse(snaps[i]!.started_at), `snapshot ${snaps[i]!.id} began before ${snaps[i - 1]!.id} ended`).toBeGreaterThanOrEqual(Date.parse(snaps[i - 1]!.finished_at));
    } finally {
      x.close();
    }
  });
});
