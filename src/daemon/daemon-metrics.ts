// What /metrics shows besides the process: the wbsync_* families (names, types and labels as
// before prom-client, so dashboards keep working), fed as passes end and requests finish, and read
// from the daemon's live state (health, request counts, database figures) at each scrape.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestTiming } from '../api/stats.js';
import type { RequestStats } from '../api/port.js';
import type { DbFigures } from './db-figures.js';
import { OptionalGauge, processRegistry, renderMetrics, type MetricsContentType } from './metrics.js';

const PASS_BUCKETS_S = [1, 5, 15, 60, 300, 900, 3600];
const REQUEST_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const PASS_KINDS = ['full', 'incremental'];
const PASS_STATUSES = ['complete', 'failed', 'interrupted'];

export interface LiveFigures {
  nowMs: number;
  healthy: boolean;
  /** The last pass failed because the key was refused (not an outage). */
  authFailed: boolean;
  passRunning: boolean;
  lastSuccessMs: number | null;
  requests: RequestStats;
  db: DbFigures | null;
  /** freshness.maxStalenessMinutes in ms. */
  maxStalenessMs: number;
}

const ageS = (nowMs: number, atMs: number): number => Math.max(0, (nowMs - atMs) / 1000);

export class PassMetrics {
  readonly registry = new Registry();
  private live: () => LiveFigures | null = () => null;
  private finished = 0;
  private readonly passes: Counter<'kind' | 'status'>;
  private readonly lastDuration: Gauge<'kind'>;
  private readonly durations: Histogram<'kind'>;
  private readonly reverify: Counter;
  private readonly requestDurations: Histogram<'method' | 'route' | 'class'>;
  private readonly offsitePushes: Counter<'status'>;
  private readonly offsiteLast: Gauge;
  private readonly tripwireEvents: Counter<'kind' | 'module'>;
  private lastDrill: { ok: boolean; atMs: number; durationMs: number } | null = null;

  constructor() {
    processRegistry(); // the runtime metrics observe from now on (GC, event-loop delay), not from the first scrape
    const registers = [this.registry];
    const live = (): LiveFigures | null => this.live();
    this.passes = new Counter({ name: 'wbsync_passes_total', help: 'Sync passes finished, by kind and status (complete, failed, interrupted).', labelNames: ['kind', 'status'], registers });
    // every series from the start: increase() sees the first failure (a series born at 1 shows none)
    for (const kind of PASS_KINDS) for (const status of PASS_STATUSES) this.passes.inc({ kind, status }, 0);
    this.lastDuration = new Gauge({ name: 'wbsync_last_pass_duration_seconds', help: 'Duration of the last pass of each kind.', labelNames: ['kind'], registers });
    this.durations = new Histogram({ name: 'wbsync_pass_duration_seconds', help: 'Pass durations.', labelNames: ['kind'], buckets: PASS_BUCKETS_S, registers });
    this.reverify = new Counter({
      name: 'wbsync_reverify_requests_total',
      help: 'Requests incremental passes spent re-reading parts in full for the freshness window, since start.',
      registers,
    });
    this.offsitePushes = new Counter({ name: 'wbsync_offsite_pushes_total', help: 'Offsite copies pushed after full passes, by status (ok, failed).', labelNames: ['status'], registers });
    for (const status of ['ok', 'failed']) this.offsitePushes.inc({ status }, 0);
    this.offsiteLast = new Gauge({ name: 'wbsync_offsite_last_success_timestamp_seconds', help: 'When the last offsite copy was pushed (0: none since start).', registers });
    this.requestDurations = new Histogram({
      name: 'wbsync_http_request_duration_seconds',
      help: 'Requests sent to the service, by method, route template and status class (2xx, 3xx, 4xx, 5xx, network), each retry counted.',
      labelNames: ['method', 'route', 'class'],
      buckets: REQUEST_BUCKETS_S,
      registers,
    });
    new Gauge({
      name: 'wbsync_pass_running',
      help: '1 while a pass is running.',
      registers,
      collect() {
        this.set(live()?.passRunning ? 1 : 0);
      },
    });
    new Gauge({
      name: 'wbsync_healthy',
      help: '1 when /healthz answers 200.',
      registers,
      collect() {
        this.set(live()?.healthy ? 1 : 0);
      },
    });
    new Gauge({
      name: 'wbsync_auth_failed',
      help: '1 while the last pass failed because the service refused the key (/healthz: "authentication failed"); a restart with a new key clears it.',
      registers,
      collect() {
        this.set(live()?.authFailed ? 1 : 0);
      },
    });
    new Counter({
      name: 'wbsync_http_requests_total',
      help: 'Requests sent to the service since start, by status class (2xx, 3xx, 4xx, 5xx, network).',
      labelNames: ['class'],
      registers,
      collect() {
        const figures = live();
        this.reset();
        for (const [cls, n] of Object.entries(figures?.requests.byClass ?? {})) this.inc({ class: cls }, n);
      },
    });
    new Counter({
      name: 'wbsync_http_retries_total',
      help: 'Request retries since start.',
      registers,
      collect() {
        this.reset();
        this.inc(live()?.requests.retries ?? 0);
      },
    });
    new OptionalGauge({
      name: 'wbsync_last_success_timestamp_seconds',
      help: 'Unix time the last successful pass finished.',
      registers,
      value: () => {
        const at = live()?.lastSuccessMs ?? null;
        return at === null ? null : at / 1000;
      },
    });
    new Gauge({
      name: 'wbsync_freshness_max_staleness_seconds',
      help: 'freshness.maxStalenessMinutes in seconds: the age wbsync_oldest_unverified_seconds must stay under.',
      registers,
      collect() {
        const ms = live()?.maxStalenessMs;
        this.set(ms !== undefined && Number.isFinite(ms) ? ms / 1000 : 0);
      },
    });
    this.tripwireEvents = new Counter({
      name: 'wbsync_tripwire_events_total',
      help: "Tripwire events since start, by kind (mass-change, module-deleted, workspace-lost, recovered) and module ('' for a workspace).",
      labelNames: ['kind', 'module'],
      registers,
    });
    this.registerDbFamilies(registers, live);
    this.registerTripwireFamilies(registers, live);
    this.registerDrillFamilies(registers);
  }

  /** Absent until a drill ran since start: an alert on `wbsync_last_drill_ok == 0` must not fire
   * merely because none has run yet. */
  private registerDrillFamilies(registers: Registry[]): void {
    const last = (): { ok: boolean; atMs: number; durationMs: number } | null => this.lastDrill;
    new OptionalGauge({ name: 'wbsync_last_drill_ok', help: '1 when the last restore drill restored everything restorable equal, 0 when it failed (absent: none since start).', registers, value: () => (last() ? (last()!.ok ? 1 : 0) : null) });
    new OptionalGauge({ name: 'wbsync_last_drill_timestamp_seconds', help: 'Unix time the last restore drill finished.', registers, value: () => (last() ? last()!.atMs / 1000 : null) });
    new OptionalGauge({ name: 'wbsync_last_drill_duration_seconds', help: 'Duration of the last restore drill.', registers, value: () => (last() ? last()!.durationMs / 1000 : null) });
  }

  /** Read from the database after each pass: what pruning may not forget, and what is still open. */
  private registerTripwireFamilies(registers: Registry[], live: () => LiveFigures | null): void {
    new Gauge({
      name: 'wbsync_held_snapshots',
      help: 'Snapshots a tripwire holds from pruning now (until released or 30 days).',
      registers,
      collect() {
        this.set(live()?.db?.heldSnapshots ?? 0);
      },
    });
    new Gauge({
      name: 'wbsync_tripwire_open',
      help: 'One series per open tripwire incident (1), labelled with its kind, module and the undo command; gone once a restore or rollback recovered it.',
      labelNames: ['incident', 'kind', 'module', 'undo'],
      registers,
      collect() {
        this.reset();
        for (const t of live()?.db?.openTripwires ?? []) this.set({ incident: String(t.incident), kind: t.kind, module: t.moduleId ?? '', undo: t.undo ?? '' }, 1);
      },
    });
  }

  /** A tripwire event (the daemon's operations): an incident's kind, or 'recovered'. */
  recordTripwire(kind: string, moduleId: string): void {
    this.tripwireEvents.inc({ kind, module: moduleId });
  }

  /** A scheduled restore drill finished (ok: everything restorable came back equal). */
  recordDrill(ok: boolean, atMs: number, durationMs: number): void {
    this.lastDrill = { ok, atMs, durationMs };
  }

  private registerDbFamilies(registers: Registry[], live: () => LiveFigures | null): void {
    new Gauge({
      name: 'wbsync_entities',
      help: 'Rows per reporting view (the state as of the latest complete snapshot).',
      labelNames: ['view'],
      registers,
      collect() {
        this.reset();
        for (const [view, n] of Object.entries(live()?.db?.rows ?? {})) this.set({ view }, n);
      },
    });
    new OptionalGauge({
      name: 'wbsync_activity_lag_seconds',
      help: 'Seconds between now and the newest activity row stored (grows in a quiet workspace too).',
      registers,
      value: () => {
        const f = live();
        const at = f?.db?.newestActivityMs ?? null;
        return f && at !== null ? ageS(f.nowMs, at) : null;
      },
    });
    new OptionalGauge({
      name: 'wbsync_oldest_unverified_seconds',
      help: "Age of the part of the mirror read in full least recently (a module, or a workspace's own lists); past freshness.maxStalenessMinutes /healthz is unhealthy.",
      registers,
      value: () => {
        const f = live();
        const o = f?.db?.oldestVerified ?? null;
        return f && o ? ageS(f.nowMs, o.atMs) : null;
      },
    });
    new Gauge({
      name: 'wbsync_cursor_lag_seconds',
      help: "Seconds between now and each workspace's stored activity cursor.",
      labelNames: ['workspace'],
      registers,
      collect() {
        const f = live();
        this.reset();
        for (const [workspace, ms] of Object.entries(f?.db?.cursorsMs ?? {})) this.set({ workspace }, ageS(f!.nowMs, ms));
      },
    });
  }

  /** Where scrapes read the daemon's state from. */
  setLive(source: () => LiveFigures): void {
    this.live = source;
  }

  /** Requests a pass spent re-reading parts in full because the freshness window asked for it. */
  recordReverification(requests: number): void {
    this.reverify.inc(requests);
  }

  /** status: 'complete', 'failed' or 'interrupted'. */
  recordPass(kind: string, status: string, durationMs: number): void {
    this.finished += 1;
    this.passes.inc({ kind, status });
    this.lastDuration.set({ kind }, durationMs / 1000);
    this.durations.observe({ kind }, durationMs / 1000);
  }

  /** An offsite push after a full pass finished. */
  recordOffsite(ok: boolean, atMs: number): void {
    this.offsitePushes.inc({ status: ok ? 'ok' : 'failed' });
    if (ok) this.offsiteLast.set(atMs / 1000);
  }

  /** One exchange with the service (the client's onRequest). */
  observeRequest(r: RequestTiming): void {
    this.requestDurations.observe({ method: r.method, route: r.route, class: r.statusClass }, r.seconds);
  }

  /** Passes finished since start, whatever their outcome. */
  total(): number {
    return this.finished;
  }

  /** The exposition, with the process and Node metrics, in the format the Accept header asks for. */
  render(accept?: string): Promise<{ contentType: MetricsContentType; body: string }> {
    return renderMetrics([processRegistry(), this.registry], accept);
  }
}
