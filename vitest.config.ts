import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/sequencer.js';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // longest files first (test/sequencer.ts), so the tail of the run is short
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        // integration and fault tests: each file in a fresh process (they start daemons, change
        // process.env and the working directory, register metrics, kill children...)
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts', 'test/faults/**/*.test.ts'], isolate: true },
      },
      {
        // unit tests and the emulator's contract tests: pure code and in-process emulators, no
        // global state between files; one process runs many files (a fresh one per file costs ~0.5 s)
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts', 'test/contract/**/*.test.ts'], isolate: false },
      },
    ],
  },
});
