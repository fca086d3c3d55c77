// The retry decorator alone, over a scripted inner transport: what is retried, how often,
// how it is counted, and how a 401 is triaged with the health probe.

import { describe, expect, it } from 'vitest';
import { WbsyncError } from '../domain/errors.js';
import { withRetry, type RetryInfo } from './retry.js';
import { StatsRecorder } from './stats.js';
import type { ApiRequest, ApiResponse, Transport } from './transport.js';

type Step = number | WbsyncError;

function scripted(steps: Step[]): Transport & { calls: number } {
  const t = {
    calls: 0,
    async send(req: ApiRequest): Promise<ApiResponse> {
      const step = steps[Math.min(t.calls, steps.length - 1)];
      t.calls += 1;
      if (step instanceof WbsyncError) throw step;
      return { status: step, contentType: 'application/json', text: JSON.stringify({ message: `status ${step}` }), endpoint: `${req.method} ${req.template}` };
    },
    close: async () => undefined,
  };
  return t;
}

const netErr = (failure: string, requestSent = true): WbsyncError =>
  new WbsyncError('unreachable', `GET /x: ${failure}`, { retryable: true, details: { failure, requestSent } });

function setup(steps: Step[], opts: { retries?: number; db?: boolean | null } = {}) {
  const inner = scripted(steps);
  const stats = new StatsRecorder();
  const retries: RetryInfo[] = [];
  let probes = 0;
  const t = withRetry(inner, {
    retries: opts.retries ?? 3,
    backoff: { baseMs: 1, maxMs: 4 },
    stats,
    onRetry: (i) => retries.push(i),
    probeDatabase: async () => {
      probes += 1;
      return opts.db === undefined ? true : opts.db;
    },
  });
  return { t, inner, stats, retries, probes: () => probes };
}

const GET: ApiRequest = { method: 'GET', template: '/records/{collectionId}', params: { collectionId: 'c' } };
const POST: ApiRequest = { method: 'POST', template: '/records/{collectionId}', params: { collectionId: 'c' }, body: { name: 'x' } };

async function caught(p: Promise<unknown>): Promise<WbsyncError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof WbsyncError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('withRetry', () => {
  it.each([500, 502, 503])('retries a GET on %i and succeeds', async (status) => {
    const { t, inner, stats, retries } = setup([status, status, 200]);
    expect((await t.send(GET)).status).toBe(200);
    expect(inner.calls).toBe(3);
    expect(stats.snapshot().retries).toBe(2);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(retries.every((r) => r.delayMs >= 0 && r.delayMs <= 4)).toBe(true);
  });

  it.each(['reset', 'timeout', 'truncated', 'refused'])('retries a GET after a %s', async (failure) => {
    const { t, inner } = setup([netErr(failure), 200]);
    expect((await t.send(GET)).status).toBe(200);
    expect(inner.calls).toBe(2);
  });

  it('gives up after `retries` and throws unreachable naming the endpoint', async () => {
    const { t, inner, stats } = setup([500], { retries: 2 });
    const err = await caught(t.send(GET));
    expect(inner.calls).toBe(3);
    expect(stats.snapshot().retries).toBe(2);
    expect(err.code).toBe('unreachable');
    expect(err.message).toMatch(/^GET \/records\/\{collectionId\}: .*HTTP 500.*status 500.*gave up after 2 retries/);
  });

  it('does not retry a non-retryable answer (404) or error (bad_response)', async () => {
    const a = setup([404]);
    expect((await a.t.send(GET)).status).toBe(404);
    expect(a.inner.calls).toBe(1);
    const b = setup([new WbsyncError('bad_response', 'too big', { retryable: false })]);
    expect((await caught(b.t.send(GET))).code).toBe('bad_response');
    expect(b.inner.calls).toBe(1);
  });

  it.each([500, 502])('never resends a POST after %i: outcome unknown', async (status) => {
    const { t, inner } = setup([status, 200]);
    const err = await caught(t.send(POST));
    expect(inner.calls).toBe(1);
    expect(err.retryable).toBe(false);
    expect(err.details?.['outcomeUnknown']).toBe(true);
  });

  it.each(['reset', 'timeout', 'truncated'])('never resends a POST after a %s: outcome unknown', async (failure) => {
    const { t, inner } = setup([netErr(failure), 200]);
    const err = await caught(t.send(POST));
    expect(inner.calls).toBe(1);
    expect(err).toMatchObject({ retryable: false, details: { outcomeUnknown: true } });
  });

  it('resends a POST when it surely was not processed (refused connection, 503)', async () => {
    const a = setup([netErr('refused', false), 200]);
    expect((await a.t.send(POST)).status).toBe(200);
    const b = setup([503, 200]);
    expect((await b.t.send(POST)).status).toBe(200);
  });

  it('401 with the database up: one short retry, then the 401 is returned (auth)', async () => {
    const { t, inner, stats, probes } = setup([401], { retries: 5, db: true });
    expect((await t.send(GET)).status).toBe(401);
    expect(inner.calls).toBe(2);
    expect(probes()).toBe(2);
    expect(stats.snapshot().retries).toBe(1);
  });

  it('401 with the database down: retried as an outage, then unreachable saying the database is down', async () => {
    const { t, inner } = setup([401], { retries: 2, db: false });
    const err = await caught(t.send(GET));
    expect(inner.calls).toBe(3);
    expect(err.code).toBe('unreachable');
    expect(err.message).toMatch(/database is down/);
    expect(err.details?.['databaseDown']).toBe(true);
  });

  it('401 while the database is down recovers when it comes back', async () => {
    const { t } = setup([401, 200], { db: false });
    expect((await t.send(POST)).status).toBe(200);
  });

  it('stops waiting when the caller aborts', async () => {
    const inner = scripted([500]);
    const t = withRetry(inner, { retries: 5, backoff: { baseMs: 10_000, maxMs: 10_000, random: () => 1 }, stats: new StatsRecorder(), probeDatabase: async () => true });
    const ac = new AbortController();
    const p = caught(t.send({ ...GET, signal: ac.signal }));
    setTimeout(() => ac.abort(), 10);
    expect((await p).details?.['cancelled']).toBe(true);
  });
});
