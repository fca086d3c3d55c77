import { describe, expect, it } from 'vitest';
import { PassMetrics, type LiveFigures } from './daemon-metrics.js';
import { OPENMETRICS_TEXT, PROMETHEUS_TEXT, negotiateFormat } from './metrics.js';

const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

function live(over: Partial<LiveFigures> = {}): LiveFigures {
  return {
    nowMs: 100_000,
    healthy: true,
    authFailed: false,
    passRunning: false,
    lastSuccessMs: 90_000,
    requests: { requests: 12, retries: 1, byClass: { '2xx': 10, '5xx': 2 } },
    db: { rows: { records: 7, activity: 3 }, newestActivityMs: 40_000, cursorsMs: { ws1: 40_000 }, latestComplete: null, oldestVerified: { workspaceId: 'ws1', kind: 'module', id: 'm1', atMs: 10_000 }, heldSnapshots: 0, openTripwires: [] },
    maxStalenessMs: 360 * 60_000,
    ...over,
  };
}

function fed(): PassMetrics {
  const m = new PassMetrics();
  m.recordPass('full', 'complete', 2000);
  m.recordPass('incremental', 'failed', 100);
  m.recordPass('incremental', 'complete', 300);
  m.recordPass('incremental', 'complete', 200);
  m.recordReverification(40);
  m.recordReverification(2);
  m.observeRequest({ method: 'GET', route: '/records/{collectionId}', statusClass: '2xx', seconds: 0.03 });
  m.observeRequest({ method: 'GET', route: '/records/{collectionId}', statusClass: '5xx', seconds: 2 });
  m.setLive(() => live());
  return m;
}

describe('tripwire families', () => {
  it('should count tripwire events by kind and module, show held snapshots and one series per open incident with its undo', async () => {
    const m = new PassMetrics();
    const open = { incident: 3, kind: 'mass-change', workspaceId: 'w1', moduleId: 'm1', summary: 'mass change', undo: 'wbsync rollback --incident 3', snapshot: 7, pass: 8, openedAt: '2026-11-24T09:00:00.000Z' };
    m.setLive(() => live({ db: { ...live().db!, heldSnapshots: 2, openTripwires: [open] } }));
    m.recordTripwire('mass-change', 'm1');
    m.recordTripwire('mass-change', 'm1');
    m.recordTripwire('module-deleted', 'm2');
    const { body } = await m.render();
    expect(body).toContain('wbsync_tripwire_events_total{kind="mass-change",module="m1"} 2');
    expect(body).toContain('wbsync_tripwire_events_total{kind="module-deleted",module="m2"} 1');
    expect(body).toContain('wbsync_held_snapshots 2');
    expect(body).toContain('wbsync_tripwire_open{incident="3",kind="mass-change",module="m1",undo="wbsync rollback --incident 3"} 1');
  });
});

describe('content negotiation', () => {
  it('should answer OpenMetrics to a scraper that prefers it, and the text format otherwise', () => {
    expect(negotiateFormat(PROMETHEUS_ACCEPT)).toBe(OPENMETRICS_TEXT);
    expect(negotiateFormat('application/openmetrics-text; version=1.0.0')).toBe(OPENMETRICS_TEXT);
    expect(negotiateFormat(undefined)).toBe(PROMETHEUS_TEXT);
    expect(negotiateFormat('*/*')).toBe(PROMETHEUS_TEXT);
    expect(negotiateFormat('text/plain;version=0.0.4,application/openmetrics-text;q=0.5')).toBe(PROMETHEUS_TEXT);
    expect(negotiateFormat('application/openmetrics-text;q=0')).toBe(PROMETHEUS_TEXT);
  });
});

describe('the wbsync families on prom-client', () => {
  it('should keep every family with its name, type and labels (text format)', async () => {
    const { contentType, body } = await fed().render();
    expect(contentType).toBe(PROMETHEUS_TEXT);
    for (const [name, type] of [
      ['wbsync_passes_total', 'counter'],
      ['wbsync_last_pass_duration_seconds', 'gauge'],
      ['wbsync_pass_duration_seconds', 'histogram'],
      ['wbsync_pass_running', 'gauge'],
      ['wbsync_healthy', 'gauge'],
      ['wbsync_http_requests_total', 'counter'],
      ['wbsync_http_retries_total', 'counter'],
      ['wbsync_reverify_requests_total', 'counter'],
      ['wbsync_last_success_timestamp_seconds', 'gauge'],
      ['wbsync_entities', 'gauge'],
      ['wbsync_activity_lag_seconds', 'gauge'],
      ['wbsync_oldest_unverified_seconds', 'gauge'],
      ['wbsync_cursor_lag_seconds', 'gauge'],
      ['wbsync_http_request_duration_seconds', 'histogram'],
      ['wbsync_auth_failed', 'gauge'],
      ['wbsync_freshness_max_staleness_seconds', 'gauge'],
    ]) {
      expect(body, name).toContain(`# TYPE ${name} ${type}\n`);
    }
    expect(body).toContain('wbsync_passes_total{kind="incremental",status="complete"} 2');
    expect(body).toContain('wbsync_passes_total{kind="incremental",status="failed"} 1');
    expect(body).toContain('wbsync_passes_total{kind="full",status="failed"} 0');
    expect(body).toContain('wbsync_last_pass_duration_seconds{kind="incremental"} 0.2');
    expect(body).toContain('wbsync_pass_duration_seconds_bucket{le="1",kind="incremental"} 3');
    expect(body).toContain('wbsync_pass_duration_seconds_count{kind="full"} 1');
    expect(body).toContain('wbsync_http_requests_total{class="5xx"} 2');
    expect(body).toContain('wbsync_http_retries_total 1');
    expect(body).toContain('wbsync_last_success_timestamp_seconds 90');
    expect(body).toContain('wbsync_entities{view="records"} 7');
    expect(body).toContain('wbsync_activity_lag_seconds 60');
    expect(body).toContain('wbsync_cursor_lag_seconds{workspace="ws1"} 60');
    expect(body).toContain('wbsync_healthy 1');
    expect(body).toContain('wbsync_auth_failed 0');
    expect(body).toContain('wbsync_oldest_unverified_seconds 90');
    expect(body).toContain('wbsync_freshness_max_staleness_seconds 21600');
    expect(body).toContain('wbsync_reverify_requests_total 42');
    expect(body).toContain('wbsync_http_request_duration_seconds_bucket{le="0.05",method="GET",route="/records/{collectionId}",class="2xx"} 1');
    expect(body).toContain('wbsync_http_request_duration_seconds_count{method="GET",route="/records/{collectionId}",class="5xx"} 1');
  });

  it('should add the process and Node runtime metrics', async () => {
    const { body } = await fed().render();
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds']) {
      expect(body, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('should speak OpenMetrics when asked, and the text format again after (counters keep _total)', async () => {
    const m = fed();
    const om = await m.render(PROMETHEUS_ACCEPT);
    expect(om.contentType).toBe(OPENMETRICS_TEXT);
    expect(om.body).toContain('# TYPE wbsync_passes counter\n');
    expect(om.body).toContain('wbsync_passes_total{kind="incremental",status="complete"} 2');
    expect(om.body.endsWith('# EOF\n')).toBe(true);
    const text = await m.render('text/plain');
    expect(text.body).toContain('# TYPE wbsync_passes_total counter\n');
    expect(text.body).toContain('# TYPE process_cpu_seconds_total counter\n');
    expect(text.body).not.toContain('# EOF');
  });

  it('should leave out what is not known yet rather than show 0', async () => {
    const m = new PassMetrics();
    m.setLive(() => live({ lastSuccessMs: null, db: null, authFailed: true, healthy: false }));
    const { body } = await m.render();
    for (const name of ['wbsync_last_success_timestamp_seconds', 'wbsync_activity_lag_seconds', 'wbsync_oldest_unverified_seconds']) {
      expect(body).toContain(`# TYPE ${name} gauge`);
      expect(body).not.toMatch(new RegExp(`^${name} `, 'm'));
    }
    expect(body).toContain('wbsync_auth_failed 1');
    expect(body).toContain('wbsync_healthy 0');
    expect(m.total()).toBe(0);
  });

  it('should count every pass', () => {
    expect(fed().total()).toBe(4);
  });
});
