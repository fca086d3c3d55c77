// A drill in a process of its own (the daemon's scheduled drills, the benchmark): its memory, its
// event loop and its copy of the database never weigh on the daemon's passes. Input: one JSON
// argument (no secrets: the bundled emulator only); output: one JSON line on stdout.

import { applyRuntimePolicy } from '../config/heap-policy.js';
import { createLogger } from '../config/logger.js';
import { isWbsyncError } from '../domain/errors.js';
import { runDrill, type DrillOptions, type DrillReport } from './drill.js';

export type ChildInput = Pick<DrillOptions, 'db' | 'snapshotId' | 'workspaceIds' | 'dialect' | 'attribution' | 'http' | 'tmpRoot'> & { logLevel?: string };

export type ChildOutput = { ok: true; report: DrillReport; maxRssKb: number } | { ok: false; code: string; message: string; hint?: string; maxRssKb: number };

// memory follows what the drill holds, not garbage not yet collected; V8's and libuv's threads
// below the event loop's (as the CLI does)
applyRuntimePolicy();

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as ChildInput;
  const logger = createLogger({ level: input.logLevel ?? 'warn' });
  const controller = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => controller.abort(new Error(`drill stopped (${sig})`)));
  let out: ChildOutput;
  try {
    const report = await runDrill({ ...input, logger, signal: controller.signal });
    out = { ok: true, report, maxRssKb: process.resourceUsage().maxRSS };
  } catch (e) {
    const err = isWbsyncError(e) ? { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } : { code: 'internal', message: e instanceof Error ? e.message : String(e) };
    out = { ok: false, ...err, maxRssKb: process.resourceUsage().maxRSS };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

await main();
