import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/sequencer.js';

/**
 * Integration files that may share a worker process with others (isolate: false): an in-process
 * emulator and stores, children stopped by pid, no change to process.env, the working directory, the
 * global fetch dispatcher or a metrics registry, no mocks. Each was run in one process with the others
 * (with --no-isolate) and passed. The fleet files are not here: run that way, fleet-console's in-process
 * `fleet tenant remove` exited 70 after the other fleet files had run in the same process, so none of
 * them shares. Add a file only after the same check.
 */
const SHARED_INTEGRATION = [
  'test/faults/hostile-ids.test.ts',
  'test/faults/hostile-responses.test.ts',
  'test/faults/hostile-strings.test.ts',
  'test/integration/admin-messages.test.ts',
  'test/integration/cli-docs.test.ts',
  'test/integration/cli-hidden-characters.test.ts',
  'test/integration/daemon-console.test.ts',
  'test/integration/daemon-deadline.test.ts',
  'test/integration/daemon-health.test.ts',
  'test/integration/deploy-files.test.ts',
  'test/integration/diff-live.test.ts',
  'test/integration/dockerfile.test.ts',
  'test/integration/duckdb-recipe.test.ts',
  'test/integration/erase-cli.test.ts',
  'test/integration/erase-daemon.test.ts',
  'test/integration/erase.test.ts',
  'test/integration/freshness.test.ts',
  'test/integration/incremental-hidden-subrecord.test.ts',
  'test/integration/incremental-keeps-live.test.ts',
  'test/integration/incremental-property.test.ts',
  'test/integration/last-module-deleted.test.ts',
  'test/integration/recover-preview-census.test.ts',
  'test/integration/recover-preview-dry-run.test.ts',
  'test/integration/recover-preview-window.test.ts',
  'test/integration/recover-preview.test.ts',
  'test/integration/restore-fidelity.test.ts',
  'test/integration/restore-property.test.ts',
  'test/integration/restore-regressions.test.ts',
  'test/integration/restore-safety.test.ts',
  'test/integration/restore-workspace-cli.test.ts',
  'test/integration/restore-workspace.test.ts',
  'test/integration/rollback-complete.test.ts',
  'test/integration/rollback-journey-automation.test.ts',
  'test/integration/rollback-options.test.ts',
  'test/integration/rollback-property.test.ts',
  'test/integration/rollback-scenarios-rows.test.ts',
  'test/integration/rollback-scenarios.test.ts',
  'test/integration/stock-tools.test.ts',
  'test/integration/store-messages.test.ts',
  'test/integration/sync-full.test.ts',
  'test/integration/sync-module-skip.test.ts',
  'test/integration/tripwire-every-pass.test.ts',
  'test/integration/tripwire.test.ts',
  'test/integration/ui-bidi.test.ts',
  'test/integration/ui-browser-rebinding.test.ts',
  'test/integration/ui-browser.test.ts',
  'test/integration/ui-rebinding.test.ts',
  'test/integration/ui-search.test.ts',
  'test/integration/ui-tls.test.ts',
];

/** The other integration and fault files, listed rather than excluded (a project's own `exclude`
 * would drop the command line's --exclude, which `npm run test:fast` uses). */
const ISOLATED_INTEGRATION = ['test/integration', 'test/faults'].flatMap((d) =>
  readdirSync(new URL(`./${d}/`, import.meta.url))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${d}/${f}`)
    .filter((f) => !SHARED_INTEGRATION.includes(f)),
);

/** What every project shares. Not `extends: true`: a project that inherits `maxWorkers` keeps it over
 * the command line's --maxWorkers (only the root's is overridden). */
const COMMON = { testTimeout: 60_000, hookTimeout: 60_000, pool: 'forks' } as const;

export default defineConfig({
  test: {
    ...COMMON,
    maxWorkers: 2,
    // longest files first (test/sequencer.ts), so the tail of the run is short
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        // integration and fault tests: each file in a fresh process (they start daemons, change
        // process.env, register metrics, kill children...)
        test: { ...COMMON, name: 'integration', include: ISOLATED_INTEGRATION, isolate: true },
      },
      {
        // the integration files above that need no process of their own (a fresh one costs 1-3 s:
        // importing the emulator, the store, the sync engine again)
        test: { ...COMMON, name: 'integration-shared', include: SHARED_INTEGRATION, isolate: false },
      },
      {
        // unit tests and the emulator's contract tests: pure code and in-process emulators, no
        // global state between files; one process runs many files (a fresh one per file costs ~0.5 s)
        test: { ...COMMON, name: 'unit', include: ['src/**/*.test.ts', 'test/contract/**/*.test.ts'], isolate: false },
      },
    ],
  },
});
