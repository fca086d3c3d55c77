// Threads whose work can wait run below the event loop's priority. On a small host the pass's
// threads, the service's client and whatever else runs share a few cores; an answer that arrives
// while a core is taken waits, and every millisecond it waits is the pass's wall time.
//   - The writer thread (store/write): the crawl hands it a batch only when the one before is
//     written (one batch waiting), so a slower writer holds the crawl back instead of growing
//     memory. Measured on two cores (docs/performance.md, eleventh round): the full pass at
//     concurrency 32 0.07–0.16× of its latency bound faster at 10 below, in three interleaved
//     pairs; 19 below gained less.
//   - The threads a wbsync process starts with besides its event loop's (lowerOtherThreads, from
//     heap-policy's applyRuntimePolicy): V8's background thread, which marks and sweeps the heap
//     concurrently and helps the scavenges, and libuv's pool (file and DNS work). Lowered, the event
//     loop's thread does a little more of the collecting itself, and answers do not wait for a core
//     the collector holds (twelfth round: lower in every interleaved pair).
import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far below the process's own priority (in nice steps) the writer thread runs. */
export const WRITER_NICE_STEPS = 10;

/** How far below the event loop's thread the threads a process starts with run (lowerOtherThreads). */
export const BACKGROUND_NICE_STEPS = 10;

/** The calling thread's id (Linux: /proc/thread-self names it), or null. */
function thisThreadId(): number | null {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  return Number.isInteger(tid) && tid > 0 ? tid : null;
}

/** Lowers thread `tid` by `steps` nice values, at most to 19; returns its nice value after. */
function lower(tid: number, steps: number): number {
  setPriority(tid, Math.min(19, getPriority(tid) + steps));
  return getPriority(tid);
}

/**
 * Lowers the calling thread's scheduling priority by `steps` nice values (at most to 19, the
 * lowest), leaving the process's other threads as they are. Linux only, where each thread has its
 * own nice value (`/proc/thread-self` names its id); elsewhere, or if the system refuses, nothing
 * changes. Returns the thread's nice value after the call, or null when it was left alone.
 */
export function lowerThisThread(steps: number): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const tid = thisThreadId();
    return tid === null ? null : lower(tid, steps);
  } catch {
    return null;
  }
}

/**
 * Lowers every other thread of the process by `steps` nice values (at most to 19), leaving the
 * calling thread as it is. Called by the event loop's thread when the process starts, before it
 * starts threads of its own: what is there then is V8's and libuv's. Linux only; elsewhere, or for a
 * thread the system refuses (or that ended meanwhile), nothing changes. Returns the ids lowered.
 */
export function lowerOtherThreads(steps: number): number[] {
  if (process.platform !== 'linux') return [];
  const lowered: number[] = [];
  try {
    const self = thisThreadId();
    if (self === null) return lowered;
    for (const name of readdirSync('/proc/self/task')) {
      const tid = Number(name);
      if (tid === self || !Number.isInteger(tid)) continue;
      try {
        lower(tid, steps);
        lowered.push(tid);
      } catch {
        // ended meanwhile, or refused: left as it is
      }
    }
  } catch {
    // no /proc: nothing changes
  }
  return lowered;
}
