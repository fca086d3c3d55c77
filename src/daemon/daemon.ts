// `wbsync daemon` wired together: the locks, the store, the client, the health server and the
// scheduler; runs until the signal aborts, then stops in order within the shutdown deadline.
// Locks (store/lock.ts): the daemon lock for its whole life (one daemon per database), the write lock
// only for each pass with its upkeep — so `wbsync sync`, prune, rollback, restore and erase take
// their turn between passes instead of being refused, and a pass waits for them.

import { createHttpClient } from '../api/http-client.js';
import type { ServiceClient } from '../api/port.js';
import { parseListen } from '../config/listen.js';
import { requireService, type LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../config/logger.js';
import path from 'node:path';
import { openStore } from '../store/index.js';
import { ensureDir } from '../store/file-modes.js';
import { inspectDatabase, refuseUnusable } from '../store/open-inspect.js';
import { toStorageError } from '../store/storage-error.js';
import { WbsyncError } from '../domain/errors.js';
import type { Store } from '../store/port.js';
import { cronIntervalMs } from './cron-interval.js';
import { PassMetrics, type LiveFigures } from './daemon-metrics.js';
import { readDbFigures, type DbFigures } from './db-figures.js';
import { HealthState, REASON_AUTH } from './health-state.js';
import { mountConsole } from './console-mount.js';
import { startHealthServer, type HealthServer } from './health-server.js';
import type { WebConsole } from '../ui/console.js';
import { acquireLock, waitForLock, type DbLock } from '../store/lock.js';
import { Notifier } from '../alerts/notifier.js';
import { createPassHooks, type PassHooks } from './pass-hooks.js';
import { createPassRunner } from './pass-runner.js';
import { createRateLimitedLog, type RateLimitedLog } from './rate-limited-log.js';
import { createDrillSchedule, type DrillSchedule } from './drill-schedule.js';
import { createScheduler, nodeCronPort, type CronHandle, type CronPort, type PassRunner, type Scheduler } from './scheduler.js';

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

/** One run of the daemon: its settings, and what it opened (closed by closeDaemon, in order). */
interface DaemonRun {
  opts: DaemonOptions;
  config: Config;
  logger: Logger;
  signal: AbortSignal;
  now: () => number;
  limited: RateLimitedLog;
  intervalMs: number;
  maxStalenessMs: number;
  onDisk: boolean;
  /** The daemon lock, held for the daemon's whole life (none for an in-memory database). */
  lock: DbLock | null;
  /** The write lock of the pass in flight (released by closeDaemon if a pass outlives the deadline). */
  inFlight: DbLock | null;
  store?: Store;
  client?: ServiceClient;
  server?: HealthServer;
  ui: WebConsole | null;
  notifiers: Notifier[];
  passHooks: PassHooks[];
  drills: DrillSchedule[];
  drillCron?: CronHandle;
}

export async function runDaemon(opts: DaemonOptions): Promise<DaemonSummary> {
  const { loaded, logger, signal } = opts;
  const { config } = loaded;
  // Read once: a rotated key shows as 'authentication failed' until the daemon is restarted.
  const { baseUrl, apiKey } = requireService(loaded);
  const intervalMs = cronIntervalMs(config.schedule.incremental);
  const limited = createRateLimitedLog(logger);
  const onDisk = config.db !== ':memory:';
  if (onDisk) prepareFolder(config.db);
  const lock: DbLock | null = onDisk ? acquireLock(config.db, { kind: 'daemon', command: 'daemon', logger }) : null;
  const d: DaemonRun = {
    opts, config, logger, signal, limited, intervalMs, onDisk, lock,
    now: opts.now ?? Date.now,
    maxStalenessMs: config.freshness.maxStalenessMinutes * 60_000,
    inFlight: null,
    ui: null,
    notifiers: [],
    passHooks: [],
    drills: [],
  };
  try {
    const store = await openDaemonStore(d);
    const metrics = new PassMetrics();
    const client = openClient(d, baseUrl, apiKey, metrics);
    const health = new HealthState(STALE_AFTER_INTERVALS * d.intervalMs, d.maxStalenessMs);
    const { hooks, drill } = createHooks(d, store, metrics);
    const figures = watchDbFigures(d, store, health);
    const seeded = figures.cache.figures?.latestComplete?.finishedAtMs;
    if (seeded) health.seedLastSuccess(seeded);
    const scheduler = createScheduler({
      incremental: config.schedule.incremental,
      full: config.schedule.full,
      logger,
      cron: opts.cron,
      now: d.now,
      run: lockedPasses(signal, logger, (command) => takeWriteLock(d, command), (l) => (d.inFlight = l), createPassRunner({
        client, store, logger, limited, health, metrics, signal, hooks,
        include: config.workspaces.include,
        exclude: config.workspaces.exclude,
        maxStalenessMs: d.maxStalenessMs,
        afterPass: figures.refresh,
        now: d.now,
      })),
    });
    metrics.setLive(() => liveFigures(d, health, scheduler, client, figures.cache));
    await serve(d, health, metrics);
    if (!signal.aborted) startSchedules(d, scheduler, drill, store);
    await waitForAbort(signal);
    logger.info({ reason: String(signal.reason ?? 'signal') }, 'stopping');
    await stopSchedules(d, scheduler);
    const report = health.report(d.now());
    return { passes: metrics.total(), lastSuccess: report.body.lastSuccess };
  } finally {
    await closeDaemon(d);
  }
}

/** The write lock, waited for as long as it takes (until the daemon stops); none for an in-memory database. */
async function takeWriteLock(d: DaemonRun, command: string): Promise<DbLock | null> {
  const { config, logger } = d;
  return d.onDisk
    ? waitForLock(config.db, {
        command,
        signal: d.signal,
        waitMs: Number.POSITIVE_INFINITY,
        logger,
        onWait: (holder, waitedMs) => logger.info({ holder, waitedS: Math.round(waitedMs / 1000), for: command }, 'waiting for the database: another writer holds it'),
      })
    : null;
}

/** The store opened; migrations at start run under the write lock too (a `wbsync sync` may be mid-pass). */
async function openDaemonStore(d: DaemonRun): Promise<Store> {
  const openLock = await takeWriteLock(d, 'daemon start');
  try {
    d.store = openStore(d.config.db);
  } finally {
    openLock?.release();
  }
  return d.store;
}

function openClient(d: DaemonRun, baseUrl: string, apiKey: string, metrics: PassMetrics): ServiceClient {
  const http = d.config.http;
  d.client = createHttpClient({
    baseUrl,
    apiKey,
    concurrency: http.concurrency,
    timeoutMs: http.timeoutMs,
    retries: http.retries,
    // Not the logger: one warn line per retried request would flood the log during an outage.
    onRetry: (r) => d.limited.log('warn', { endpoint: r.endpoint, reason: r.reason, status: r.status }, 'request retry', `retry: ${r.reason}`),
    onRequest: (r) => metrics.observeRequest(r),
  });
  return d.client;
}

/** What follows a pass (alerts, offsite push, tripwire, prune, erasures: pass-hooks.ts) and the drill
 * it may start (drill-schedule.ts). */
function createHooks(d: DaemonRun, store: Store, metrics: PassMetrics): { hooks: PassHooks; drill: DrillSchedule } {
  const { config, logger, now } = d;
  const notifier = new Notifier({ webhooks: config.alerts.webhooks, healthchecksUrl: config.alerts.healthchecksUrl, database: store.path, timeoutMs: config.alerts.timeoutMs, logger });
  d.notifiers.push(notifier);
  const ops = createPassHooks({ store, config, logger, notifier, now: () => new Date(now()), onOffsite: (ok) => metrics.recordOffsite(ok, now()), onTripwire: (kind, moduleId) => metrics.recordTripwire(kind, moduleId) });
  d.passHooks.push(ops);
  const drill = createDrillSchedule({ store, config, logger, notifier, now, onDrill: (o) => metrics.recordDrill(o.ok, o.atMs, o.durationMs) });
  d.drills.push(drill);
  const hooks: PassHooks = {
    ...ops,
    passSucceeded(r) {
      ops.passSucceeded(r);
      drill.afterPass(r);
    },
  };
  return { hooks, drill };
}

/** The database's figures, read now and re-read after each pass only (see db-figures.ts); scrapes
 * use this copy, and health learns the oldest verification and the open tripwires from it. */
function watchDbFigures(d: DaemonRun, store: Store, health: HealthState): { cache: { figures: DbFigures | null }; refresh: () => void } {
  const cache: { figures: DbFigures | null } = { figures: null };
  const refresh = (): void => {
    try {
      const { include, exclude } = d.config.workspaces;
      cache.figures = readDbFigures(store, (id) => (include.length === 0 || include.includes(id)) && !exclude.includes(id));
      const o = cache.figures.oldestVerified;
      health.setOldestVerified(o && { label: `${o.kind} ${o.id} of workspace ${o.workspaceId}`, atMs: o.atMs });
      health.setOpenTripwires(cache.figures.openTripwires);
    } catch (e) {
      d.limited.log('warn', { err: String(e) }, 'could not read database figures for /metrics');
    }
  };
  refresh();
  return { cache, refresh };
}

/** The live part of /metrics, read at each scrape. */
function liveFigures(d: DaemonRun, health: HealthState, scheduler: Scheduler, client: ServiceClient, cache: { figures: DbFigures | null }): LiveFigures {
  const t = d.now();
  const report = health.report(t);
  return {
    nowMs: t,
    healthy: report.httpStatus === 200,
    authFailed: report.body.reason === REASON_AUTH,
    passRunning: scheduler.running() !== null,
    lastSuccessMs: report.body.lastSuccess === null ? null : Date.parse(report.body.lastSuccess),
    requests: client.stats(),
    db: cache.figures,
    maxStalenessMs: d.maxStalenessMs,
  };
}

/** /healthz, /metrics and the web console on daemon.listen. */
async function serve(d: DaemonRun, health: HealthState, metrics: PassMetrics): Promise<void> {
  const { config, logger, now } = d;
  const { host, port } = parseListen(config.daemon.listen);
  const mounted = mountConsole({ loaded: d.opts.loaded, logger, host, health: () => health.report(now()).body });
  d.ui = mounted.ui;
  d.server = await startHealthServer({
    host,
    port,
    tls: mounted.tls,
    health: () => health.report(now()),
    metrics: (accept) => metrics.render(accept),
    ui: d.ui ?? undefined,
  });
  logger.info({ address: d.server.address }, 'listening');
  logger.info(
    { db: d.store?.path, incremental: config.schedule.incremental, full: config.schedule.full, staleAfterS: Math.round((STALE_AFTER_INTERVALS * d.intervalMs) / 1000), pid: process.pid },
    'daemon started',
  );
}

/** The pass schedule and the drill's; a first pass at once. */
function startSchedules(d: DaemonRun, scheduler: Scheduler, drill: DrillSchedule, store: Store): void {
  scheduler.start();
  d.drillCron = (d.opts.cron ?? nodeCronPort(d.logger)).schedule(d.config.drill.schedule, 'wbsync-drill', () => drill.tick());
  // An empty database gets its full pass at once; otherwise catch up on what happened while
  // the daemon was down, which also establishes health without waiting for the first tick.
  if (store.latestCompleteSnapshot() === null) scheduler.trigger('full', 'first start: no complete snapshot');
  else scheduler.trigger('incremental', 'catch-up at start');
}

/** No more passes or drills start; the pass in flight gets until the shutdown deadline to stop. */
async function stopSchedules(d: DaemonRun, scheduler: Scheduler): Promise<void> {
  scheduler.stop();
  d.drillCron?.stop();
  const running = scheduler.running();
  if (running) {
    const stopped = await withDeadline(scheduler.idle(), d.opts.stopDeadlineMs ?? 8_000);
    if (!stopped) d.logger.warn({ kind: running.kind }, 'the pass did not stop in time; closing the database (its open transaction rolls back)');
  }
}

/** Everything the run opened, closed in order; the locks released last. */
async function closeDaemon(d: DaemonRun): Promise<void> {
  // an offsite push in flight finishes (bounded), then alerts of the last pass get out
  for (const o of d.passHooks) await withDeadline(o.idle(), 30_000);
  // a drill proves nothing half done: stopped (its child by pid), its temporary folder removed
  for (const dr of d.drills) await withDeadline(dr.idle(true), 10_000);
  for (const n of d.notifiers) await n.drain(3_000);
  await d.server?.close().catch(() => undefined);
  d.ui?.close();
  try {
    d.store?.close();
  } catch (e) {
    d.logger.warn({ err: String(e) }, 'closing the database failed');
  }
  if (d.client) await withDeadline(d.client.close(), 1_000).catch(() => false);
  d.inFlight?.release();
  d.lock?.release();
  d.limited.flush();
  d.logger.info({}, 'stopped');
}
