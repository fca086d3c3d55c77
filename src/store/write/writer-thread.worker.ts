// The writer thread, worker side: its own connection to the store's file (already migrated by the
// main connection), applying one batch at a time, straight through (no event loop to yield to here).
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { applyBatch, type ApplyContext } from './apply-batch.js';
import { addPart } from './batch-parts.js';
import { Cursors } from './cursors.js';
import { BUSY_TIMEOUT_MS, applyPragmas } from '../pragmas.js';
import { Snapshots } from './snapshots.js';
import { toStorageError } from '../storage-error.js';
import { VersionedWriter } from './versioned-writer.js';
import { WRITER_NICE_STEPS, lowerThisThread } from '../../config/thread-priority.js';
import type { WriteBatch } from '../port.js';
import { toErrorFields, type WriterInit, type WriterReply, type WriterRequest } from './writer-thread.js';

const init = workerData as WriterInit;
// the batches' work waits for the thread that reads the network (thread-priority.ts)
lowerThisThread(WRITER_NICE_STEPS);
const port = init.replies;
let now = new Date(0).toISOString();
let ctx: ApplyContext | null = null;
let pageCap = 0;
/** This thread's CPU time when it last answered a batch (from its start: receiving parts counts). */
let cpuAnswered = 0;
/** Batches whose parts have arrived and whose 'apply' has not. */
const staged = new Map<number, WriteBatch>();

/** This thread's CPU time so far in ms (utime + stime of /proc/thread-self/stat), or null off Linux. */
function threadCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks: USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

function context(): ApplyContext {
  if (ctx) return ctx;
  try {
    const db = new Database(init.path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    applyPragmas(db, false);
    const clock = (): string => now;
    ctx = { db, writer: new VersionedWriter(db), snapshots: new Snapshots(db, clock), cursors: new Cursors(db, clock) };
    return ctx;
  } catch (e) {
    throw toStorageError(e, `opening database ${init.path} for writing`);
  }
}

async function handle(m: WriterRequest): Promise<void> {
  if (m.type === 'part') {
    let into = staged.get(m.id);
    if (!into) staged.set(m.id, (into = {}));
    addPart(into, m);
    return;
  }
  if (m.type === 'close') {
    staged.clear();
    try {
      if (ctx?.db.open) ctx.db.close();
    } finally {
      const flag = new Int32Array(init.closed);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      port.close();
      parentPort!.close();
    }
    return;
  }
  let reply: WriterReply;
  try {
    const c = context();
    now = m.now;
    if (m.pageCap !== pageCap) {
      c.db.pragma(`max_page_count = ${Math.floor(m.pageCap)}`);
      pageCap = m.pageCap;
    }
    const parts = staged.get(m.id);
    staged.delete(m.id);
    const batch: WriteBatch = parts ? { ...parts, ...m.batch } : m.batch;
    const result = await applyBatch(c, m.snapshotId, batch, Infinity);
    const cpu = threadCpuMs();
    reply = { id: m.id, result: cpu === null ? result : { ...result, writerCpuMs: cpu - cpuAnswered } };
    if (cpu !== null) cpuAnswered = cpu;
  } catch (e) {
    reply = { id: m.id, error: toErrorFields(e) };
  }
  port.postMessage(reply);
}

// one batch at a time, in the order they were sent
let chain: Promise<void> = Promise.resolve();
parentPort!.on('message', (m: WriterRequest) => {
  chain = chain.then(() => handle(m));
});
