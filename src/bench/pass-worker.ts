// One measured sync pass in its own process, so peak RSS and event-loop delay belong to it alone.
// Input: a JSON argument; output: one JSON line on stdout.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createHttpClient } from '../api/http-client.js';
import { createLogger } from '../config/logger.js';
import { openStore } from '../store/index.js';
import { runPass } from '../sync/pass.js';
import { naiveCrawl } from './naive-crawl.js';

export interface WorkerInput {
  baseUrl: string;
  apiKey: string;
  db: string;
  concurrency: number;
  full: boolean;
  naive?: boolean;
  /** naive crawl: stop after this many modules */
  maxModules?: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as WorkerInput;
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const client = createHttpClient({ baseUrl: input.baseUrl, apiKey: input.apiKey, concurrency: input.concurrency, retries: 5 });
const started = performance.now();
let out: Record<string, unknown>;
if (input.naive) {
  const res = await naiveCrawl(client, input.maxModules ?? Infinity);
  out = { ...res };
} else {
  const store = openStore(input.db);
  const res = await runPass({ client, store, logger: createLogger({ level: 'silent' }) }, { full: input.full });
  store.close();
  out = { snapshot: res.snapshot, kind: res.kind, status: res.status, counts: res.counts, failures: res.failures.length };
}
const wallMs = performance.now() - started;
loop.disable();
const stats = client.stats();
await client.close();
process.stdout.write(
  `${JSON.stringify({
    ...out,
    requests: stats.requests - stats.retries,
    retries: stats.retries,
    wallMs: Math.round(wallMs),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    eventLoopP99Ms: Math.round((loop.percentile(99) / 1e6) * 10) / 10,
  })}\n`,
);
