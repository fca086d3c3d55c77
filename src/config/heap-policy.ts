// How far V8 lets the heap grow past its live data before a full collection. By default it grows
// in large steps, so a pass that streams ~200k rows through memory ends with most of its peak RSS
// being garbage not yet collected (measured: 340–440 MB for the large benchmark seed, against
// about 230 MB at 15%). A backup daemon sits beside other services: it trades some CPU (about 10%
// of a pass) for a peak set by what it holds, the largest module. Set once, before any work.
// The flag only changes when V8 decides to collect; it cannot make an allocation fail.
import v8 from 'node:v8';
import { BACKGROUND_NICE_STEPS, lowerOtherThreads } from './thread-priority.js';

export const HEAP_GROWING_PERCENT = 15;

function keepHeapNearLiveData(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * What every wbsync process does first, on its event loop's thread, before any work: the heap
 * policy above, and the threads it started with (V8's background thread, libuv's pool) put
 * BACKGROUND_NICE_STEPS below it (config/thread-priority.ts).
 */
export function applyRuntimePolicy(): void {
  keepHeapNearLiveData();
  lowerOtherThreads(BACKGROUND_NICE_STEPS);
}

/**
 * Node's own options for every wbsync process: the `wbsync` executable's first two lines run node
 * with them (src/cli/main.ts; a test holds the two equal) and wbsync's own child processes (the
 * drill's, the bench's passes) are started with them.
 *
 * `--v8-pool-size=1`: one thread for V8's background work (concurrent marking, sweeping, parallel
 * scavenges, compiling) instead of Node's four. A pass already keeps two threads busy (the event
 * loop and the writer thread); on a small host, four more contend for the same cores, and an answer
 * that arrives while they hold them waits. Measured on two cores (docs/performance.md, eleventh
 * round): the full pass at concurrency 32 about 0.07× of its latency bound faster, peak RSS the same.
 * Running `node dist/cli/main.js` directly leaves it out: everything still works, with Node's default.
 */
export const NODE_FLAGS: readonly string[] = ['--v8-pool-size=1'];
