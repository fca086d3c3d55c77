// The freshness soak, shared by one test file per dialect (so the two run side by side): the daemon
// as a child process on a one-second schedule while random writes of every kind — bursts in one
// millisecond and the writes that leave no signal included — go on for a minute; then one more
// pass, compared with a full pass over the same history; then the freshness window, compared again.
// The daemon's memory is sampled throughout.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { runPass } from '../../src/sync/pass.js';
import { createHttpClient } from '../../src/api/http-client.js';
import type { ServiceClient } from '../../src/api/port.js';
import { makeClient, silentLogger, tempDir, view } from '../helpers/harness.js';
import { LIVE_SUBSTITUTES, LiveService } from '../helpers/live-service.js';
import { Writer, prng, viewDiff } from '../helpers/random-writes.js';
import { emulatorTarget, liveSettings, type ServiceTarget } from '../helpers/service-target.js';
import { killAll, startDaemon, writeConfig, type LogLine } from './daemon-harness.js';

export const SOAK_SECONDS = Number(process.env.WBSYNC_SOAK_SECONDS ?? 60);
const WINDOW_MINUTES = 0.25;

function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Records archived in `store` (and what hangs off them): history a full pass cannot place. */
function archivedIds(store: Store): Set<string> {
  return new Set(view(store, 'records', 'WHERE is_archived = 1').map((r) => r.id as string));
}

/**
 * Differences between the daemon's database and a full pass's, split into what is allowed:
 * `history` (archived rows, which no route lists: each side holds what it last saw of them; an
 * activity row's revertability, stored once, which later writes change), and `no-signal`
 * (amendments, automations, a sub-record's unlogged fields) — allowed only before the window.
 */
function classify(daemon: Store, full: Store): { history: string[]; noSignal: string[]; other: string[] } {
  const archived = new Set([...archivedIds(daemon), ...archivedIds(full)]);
  const cellsOfArchived = new Set([...view(daemon, 'cells'), ...view(full, 'cells')].filter((c) => archived.has(c.record_id)).map((c) => c.id as string));
  const notesOfArchived = new Set([...view(daemon, 'amendments'), ...view(full, 'amendments')].filter((a) => archived.has(a.record_id)).map((a) => a.id as string));
  const subs = new Set([...view(daemon, 'records', 'WHERE parent_record_id IS NOT NULL'), ...view(full, 'records', 'WHERE parent_record_id IS NOT NULL')].map((r) => r.id as string));
  const out = { history: [] as string[], noSignal: [] as string[], other: [] as string[] };
  for (const line of viewDiff(daemon, full)) {
    const m = /^(\w+) ([^ .:]+)(?:\.(\w+))?: (.*)$/.exec(line);
    const [v, key, field, what] = m ? [m[1], m[2], m[3], m[4]] : ['', '', undefined, line];
    // an archived row: each side holds what it last saw of it (no route lists it)
    if ((v === 'records' && archived.has(key)) || (v === 'cells' && cellsOfArchived.has(key)) || (v === 'amendments' && notesOfArchived.has(key))) out.history.push(line);
    else if (v === 'activity' && field === 'raw') out.history.push(line);
    // a sub-record's unlogged completion, position or archive flag, hidden from the next pass by a
    // logged write in the same module (an un-archived one the daemon never held shows up whole)
    else if (v === 'amendments' || v === 'automations' || (v === 'records' && subs.has(key) && (['is_completed', 'position', 'is_archived', 'updated_at', 'raw'].includes(field ?? '') || what.startsWith('only in the full')))) out.noSignal.push(line);
    else out.other.push(line);
  }
  return out;
}

export async function soak(on: Dialect | 'live', seed: number): Promise<void> {
  // live: the suite's own workspace on the running service (WBSYNC_LIVE_URL + key files)
  const live = on === 'live' ? new LiveService(liveSettings()!) : undefined;
  const emu = live ? undefined : await startEmulator({ dialect: on as Dialect, seed: 'demo', randomSeed: seed, clockMode: 'real', startTime: new Date() });
  const target: ServiceTarget = live ?? emulatorTarget(emu!);
  const scope = live ? [await live.seed(`wbsync soak ${seed} ${Date.now()}`, prng(seed))] : undefined;
  if (live) console.log(`soak: live run against ${live.baseUrl}, workspace ${scope![0]}; substitutes:\n- ${LIVE_SUBSTITUTES.join('\n- ')}\n- the daemon mirrors that workspace only (workspaces.include)`);
  const dialect = target.dialect;
  const { dir, cleanup } = tempDir('wbsync-soak-');
  const client: ServiceClient = emu ? makeClient(emu) : createHttpClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, concurrency: 8, retries: 5, backoffBaseMs: 10, backoffMaxMs: 200, timeoutMs: 30_000 });
  const dbPath = join(dir, 'daemon.db');
  const full = openStore(join(dir, 'full.db'));
  let daemonView: Store | undefined;
  try {
    await runPass({ client, store: full, logger: silentLogger }, { full: true, workspaceIds: scope });
    const daemon = startDaemon(writeConfig(dir, 'soak', { db: dbPath, maxStalenessMinutes: WINDOW_MINUTES, extra: scope ? { workspaces: { include: scope } } : undefined }), target.baseUrl, target.apiKey);
    const finished = (after: number) => (l: LogLine) => l.msg === 'pass finished' && l.status === 'complete' && Number(l.snapshot) > after;
    await daemon.waitForLog(finished(0), 30_000, 'the first pass');
    const rss: number[] = [];
    const sampler = setInterval(() => {
      const mb = rssMb(daemon.pid);
      if (mb !== null) rss.push(mb);
    }, 1000);
    const w = new Writer(target, prng(seed), dialect, 36, true);
    const until = Date.now() + SOAK_SECONDS * 1000;
    try {
      while (Date.now() < until) {
        await w.randomWrite();
        await new Promise((r) => setTimeout(r, 25));
      }
      await target.idle();
    } finally {
      clearInterval(sampler);
    }
    const passes = daemon.lines.filter((l) => l.msg === 'pass finished' && l.status === 'complete');
    const lastSnapshot = Number(passes[passes.length - 1]?.snapshot ?? 0);
    // one more pass that began after the last write, then a full pass over the same history
    const next = await daemon.waitForLog(finished(lastSnapshot + 1), 60_000, 'a pass after the writes');
    await runPass({ client, store: full, logger: silentLogger }, { full: true, workspaceIds: scope });
    daemonView = openStore(dbPath, { readonly: true });
    const first = classify(daemonView, full);
    const mid = Math.floor(rss.length / 2);
    const figures = {
      target: target.label,
      writes: w.applied.length,
      passes: passes.length,
      afterOnePass: { snapshot: next.snapshot, noSignal: first.noSignal.length, history: first.history.length, other: first.other.length },
      rssMb: { first: rss[0], last: rss[rss.length - 1], max: Math.max(...rss), samples: rss.length, series: rss.join(" ") },
    };
    console.log(`soak ${JSON.stringify(figures)}`);
    if (first.other.length || process.env.SOAK_DEBUG) {
      for (const line of first.other.filter((l) => l.includes('only in the'))) {
        const id = line.split(' ')[1].replace(':', '');
        console.log('soak difference', line, JSON.stringify(view(full, 'records', 'WHERE id = ?', [id])[0] ?? view(full, 'cells', 'WHERE id = ?', [id])[0] ?? null)?.slice(0, 400));
        console.log('  daemon history', JSON.stringify(daemonView.db.prepare('SELECT valid_from, valid_to, is_archived, collection_id, parent_record_id FROM record_versions WHERE id = ?').all(id)));
        console.log('  writes naming it', w.applied.filter((a) => a.includes(id)).join(' | '));
      }
    }
    // live, every write first reads the workspace back through the API (a second or so)
    expect(w.applied.length, 'writes made').toBeGreaterThan(live ? SOAK_SECONDS / 4 : SOAK_SECONDS * 5);
    expect(first.other, `after one more pass, beyond what only the window bounds — ${w.reproducer(seed).slice(-4000)}`).toEqual([]);

    // after the window, nothing but history differs
    await new Promise((r) => setTimeout(r, WINDOW_MINUTES * 60_000 + 2000));
    const at = daemon.lines.filter((l) => l.msg === 'pass finished').length;
    const after = Number(daemon.lines.filter((l) => l.msg === 'pass finished').pop()?.snapshot ?? 0);
    await daemon.waitForLog(finished(after), 30_000, 'a pass after the window');
    const second = classify(daemonView, full);
    console.log(`soak ${target.label} after the window: ${JSON.stringify({ passes: at, noSignal: second.noSignal.length, history: second.history.length, other: second.other.length })}`);
    expect([...second.noSignal, ...second.other], 'after the window').toEqual([]);

    // memory: the second half of the soak holds no more than the first, beyond noise
    const firstHalf = Math.max(...rss.slice(0, mid));
    const secondHalf = Math.max(...rss.slice(mid));
    expect(secondHalf, `RSS ${JSON.stringify(figures.rssMb)}`).toBeLessThanOrEqual(firstHalf * 1.25 + 16);
    daemon.proc.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  } finally {
    daemonView?.close();
    full.close();
    await killAll();
    await client.close();
    await emu?.stop();
    await live?.cleanup();
    cleanup();
  }
}
