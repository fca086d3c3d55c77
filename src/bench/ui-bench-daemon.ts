// The daemon's pass time with the web console open — someone reading pages all through its
// passes (a page every 500 ms, or back to back) — versus left alone: `wbsync daemon` in a child process on the large seed (synced first),
// an incremental pass every 4 s after 50 mixed writes, N passes each way.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHttpClient } from '../api/http-client.js';
import { createLogger } from '../config/logger.js';
import { openStore } from '../store/index.js';
import { runPass } from '../sync/pass.js';
import { applyMixedChanges } from './changes.js';
import { startEmulatorChild } from './emulator-child.js';
import { NODE_FLAGS } from '../config/heap-policy.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

interface PassLine {
  durationMs: number;
  requests: number;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, mean: Math.round(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)), median: s[Math.floor(s.length / 2)] ?? null, max: s[s.length - 1] ?? null };
};

/** `pauseMs` between two page reads (a person reading; 0: back to back, the worst case). */
export async function measureConsoleDuringPasses(opts: { dir: string; passes: number; pauseMs: number }): Promise<Record<string, unknown>> {
  const emu = await startEmulatorChild(['--seed', 'large', '--latency-ms', '5']);
  const db = join(opts.dir, 'ui-daemon.db');
  try {
    const client = createHttpClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, concurrency: 8 });
    const store = openStore(db);
    try {
      await runPass({ client, store, logger: createLogger({ level: 'silent' }) }, { full: true });
    } finally {
      store.close();
      await client.close();
    }
    const config = join(opts.dir, 'ui-daemon.json');
    writeFileSync(config, JSON.stringify({ db, schedule: { incremental: '*/4 * * * * *', full: '0 0 3 * * *' }, daemon: { listen: '127.0.0.1:0' }, log: { level: 'info' } }), { mode: 0o600 });
    const child = spawn(process.execPath, [...NODE_FLAGS, CLI, 'daemon', '--config', config], { env: { ...process.env, WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey }, stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const passes: PassLine[] = [];
    let log = '';
    let address = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      for (const line of d.split('\n')) {
        if (line.includes('"msg":"listening"')) address = (JSON.parse(line) as { address: string }).address;
        if (line.includes('"msg":"pass finished"')) passes.push(JSON.parse(line) as PassLine);
      }
    });
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        await applyMixedChanges(emu.baseUrl, emu.apiKey, 50, 5, { firstModule: i * 5 }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 1500));
      }
    })();
    const waitPasses = async (n: number): Promise<PassLine[]> => {
      const from = passes.length;
      const until = Date.now() + 300_000;
      while (passes.length < from + n) {
        if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}:\n${log.slice(-2000)}`);
        if (Date.now() > until) throw new Error(`daemon passes did not come:\n${log.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return passes.slice(from, from + n);
    };
    try {
      await waitPasses(1); // the catch-up pass at start
      // alternating rounds (closed, open, closed, ...) of three passes, the last two counted, so drift in the machine's
      // load (other work on it) falls on both sides alike
      const closed: PassLine[] = [];
      const open: PassLine[] = [];
      let pages = 0;
      const pageTimes: number[] = [];
      for (let round = 0; closed.length < opts.passes || open.length < opts.passes; round++) {
        if (round % 2 === 0) {
          closed.push(...(await waitPasses(3)).slice(1));
          continue;
        }
        let reading = true;
        const reader = (async () => {
          const paths = ['/ui/', '/ui/snapshots', '/ui/browse', '/ui/recover', '/ui/search?q=record'];
          for (let i = 0; reading; i++) {
            const t0 = performance.now();
            const res = await fetch(`http://${address}${paths[i % paths.length]}`).catch(() => null);
            await res?.text();
            pageTimes.push(performance.now() - t0);
            pages++;
            if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
          }
        })();
        // the first pass of a round may have begun before the switch: not counted, either side
        open.push(...(await waitPasses(3)).slice(1));
        reading = false;
        await reader;
      }
      const c = stats(closed.map((p) => p.durationMs));
      const o = stats(open.map((p) => p.durationMs));
      return {
        passesEachWay: closed.length,
        closedPassMs: c,
        openPassMs: o,
        slowdownOfMeanPct: Math.round(((o.mean - c.mean) / Math.max(1, c.mean)) * 1000) / 10,
        pagesReadDuringOpenPasses: pages,
        pageMsDuringPasses: stats(pageTimes.map((x) => Math.round(x))),
        pauseBetweenPagesMs: opts.pauseMs,
        note: 'daemon child on the large seed (5 ms latency), an incremental pass every 4 s after ~50 mixed writes; "open": the overview, snapshots, browse, recover and search pages read in turn all through the passes, pauseBetweenPagesMs apart',
      };
    } finally {
      writing = false;
      await writer;
      child.kill('SIGTERM');
      await exited;
    }
  } finally {
    await emu.stop();
  }
}
