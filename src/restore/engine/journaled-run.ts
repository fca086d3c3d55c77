// What every command that writes through the restore journal does around its plan: start the run
// (or resume the unfinished one with the same key), pause automations if asked, apply, switch the
// paused automations on again whatever the outcome (a kill -9 leaves them to the resumed run, which the
// journal tells), and close the run as complete or failed. Restore module, restore workspace and
// rollback share it; each brings its own plan and result.

import type { ServiceClient } from '../../api/port.js';
import type { Logger } from '../../config/logger.js';
import type { Store } from '../../store/port.js';
import { RunJournal, startRun, type NewRun, type RestoreRun } from '../../store/ledgers/index.js';
import { reactivateAutomations } from './pause.js';
import type { NotRestored, PlanSummary } from './plan-steps.js';

/** What every journaled command reports about its run, whatever it restored. */
export interface RunOutcome {
  dryRun: boolean;
  runId: number | null;
  /** An unfinished earlier run of the same command was continued. */
  resumed: boolean;
  /** What the plan could not restore, then the writes the service refused (those carry `status`
   * or say which refused object they needed). */
  notRestored: NotRestored[];
  /** Writes the service refused in this run (the CLI exits 5 when there are any). */
  refused: number;
  pausedAutomations: string[];
  plan?: PlanSummary;
  requests: number;
  durationMs: number;
}

export interface JournaledRun {
  journal: RunJournal;
  run: RestoreRun;
  resumed: boolean;
  /** Waits settleMs: the service's asynchronous automation runs of the run's own writes go by. */
  settle(): Promise<void>;
}

export interface JournaledOptions {
  /** The latest run with the same key (latestRun), if any: an unfinished one is resumed. */
  previous: RestoreRun | null;
  start: NewRun;
  settleMs?: number;
  /** When the command began and the client's request count then: the result's figures. */
  since: { at: number; requests: number };
}

/**
 * Runs `body` inside a journaled run. `body` applies the plan and returns its result; once the
 * automations are on again the result gets its requests and duration, and `complete` gives the summary
 * kept with the run.
 */
export async function journaledRun<T extends { requests: number; durationMs: number }>(
  deps: { client: ServiceClient; store: Store; logger?: Logger },
  opts: JournaledOptions,
  body: (r: JournaledRun) => Promise<T>,
  complete: (result: T) => Record<string, unknown>,
): Promise<T> {
  const { client, store } = deps;
  const resumed = opts.previous !== null && opts.previous.status !== 'complete';
  const run = resumed ? opts.previous! : startRun(store.db, opts.start, new Date().toISOString());
  const journal = new RunJournal(store.db, run);
  if (resumed) journal.reopen();
  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, opts.settleMs ?? 250));
  try {
    const result = await body({ journal, run, resumed, settle });
    if (journal.pausedAutomations().some((p) => p.state === 'paused')) await settle();
    await reactivateAutomations(client, journal);
    result.requests = client.stats().requests - opts.since.requests;
    result.durationMs = Date.now() - opts.since.at;
    journal.finish('complete', complete(result));
    return result;
  } catch (e) {
    await reactivateAutomations(client, journal).catch((inner: unknown) => deps.logger?.warn({ err: String(inner) }, 'could not re-activate paused automations: the next run of this command will'));
    journal.finish('failed', { error: e instanceof Error ? e.message : String(e) });
    throw e;
  }
}
