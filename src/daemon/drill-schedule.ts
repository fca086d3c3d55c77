// Scheduled restore drills: at each drill.schedule tick a drill is due; it runs as soon as a full
// pass has completed since the last drill — at once when one has (the default schedule sits 90
// minutes after the nightly full pass), else right after the next full pass. It runs in a process
// of its own, in the background: a pass never waits for it. A failure raises drill_failed once per
// episode (kept in alert_state, so a restart does not repeat it), naming what did not restore.

import { sqliteEpisodes } from '../alerts/episodes.js';
import type { Notifier } from '../alerts/notifier.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import type { DrillReport } from '../drill/drill.js';
import { runDrillInChild } from '../drill/run-child.js';
import type { Store } from '../store/port.js';
import type { PassResult } from '../sync/pass.js';
import { commandLine } from '../domain/shell-command.js';

export interface DrillOutcome {
  ok: boolean;
  atMs: number;
  durationMs: number;
}

export interface DrillScheduleDeps {
  store: Store;
  config: Pick<Config, 'drill' | 'restore' | 'http'>;
  logger: Logger;
  notifier: Notifier;
  now: () => number;
  onDrill: (o: DrillOutcome) => void;
}

export interface DrillSchedule {
  /** drill.schedule fired. */
  tick(): void;
  /** A pass finished. */
  afterPass(r: PassResult): void;
  /** Resolves when no drill is running; `stop` ends one in flight first. */
  idle(stop?: boolean): Promise<void>;
}

const EPISODE = 'drill_failed';

/** "cell Board / First · Rating: the service refused it ..." lines, at most `max`. */
export function failedLines(r: DrillReport, max = 10): string[] {
  const all = r.workspaces.flatMap((w) => [...(w.error ? [`workspace ${w.name}: ${w.error}`] : []), ...w.differing.map((d) => `${d.entity} ${w.name} / ${d.module ? `${d.module} / ` : ''}${d.label.replace(/\s+/g, ' ').slice(0, 80)}: ${d.reason}`)]);
  return all.length > max ? [...all.slice(0, max), `… and ${all.length - max} more ('wbsync drill' lists them all)`] : all;
}

export function createDrillSchedule(deps: DrillScheduleDeps): DrillSchedule {
  const { store, config, logger, notifier } = deps;
  const episodes = sqliteEpisodes(store.db, () => new Date(deps.now()).toISOString());
  const latestFull = (): number | null => store.listSnapshots().filter((s) => s.kind === 'full' && s.status === 'complete').reduce<number | null>((m, s) => (m === null || s.id > m ? s.id : m), null);
  let due = false;
  let drilledAfter: number | null = null; // the full snapshot the last drill followed
  let running: Promise<void> | null = null;
  let controller: AbortController | null = null;

  const run = (afterFull: number): void => {
    // a drill is running: this one is due once it ends (dropped, a daily schedule would skip a day)
    if (running) {
      due = true;
      return;
    }
    due = false;
    drilledAfter = afterFull;
    controller = new AbortController();
    const started = deps.now();
    logger.info({ afterFullPass: afterFull, dialect: config.drill.dialect }, 'drill started');
    running = (async () => {
      try {
        const out = await runDrillInChild(
          { db: store.path, dialect: config.drill.dialect, attribution: config.restore.attribution, http: config.http },
          { signal: controller!.signal },
        );
        if (controller!.signal.aborted) return;
        const at = deps.now();
        if (out.ok) {
          const r = out.report;
          deps.onDrill({ ok: r.ok, atMs: at, durationMs: r.durationMs });
          const counts = r.workspaces.map((w) => ({ workspace: w.name, differing: w.differing.length, notRestorable: w.notRestorable.length }));
          if (r.ok) {
            logger.info({ snapshot: r.snapshot, durationMs: r.durationMs, workspaces: counts }, 'drill passed');
            episodes.save(EPISODE, null);
          } else {
            const what = failedLines(r);
            logger.warn({ snapshot: r.snapshot, durationMs: r.durationMs, workspaces: counts, what }, 'drill failed');
            announce(`restore drill of snapshot ${r.snapshot} failed: ${what.length} thing(s) did not restore`, { snapshot: r.snapshot, what, hint: `run ${commandLine(['wbsync', 'drill', '--snapshot', r.snapshot])} for the table; what the service refused is named` });
          }
        } else {
          deps.onDrill({ ok: false, atMs: at, durationMs: at - started });
          logger.warn({ code: out.code, err: out.message }, 'drill could not run');
          announce(`restore drill could not run: ${out.message}`, { what: [out.message], ...(out.hint ? { hint: out.hint } : {}) });
        }
      } catch (e) {
        const at = deps.now();
        deps.onDrill({ ok: false, atMs: at, durationMs: at - started });
        const message = e instanceof Error ? e.message : String(e);
        logger.warn({ err: message }, 'drill could not run');
        announce(`restore drill could not run: ${message}`, { what: [message] });
      } finally {
        const stopped = controller?.signal.aborted === true;
        running = null;
        controller = null;
        // due meanwhile: at once if a full pass completed since the drill's, else after the next
        if (due && !stopped) {
          const full = latestFull();
          if (full !== null && full !== drilledAfter) run(full);
        }
      }
    })();
  };

  const announce = (summary: string, details: Record<string, unknown>): void => {
    const at = new Date(deps.now()).toISOString();
    const prev = episodes.load(EPISODE);
    episodes.save(EPISODE, { since: prev?.since ?? at, count: (prev?.count ?? 0) + 1, announced: true, last: summary.slice(0, 500) });
    if (prev?.announced) return; // once per episode: the next passing drill closes it
    logger.warn({ event: EPISODE, summary }, 'alert');
    notifier.notify({ event: EPISODE, summary: summary.slice(0, 500), details: { ...details, since: prev?.since ?? at } });
  };

  return {
    tick() {
      const full = latestFull();
      if (full !== null && full !== drilledAfter) run(full);
      else due = true;
    },
    afterPass(r) {
      if (due && r.kind === 'full' && r.status === 'complete') run(r.snapshot);
    },
    async idle(stop = false) {
      if (stop) controller?.abort();
      await running;
    },
  };
}
