import { describe, expect, it } from 'vitest';
import { tenantProblems, type TenantVerdictInput } from './status-verdict.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const ago = (s: number): string => new Date(NOW - s * 1000).toISOString();
const healthy: TenantVerdictInput = {
  name: 'acme',
  paused: false,
  home: { worker: 'w1', workerLive: true },
  lastPass: { kind: 'incremental', finishedAt: ago(30), ok: true, error: null },
  lastSuccess: ago(30),
  freshnessBoundSeconds: 360 * 60,
  addedAt: ago(86_400),
};

describe('tenantProblems', () => {
  it('finds nothing wrong with a homed tenant passing within its bound', () => {
    expect(tenantProblems(healthy, NOW)).toEqual([]);
  });

  it('names a failed last pass with its error on one line', () => {
    const p = tenantProblems({ ...healthy, lastPass: { kind: 'full', finishedAt: ago(5), ok: false, error: 'service unreachable:\n  503' } }, NOW);
    expect(p).toEqual(['last pass failed (full, 2026-11-26T11:59:55Z): service unreachable: 503']);
  });

  it('names a tenant no worker took, and one whose worker is gone (with the adopt command)', () => {
    expect(tenantProblems({ ...healthy, home: null }, NOW)).toEqual([expect.stringMatching(/^no home: no worker has taken it/)]);
    expect(tenantProblems({ ...healthy, name: 'beta', home: { worker: 'w-9', workerLive: false } }, NOW)).toEqual([
      expect.stringMatching(/^no live home: its worker w-9 is gone .*: wbsync fleet adopt beta --to WORKER$/),
    ]);
  });

  it('is stale past its bound: since its last success, or since it was added when it has none', () => {
    expect(tenantProblems({ ...healthy, lastSuccess: ago(361 * 60) }, NOW)).toEqual(['stale: last successful pass 6 h ago, beyond its freshness bound (freshness.maxStalenessMinutes: 6 h)']);
    expect(tenantProblems({ ...healthy, lastSuccess: ago(359 * 60) }, NOW)).toEqual([]);
    const fresh = { ...healthy, lastPass: null, lastSuccess: null };
    expect(tenantProblems({ ...fresh, addedAt: ago(60) }, NOW)).toEqual([]);
    expect(tenantProblems({ ...fresh, addedAt: ago(400 * 60) }, NOW)).toEqual([expect.stringMatching(/^stale: no successful pass in the 6.7 h since it was added/)]);
  });

  it('lists every problem at once, and none for a paused tenant', () => {
    const bad = { ...healthy, home: null, lastPass: { kind: 'incremental', finishedAt: ago(1), ok: false, error: 'x' }, lastSuccess: ago(400 * 60) };
    expect(tenantProblems(bad, NOW)).toHaveLength(3);
    expect(tenantProblems({ ...bad, paused: true }, NOW)).toEqual([]);
  });
});
