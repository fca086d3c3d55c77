// What /metrics shows: pass counters and durations recorded as passes end, request counts from
// the client, and database figures (rows per view, activity lag) read between passes.

import type { RequestStats } from '../api/port.js';
import { Histogram, type MetricFamily, type Sample } from './metrics.js';
import type { DbFigures } from './db-figures.js';

const DURATION_BUCKETS_S = [1, 5, 15, 60, 300, 900, 3600];

export interface LiveFigures {
  nowMs: number;
  healthy: boolean;
  passRunning: boolean;
  lastSuccessMs: number | null;
  requests: RequestStats;
  db: DbFigures | null;
}

export class PassMetrics {
  private readonly passes = new Map<string, { kind: string; status: string; n: number }>();
  private readonly lastDuration = new Map<string, number>();
  private readonly durations = new Histogram(DURATION_BUCKETS_S);
  private reverifyRequests = 0;

  /** Requests a pass spent re-reading parts in full because the freshness window asked for it. */
  recordReverification(requests: number): void {
    this.reverifyRequests += requests;
  }

  /** status: 'complete', 'failed' or 'interrupted'. */
  recordPass(kind: string, status: string, durationMs: number): void {
    const key = `${kind}/${status}`;
    const p = this.passes.get(key) ?? { kind, status, n: 0 };
    p.n += 1;
    this.passes.set(key, p);
    this.lastDuration.set(kind, durationMs / 1000);
    this.durations.observe({ kind }, durationMs / 1000);
  }

  /** Passes finished since start, whatever their outcome. */
  total(): number {
    let n = 0;
    for (const p of this.passes.values()) n += p.n;
    return n;
  }

  families(live: LiveFigures): MetricFamily[] {
    const families: MetricFamily[] = [
      {
        name: 'wbsync_passes_total',
        help: 'Sync passes finished, by kind and status (complete, failed, interrupted).',
        type: 'counter',
        samples: [...this.passes.values()].map((p) => ({ labels: { kind: p.kind, status: p.status }, value: p.n })),
      },
      {
        name: 'wbsync_last_pass_duration_seconds',
        help: 'Duration of the last pass of each kind.',
        type: 'gauge',
        samples: [...this.lastDuration].map(([kind, v]) => ({ labels: { kind }, value: v })),
      },
      { name: 'wbsync_pass_duration_seconds', help: 'Pass durations.', type: 'histogram', samples: this.durations.samples() },
      { name: 'wbsync_pass_running', help: '1 while a pass is running.', type: 'gauge', samples: [{ value: live.passRunning ? 1 : 0 }] },
      { name: 'wbsync_healthy', help: '1 when /healthz answers 200.', type: 'gauge', samples: [{ value: live.healthy ? 1 : 0 }] },
      {
        name: 'wbsync_http_requests_total',
        help: 'Requests sent to the service since start, by status class (2xx, 3xx, 4xx, 5xx, network).',
        type: 'counter',
        samples: Object.entries(live.requests.byClass).map(([cls, n]) => ({ labels: { class: cls }, value: n })),
      },
      { name: 'wbsync_http_retries_total', help: 'Request retries since start.', type: 'counter', samples: [{ value: live.requests.retries }] },
      {
        name: 'wbsync_reverify_requests_total',
        help: 'Requests incremental passes spent re-reading parts in full for the freshness window, since start.',
        type: 'counter',
        samples: [{ value: this.reverifyRequests }],
      },
    ];
    if (live.lastSuccessMs !== null) {
      families.push({
        name: 'wbsync_last_success_timestamp_seconds',
        help: 'Unix time the last successful pass finished.',
        type: 'gauge',
        samples: [{ value: live.lastSuccessMs / 1000 }],
      });
    }
    if (live.db) families.push(...dbFamilies(live.db, live.nowMs));
    return families;
  }
}

function dbFamilies(db: DbFigures, nowMs: number): MetricFamily[] {
  const families: MetricFamily[] = [
    {
      name: 'wbsync_entities',
      help: 'Rows per reporting view (the state as of the latest complete snapshot).',
      type: 'gauge',
      samples: Object.entries(db.rows).map(([view, n]) => ({ labels: { view }, value: n })),
    },
  ];
  if (db.newestActivityMs !== null) {
    families.push({
      name: 'wbsync_activity_lag_seconds',
      help: 'Seconds between now and the newest activity row stored (grows in a quiet workspace too).',
      type: 'gauge',
      samples: [{ value: Math.max(0, (nowMs - db.newestActivityMs) / 1000) }],
    });
  }
  if (db.oldestVerified) {
    families.push({
      name: 'wbsync_oldest_unverified_seconds',
      help: 'Age of the part of the mirror read in full least recently (a module, or a workspace\'s own lists); past freshness.maxStalenessMinutes /healthz is unhealthy.',
      type: 'gauge',
      samples: [{ value: Math.max(0, (nowMs - db.oldestVerified.atMs) / 1000) }],
    });
  }
  const cursorSamples: Sample[] = Object.entries(db.cursorsMs).map(([workspace, ms]) => ({ labels: { workspace }, value: Math.max(0, (nowMs - ms) / 1000) }));
  if (cursorSamples.length) {
    families.push({
      name: 'wbsync_cursor_lag_seconds',
      help: 'Seconds between now and each workspace\'s stored activity cursor.',
      type: 'gauge',
      samples: cursorSamples,
    });
  }
  return families;
}
