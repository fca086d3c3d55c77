// How far V8 lets the heap grow past its live data before a full collection. By default it grows
// in large steps, so a pass that streams ~200k rows through memory ends with most of its peak RSS
// being garbage not yet collected (measured: 340–440 MB for the large benchmark seed, against
// about 230 MB at 15%). A backup daemon sits beside other services: it trades some CPU (about 10%
// of a pass) for a peak set by what it holds, the largest module. Set once, before any work.
// The flag only changes when V8 decides to collect; it cannot make an allocation fail.
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 15;

export function keepHeapNearLiveData(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
