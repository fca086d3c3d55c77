// `wbsync daemon` wired together: the locks, the store, the client, the health server and the
// scheduler; runs until the signal aborts, then stops in order within the shutdown deadline.
// Locks (store/lock.ts): the daemon lock for its whole life (one daemon per database), the write lock
// only for each pass with its upkeep — so `wbsync sync`, prune, rollback, restore and erase take
// their turn between passes instead of being refused, and a pass waits for them.

import { createHttpClient } from '../api/http-client.js';
import type { ServiceClient } from '../api/port.js';
import { parseListen } from '../config/listen.js';
import { requireService, type LoadedConfig } from '../config/load.js';
import type { Logger } from '../config/logger.js';
import path from 'node:path';
import { openStore } from '../store/index.js';
import { ensureDir } from '../store/file-modes.js';
import { inspectDatabase, refuseUnusable } from '../store/open-inspect.js';
import { toStorageError } from '../store/storage-error.js';
import { WbsyncError } from '../domain/errors.js';
import type { Store } from '../store/port.js';
import { cronIntervalMs } from './cron-interval.js';
import { PassMetrics } from './daemon-metrics.js';
import { readDbFigures, type DbFigures } from './db-figures.js';
import { HealthState, REASON_AUTH } from './health-state.js';
import { mountConsole } from './console-mount.js';
import { startHealthServer, type HealthServer } from './health-server.js';
import type { WebConsole } from '../ui/console.js';
import { acquireLock, waitForLock, type DbLock } from '../store/lock.js';
import { Notifier } from '../alerts/notifier.js';
import { createPassHooks, type PassHooks } from './pass-hooks.js';
import { createPassRunner } from './pass-runner.js';
import { createRateLimitedLog } from './rate-limited-log.js';
import { createDrillSchedule, type DrillSchedule } from './drill-schedule.js';
import { createScheduler, nodeCronPort, type CronHandle, type CronPort, type PassRunner } from './scheduler.js';

export interface DaemonOptions {
  loaded: LoadedConfig;
  logger: Logger;
  /** Aborts on SIGTERM/SIGINT. */
  signal: AbortSignal;
  /** How long a pass in flight may take to stop before the database is closed under it. */
  stopDeadlineMs?: number;
  cron?: CronPort;
  now?: () => number;
}

export interface DaemonSummary {
  passes: number;
  lastSuccess: string | null;
}

const STALE_AFTER_INTERVALS = 3;

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

async function withDeadline<T>(p: Promise<T>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The database's folder made (0700) when missing, after refusing what is not a usable database. */
function prepareFolder(db: string): void {
  const file = path.resolve(db);
  try {
    refuseUnusable(file, inspectDatabase(file), 'write');
  } catch (e) {
    throw toStorageError(e, `opening database ${file}`);
  }
  try {
    ensureDir(path.dirname(file));
  } catch (e) {
    throw new WbsyncError('storage', `cannot create the folder ${path.dirname(file)} for the database (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: 'check `db` in the configuration (or --db): its folder must be creatable and writable by the daemon\'s user',
      cause: e,
    });
  }
}

/** Each pass (with its upkeep: tripwire, prune, erasures) under the write lock, waiting its turn. */
function lockedPasses(signal: AbortSignal, logger: Logger, take: (command: string) => Promise<DbLock | null>, holding: (l: DbLock | null) => void, run: PassRunner): PassRunner {
  return async (kind, reason) => {
    let held: DbLock | null;
    try {
      held = await take('daemon pass');
    } catch (e) {
      if (!signal.aborted) logger.warn({ kind, err: e instanceof Error ? e.message : String(e) }, 'pass skipped: the database lock could not be taken');
      return;
    }
    holding(held);
    try {
      await run(kind, reason);
    } finally {
      held?.release();
      holding(null);
    }
  };
}

export async function runDaemon(opts: DaemonOptions): Promise<DaemonSummary> {
  const { loaded, logger, signal } = opts;
  const now = opts.now ?? Date.now;
  const { config } = loaded;
  // Read once: a rotated key shows as 'authentication failed' until the daemon is restarted.
  const { baseUrl, apiKey } = requireService(loaded);
  const intervalMs = cronIntervalMs(config.schedule.incremental);
  const limited = createRateLimitedLog(logger);

  const onDisk = config.db !== ':memory:';
  if (onDisk) prepareFolder(config.db);
  const lock: DbLock | null = onDisk ? acquireLock(config.db, { kind: 'daemon', command: 'daemon', logger }) : null;
  // the write lock of the pass in flight (released in the finally below if a pass outlives the deadline)
  const inFlight: { lock: DbLock | null } = { lock: null };
  const takeWriteLock = async (command: string): Promise<DbLock | null> =>
    onDisk
      ? waitForLock(config.db, {
          command,
          signal,
          waitMs: Number.POSITIVE_INFINITY,
          logger,
          onWait: (holder, waitedMs) => logger.info({ holder, waitedS: Math.round(waitedMs / 1000), for: command }, 'waiting for the database: another writer holds it'),
        })
      : null;
  let store: Store | undefined;
  let client: ServiceClient | undefined;
  let server: HealthServer | undefined;
  let ui: WebConsole | null = null;
  const notifiers: Notifier[] = [];
  const passHooks: PassHooks[] = [];
  const drills: DrillSchedule[] = [];
  let drillCron: CronHandle | undefined;
  try {
    // migrations at start run under the write lock too (a `wbsync sync` may be mid-pass)
    const openLock = await takeWriteLock('daemon start');
    try {
      store = openStore(config.db);
    } finally {
      openLock?.release();
    }
    const openedStore = store;
    const metrics = new PassMetrics();
    client = createHttpClient({
      baseUrl,
      apiKey,
      concurrency: config.http.concurrency,
      timeoutMs: config.http.timeoutMs,
      retries: config.http.retries,
      // Not the logger: one warn line per retried request would flood the log during an outage.
      onRetry: (r) => limited.log('warn', { endpoint: r.endpoint, reason: r.reason, status: r.status }, 'request retry', `retry: ${r.reason}`),
      onRequest: (r) => metrics.observeRequest(r),
    });
    const openedClient = client;
    const maxStalenessMs = config.freshness.maxStalenessMinutes * 60_000;
    const health = new HealthState(STALE_AFTER_INTERVALS * intervalMs, maxStalenessMs);
    const notifier = new Notifier({ webhooks: config.alerts.webhooks, healthchecksUrl: config.alerts.healthchecksUrl, database: openedStore.path, timeoutMs: config.alerts.timeoutMs, logger });
    notifiers.push(notifier);
    const ops = createPassHooks({ store: openedStore, config, logger, notifier, now: () => new Date(now()), onOffsite: (ok) => metrics.recordOffsite(ok, now()), onTripwire: (kind, moduleId) => metrics.recordTripwire(kind, moduleId) });
    passHooks.push(ops);
    const drill = createDrillSchedule({ store: openedStore, config, logger, notifier, now, onDrill: (o) => metrics.recordDrill(o.ok, o.atMs, o.durationMs) });
    drills.push(drill);
    const hooks: PassHooks = {
      ...ops,
      passSucceeded(r) {
        ops.passSucceeded(r);
        drill.afterPass(r);
      },
    };
    // Re-read after each pass only (see db-figures.ts); scrapes use this copy.
    const cache: { figures: DbFigures | null } = { figures: null };
    const refreshFigures = (): void => {
      try {
        const { include, exclude } = config.workspaces;
        cache.figures = readDbFigures(openedStore, (id) => (include.length === 0 || include.includes(id)) && !exclude.includes(id));
        const o = cache.figures.oldestVerified;
        health.setOldestVerified(o && { label: `${o.kind} ${o.id} of workspace ${o.workspaceId}`, atMs: o.atMs });
        health.setOpenTripwires(cache.figures.openTripwires);
      } catch (e) {
        limited.log('warn', { err: String(e) }, 'could not read database figures for /metrics');
      }
    };
    refreshFigures();
    const seeded = cache.figures?.latestComplete?.finishedAtMs;
    if (seeded) health.seedLastSuccess(seeded);

    const scheduler = createScheduler({
      incremental: config.schedule.incremental,
      full: config.schedule.full,
      logger,
      cron: opts.cron,
      now,
      run: lockedPasses(signal, logger, takeWriteLock, (l) => (inFlight.lock = l), createPassRunner({
        client,
        store,
        logger,
        limited,
        health,
        metrics,
        signal,
        include: config.workspaces.include,
        exclude: config.workspaces.exclude,
        maxStalenessMs,
        afterPass: refreshFigures,
        hooks,
        now,
      })),
    });

    metrics.setLive(() => {
      const t = now();
      const report = health.report(t);
      return {
        nowMs: t,
        healthy: report.httpStatus === 200,
        authFailed: report.body.reason === REASON_AUTH,
        passRunning: scheduler.running() !== null,
        lastSuccessMs: report.body.lastSuccess === null ? null : Date.parse(report.body.lastSuccess),
        requests: openedClient.stats(),
        db: cache.figures,
        maxStalenessMs,
      };
    });
    const { host, port } = parseListen(config.daemon.listen);
    const mounted = mountConsole({ loaded, logger, host, health: () => health.report(now()).body });
    ui = mounted.ui;
    server = await startHealthServer({
      host,
      port,
      tls: mounted.tls,
      health: () => health.report(now()),
      metrics: (accept) => metrics.render(accept),
      ui: ui ?? undefined,
    });
    logger.info({ address: server.address }, 'listening');
    logger.info(
      { db: openedStore.path, incremental: config.schedule.incremental, full: config.schedule.full, staleAfterS: Math.round((STALE_AFTER_INTERVALS * intervalMs) / 1000), pid: process.pid },
      'daemon started',
    );

    if (!signal.aborted) {
      scheduler.start();
      drillCron = (opts.cron ?? nodeCronPort(logger)).schedule(config.drill.schedule, 'wbsync-drill', () => drill.tick());
      // An empty database gets its full pass at once; otherwise catch up on what happened while
      // the daemon was down, which also establishes health without waiting for the first tick.
      if (openedStore.latestCompleteSnapshot() === null) scheduler.trigger('full', 'first start: no complete snapshot');
      else scheduler.trigger('incremental', 'catch-up at start');
    }

    await waitForAbort(signal);
    logger.info({ reason: String(signal.reason ?? 'signal') }, 'stopping');
    scheduler.stop();
    drillCron?.stop();
    const running = scheduler.running();
    if (running) {
      const stopped = await withDeadline(scheduler.idle(), opts.stopDeadlineMs ?? 8_000);
      if (!stopped) logger.warn({ kind: running.kind }, 'the pass did not stop in time; closing the database (its open transaction rolls back)');
    }
    const report = health.report(now());
    return { passes: metrics.total(), lastSuccess: report.body.lastSuccess };
  } finally {
    // an offsite push in flight finishes (bounded), then alerts of the last pass get out
    for (const o of passHooks) await withDeadline(o.idle(), 30_000);
    // a drill proves nothing half done: stopped (its child by pid), its temporary folder removed
    for (const d of drills) await withDeadline(d.idle(true), 10_000);
    for (const n of notifiers) await n.drain(3_000);
    await server?.close().catch(() => undefined);
    ui?.close();
    try {
      store?.close();
    } catch (e) {
      logger.warn({ err: String(e) }, 'closing the database failed');
    }
    if (client) await withDeadline(client.close(), 1_000).catch(() => false);
    inFlight.lock?.release();
    lock?.release();
    limited.flush();
    logger.info({}, 'stopped');
  }
}
