import { describe, expect, it } from 'vitest';
import { PassMetrics } from './daemon-metrics.js';
import { Histogram, formatValue, renderMetrics } from './metrics.js';

describe('prometheus text', () => {
  it('should write HELP, TYPE and samples with escaped labels', () => {
    const text = renderMetrics([
      { name: 'x_total', help: 'a \\ help\nline', type: 'counter', samples: [{ labels: { a: 'q"uo\\te\n' }, value: 3 }] },
      { name: 'y', help: 'g', type: 'gauge', samples: [{ value: 1.5 }] },
    ]);
    expect(text).toBe(['# HELP x_total a \\\\ help\\nline', '# TYPE x_total counter', 'x_total{a="q\\"uo\\\\te\\n"} 3', '# HELP y g', '# TYPE y gauge', 'y 1.5', ''].join('\n'));
  });

  it('should format special values', () => {
    expect(formatValue(Infinity)).toBe('+Inf');
    expect(formatValue(NaN)).toBe('NaN');
  });

  it('should write cumulative histogram buckets, sum and count', () => {
    const h = new Histogram([1, 10]);
    h.observe({ kind: 'full' }, 0.5);
    h.observe({ kind: 'full' }, 5);
    h.observe({ kind: 'full' }, 50);
    const text = renderMetrics([{ name: 'd_seconds', help: 'h', type: 'histogram', samples: h.samples() }]);
    expect(text).toContain('d_seconds_bucket{kind="full",le="1"} 1');
    expect(text).toContain('d_seconds_bucket{kind="full",le="10"} 2');
    expect(text).toContain('d_seconds_bucket{kind="full",le="+Inf"} 3');
    expect(text).toContain('d_seconds_sum{kind="full"} 55.5');
    expect(text).toContain('d_seconds_count{kind="full"} 3');
  });

  it('should expose every daemon family in valid exposition lines', () => {
    const m = new PassMetrics();
    m.recordPass('full', 'complete', 2000);
    m.recordPass('incremental', 'failed', 100);
    m.recordPass('incremental', 'complete', 300);
    m.recordPass('incremental', 'complete', 200);
    m.recordReverification(40);
    m.recordReverification(2);
    const text = renderMetrics(
      m.families({
        nowMs: 100_000,
        healthy: true,
        passRunning: false,
        lastSuccessMs: 90_000,
        requests: { requests: 12, retries: 1, byClass: { '2xx': 10, '5xx': 2 } },
        db: { rows: { records: 7, activity: 3 }, newestActivityMs: 40_000, cursorsMs: { ws1: 40_000 }, latestComplete: null, oldestVerified: { workspaceId: 'ws1', kind: 'module', id: 'm1', atMs: 10_000 } },
      }),
    );
    expect(text).toContain('wbsync_passes_total{kind="incremental",status="complete"} 2');
    expect(text).toContain('wbsync_passes_total{kind="incremental",status="failed"} 1');
    expect(text).toContain('wbsync_last_pass_duration_seconds{kind="incremental"} 0.2');
    expect(text).toContain('wbsync_http_requests_total{class="5xx"} 2');
    expect(text).toContain('wbsync_last_success_timestamp_seconds 90');
    expect(text).toContain('wbsync_entities{view="records"} 7');
    expect(text).toContain('wbsync_activity_lag_seconds 60');
    expect(text).toContain('wbsync_cursor_lag_seconds{workspace="ws1"} 60');
    expect(text).toContain('wbsync_healthy 1');
    expect(text).toContain('wbsync_oldest_unverified_seconds 90');
    expect(text).toContain('wbsync_reverify_requests_total 42');
    expect(m.total()).toBe(4);
    // every non-comment line is `name{labels} value`
    for (const line of text.trim().split('\n')) {
      if (line.startsWith('#')) expect(line).toMatch(/^# (HELP|TYPE) wbsync_[a-z_]+ .+$/);
      else expect(line).toMatch(/^wbsync_[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [-+0-9.eInfNa]+$/);
    }
  });
});
