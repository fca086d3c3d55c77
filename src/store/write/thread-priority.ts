// The writer thread runs below the event loop's priority. On a small host the pass's threads, the
// service's client and whatever else runs share a few cores; an answer that arrives while a core
// is taken waits, and every millisecond it waits is the pass's wall time, while the writer's work
// can wait: the crawl hands it a batch only when the one before is written (one batch waiting), so
// a slower writer holds the crawl back instead of growing memory. Measured on two cores
// (docs/performance.md, eleventh round): the full pass at concurrency 32 0.07–0.16× of its
// latency bound faster at 10 below, in three interleaved pairs; 19 below gained less.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far below the process's own priority (in nice steps) the writer thread runs. */
export const WRITER_NICE_STEPS = 10;

/**
 * Lowers the calling thread's scheduling priority by `steps` nice values (at most to 19, the
 * lowest), leaving the process's other threads as they are. Linux only, where each thread has its
 * own nice value (`/proc/thread-self` names its id); elsewhere, or if the system refuses, nothing
 * changes. Returns the thread's nice value after the call, or null when it was left alone.
 */
export function lowerThisThread(steps: number): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return null;
    const target = Math.min(19, getPriority(tid) + steps);
    setPriority(tid, target);
    return getPriority(tid);
  } catch {
    return null;
  }
}
