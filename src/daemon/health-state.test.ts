import { describe, expect, it } from 'vitest';
import { HealthState, REASON_AUTH, REASON_OUTAGE, type PassSummary } from './health-state.js';

const MIN = 60_000;
const pass = (over: Partial<PassSummary> = {}): PassSummary => ({
  snapshot: 1,
  kind: 'incremental',
  status: 'complete',
  counts: { record: 2 },
  requests: 10,
  durationMs: 50,
  finishedAt: new Date(0).toISOString(),
  failures: 0,
  ...over,
});

describe('health state', () => {
  it('should be 503 "starting" before any pass', () => {
    const h = new HealthState(15 * MIN);
    const r = h.report(0);
    expect(r.httpStatus).toBe(503);
    expect(r.body).toMatchObject({ status: 'starting', reason: 'no successful pass yet', lastSuccess: null, lastPass: null, lastError: null });
  });

  it('should say "tripwire" (still 200: the backup works) while a tripwire is open, with its undo, and ok once it is recovered', () => {
    const h = new HealthState(15 * MIN);
    h.passSucceeded(pass(), 1000);
    const t = { incident: 4, kind: 'mass-change', moduleId: 'm1', summary: 'mass change in module Hiring by Ada', undo: 'wbsync rollback --incident 4', openedAt: new Date(0).toISOString() };
    h.setOpenTripwires([t]);
    const r = h.report(2000);
    expect(r.httpStatus).toBe(200);
    expect(r.body).toMatchObject({ status: 'tripwire', reason: 'open tripwire: incident 4: mass change in module Hiring by Ada — undo: wbsync rollback --incident 4', tripwires: [t] });
    h.setOpenTripwires([]);
    expect(h.report(2000).body).toMatchObject({ status: 'ok', reason: null, tripwires: [] });
  });

  it('should be 200 after a success, with the last pass figures', () => {
    const h = new HealthState(15 * MIN);
    expect(h.passSucceeded(pass(), 1000).recoveredFrom).toBeNull();
    const r = h.report(2000);
    expect(r.httpStatus).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.body.lastSuccess).toBe(new Date(1000).toISOString());
    expect(r.body.lastPass).toMatchObject({ snapshot: 1, kind: 'incremental', status: 'complete', counts: { record: 2 }, requests: 10 });
  });

  it('should go 503 when the last success is older than the limit', () => {
    const h = new HealthState(15 * MIN);
    h.passSucceeded(pass(), 0);
    expect(h.report(15 * MIN).httpStatus).toBe(200);
    const r = h.report(15 * MIN + 1);
    expect(r.httpStatus).toBe(503);
    expect(r.body.reason).toMatch(/last success .* is 900 s old/);
  });

  it('should go 503 when a part of the mirror was last read in full longer ago than the freshness window', () => {
    const h = new HealthState(15 * MIN, 360 * MIN);
    h.passSucceeded(pass(), 400 * MIN);
    h.setOldestVerified({ label: 'module m1 of workspace w1', atMs: 40 * MIN });
    expect(h.report(400 * MIN).httpStatus).toBe(200);
    const r = h.report(400 * MIN + 1);
    expect(r.httpStatus).toBe(503);
    expect(r.body.reason).toBe('mirror staler than freshness.maxStalenessMinutes (360 min): module m1 of workspace w1 was last read in full 360 min ago');
    // re-verified: healthy again
    h.setOldestVerified({ label: 'module m2 of workspace w1', atMs: 300 * MIN });
    expect(h.report(401 * MIN).httpStatus).toBe(200);
  });

  it('should say "authentication failed" on auth, until a success, which reports the recovery', () => {
    const h = new HealthState(15 * MIN);
    h.passSucceeded(pass(), 0);
    expect(h.passFailed({ code: 'auth', message: 'HTTP 401' }, 10, null)).toEqual({ reason: REASON_AUTH, changed: true });
    expect(h.passFailed({ code: 'auth', message: 'HTTP 401' }, 20, null).changed).toBe(false);
    const r = h.report(30);
    expect(r.httpStatus).toBe(503);
    expect(r.body.reason).toBe(REASON_AUTH);
    expect(r.body.lastError).toMatchObject({ code: 'auth', message: 'HTTP 401' });
    expect(r.body.lastSuccess).toBe(new Date(0).toISOString());
    expect(h.passSucceeded(pass({ snapshot: 2 }), 40).recoveredFrom).toBe(REASON_AUTH);
    const after = h.report(50);
    expect(after.httpStatus).toBe(200);
    // the error stays visible after the recovery
    expect(after.body.lastError?.code).toBe('auth');
  });

  it('should report an outage as "service unreachable", not as a bad key', () => {
    const h = new HealthState(15 * MIN);
    h.passFailed({ code: 'unreachable', message: 'database down' }, 10, pass({ status: 'failed', snapshot: null }));
    const r = h.report(20);
    expect(r.httpStatus).toBe(503);
    expect(r.body.status).toBe('unhealthy');
    expect(r.body.reason).toBe(REASON_OUTAGE);
    expect(r.body.lastPass?.status).toBe('failed');
  });

  it('should name any other failure with its message', () => {
    const h = new HealthState(MIN);
    h.passFailed({ code: 'storage', message: 'disk full' }, 0, null);
    expect(h.report(1).body.reason).toBe('last pass failed: disk full');
  });

  it('should not go stale while a long pass keeps making progress, but should when it stalls', () => {
    const h = new HealthState(15 * MIN);
    h.passSucceeded(pass(), 0);
    h.passStarted('full', 10 * MIN);
    h.passProgress(20 * MIN);
    const during = h.report(30 * MIN);
    expect(during.httpStatus).toBe(200);
    expect(during.body.running).toMatchObject({ kind: 'full', lastProgress: new Date(20 * MIN).toISOString() });
    expect(h.report(35 * MIN + 1).httpStatus).toBe(503);
    h.passSucceeded(pass({ kind: 'full' }), 36 * MIN);
    expect(h.report(37 * MIN).body.running).toBeNull();
  });

  it('should count a seeded last success from the database', () => {
    const h = new HealthState(MIN);
    h.seedLastSuccess(1000);
    expect(h.report(2000).httpStatus).toBe(200);
    expect(h.report(1000 + MIN + 1).httpStatus).toBe(503);
  });
});
