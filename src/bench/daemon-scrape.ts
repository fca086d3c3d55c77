// The daemon as Prometheus sees it, for `npm run bench`: `wbsync daemon` runs in a child process on
// an already synced database, with an incremental pass every few seconds; it is scraped the way
// Prometheus scrapes (OpenMetrics asked for) while its resident memory is sampled over a soak.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../config/heap-policy.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

export interface ScrapeOptions {
  baseUrl: string;
  apiKey: string;
  db: string;
  dir: string;
  soakSeconds: number;
  /** Pause between two scrapes (Prometheus's default interval is 15 s; faster here to gather more). */
  everyMs?: number;
}

function rssMb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

export async function measureDaemonScrapes(opts: ScrapeOptions): Promise<Record<string, unknown>> {
  const config = join(opts.dir, 'daemon.json');
  writeFileSync(
    config,
    JSON.stringify({ db: opts.db, schedule: { incremental: '*/5 * * * * *', full: '0 0 3 * * *' }, daemon: { listen: '127.0.0.1:0' }, log: { level: 'info' } }),
    { mode: 0o600 },
  );
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, 'daemon', '--config', config], {
    env: { ...process.env, WBSYNC_BASE_URL: opts.baseUrl, WBSYNC_API_KEY: opts.apiKey },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  try {
    const until = Date.now() + 120_000;
    while (!/"msg":"pass finished"/.test(log)) {
      if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}:\n${log.slice(-2000)}`);
      if (Date.now() > until) throw new Error(`daemon's first pass did not finish in time:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const listening = log.split('\n').find((l) => l.includes('"msg":"listening"'));
    const listen = listening ? (JSON.parse(listening) as { address?: string }).address : undefined;
    if (!listen) throw new Error(`no listening line:\n${log.slice(-2000)}`);
    const url = `http://${listen}/metrics`;

    const times: number[] = [];
    const idle: number[] = [];
    const duringPass: number[] = [];
    const rss: Array<{ atS: number; mb: number }> = [];
    let bytes = 0;
    let series = 0;
    const t0 = Date.now();
    const end = t0 + opts.soakSeconds * 1000;
    while (Date.now() < end || times.length < 20) {
      const start = performance.now();
      const res = await fetch(url, { headers: { accept: PROMETHEUS_ACCEPT } });
      const body = await res.text();
      const ms = performance.now() - start;
      times.push(ms);
      // a scrape answered while a pass holds the event loop waits for it: counted apart
      (/^wbsync_pass_running 1$/m.test(body) ? duringPass : idle).push(ms);
      bytes = body.length;
      series = body.split('\n').filter((l) => l && !l.startsWith('#')).length;
      if (rss.length === 0 || Date.now() - t0 >= rss.length * 5_000) rss.push({ atS: Math.round((Date.now() - t0) / 1000), mb: rssMb(child.pid!) });
      await new Promise((r) => setTimeout(r, opts.everyMs ?? 250));
    }
    const passes = (log.match(/"msg":"pass finished"/g) ?? []).length;
    const stats = (xs: number[]): Record<string, number> | null => {
      if (!xs.length) return null;
      const sorted = [...xs].sort((a, b) => a - b);
      return { n: xs.length, median: round2(quantile(sorted, 0.5)), p95: round2(quantile(sorted, 0.95)), max: round2(sorted[sorted.length - 1]!) };
    };
    const firstHalf = rss.slice(0, Math.ceil(rss.length / 2)).map((r) => r.mb);
    const secondHalf = rss.slice(Math.ceil(rss.length / 2)).map((r) => r.mb);
    return {
      scrapes: times.length,
      scrapeMs: { all: stats(times), idle: stats(idle), duringPass: stats(duringPass), firstAfterFullPass: round2(times[0]!) },
      exposition: { bytes, series, format: 'OpenMetrics (as Prometheus asks)' },
      rssMb: { atStart: rss[0]!.mb, atEnd: rss[rss.length - 1]!.mb, max: Math.max(...rss.map((r) => r.mb)), firstHalfMax: Math.max(...firstHalf), secondHalfMax: secondHalf.length ? Math.max(...secondHalf) : null },
      soakSeconds: opts.soakSeconds,
      incrementalPassesDuringSoak: passes - 1,
      rssSamples: rss,
      note: 'client-side wall time of GET /metrics against the daemon holding the large seed, an incremental pass every 5 s; RSS from /proc every 5 s',
    };
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}
