// The queue decorator alone: never more than `concurrency` sends at once; one listener on a signal
// shared by many requests (no MaxListenersExceededWarning), which still cancels them all.

import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from './backoff.js';
import { withQueue } from './queue.js';
import type { ApiRequest, ApiResponse, Transport } from './transport.js';

describe('withQueue', () => {
  it('bounds the sends in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const inner: Transport = {
      async send(req: ApiRequest): Promise<ApiResponse> {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight -= 1;
        return { status: 200, contentType: '', text: '{}', endpoint: req.template };
      },
      close: async () => undefined,
    };
    const q = withQueue(inner, 3);
    await Promise.all(Array.from({ length: 20 }, () => q.send({ method: 'GET', template: '/x' })));
    expect(peak).toBe(3);
  });

  it('sends a request of a higher priority ahead of those queued before it, with or without a signal', async () => {
    const order: string[] = [];
    const inner: Transport = {
      async send(req: ApiRequest): Promise<ApiResponse> {
        order.push(req.template);
        await new Promise((r) => setTimeout(r, 2));
        return { status: 200, contentType: '', text: '{}', endpoint: req.template };
      },
      close: async () => undefined,
    };
    const q = withQueue(inner, 1);
    const signal = new AbortController().signal;
    await Promise.all([
      q.send({ method: 'GET', template: '/first' }),
      q.send({ method: 'GET', template: '/crawl-1' }),
      q.send({ method: 'GET', template: '/crawl-2', signal }),
      q.send({ method: 'GET', template: '/feed-1', priority: 1 }),
      q.send({ method: 'GET', template: '/feed-2', priority: 1, signal }),
    ]);
    expect(order).toEqual(['/first', '/feed-1', '/feed-2', '/crawl-1', '/crawl-2']);
  });
});

describe('one shared signal, many requests', () => {
  it('should add one abort listener to the shared signal however many requests wait, and print no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const shared = new AbortController();
      let peakListeners = 0;
      const inner: Transport = {
        async send(req: ApiRequest): Promise<ApiResponse> {
          peakListeners = Math.max(peakListeners, getEventListeners(shared.signal, 'abort').length);
          await new Promise((r) => setTimeout(r, 2));
          return { status: 200, contentType: '', text: '{}', endpoint: req.template };
        },
        close: async () => undefined,
      };
      const q = withQueue(inner, 8);
      const sends = Array.from({ length: 60 }, () => q.send({ method: 'GET', template: '/x', signal: shared.signal }));
      peakListeners = Math.max(peakListeners, getEventListeners(shared.signal, 'abort').length);
      await Promise.all(sends);
      // backoff sleeps under the same signal share the listener too
      const sleeps = Array.from({ length: 30 }, () => sleep(5, shared.signal));
      peakListeners = Math.max(peakListeners, getEventListeners(shared.signal, 'abort').length);
      await Promise.all(sleeps);
      await new Promise((r) => setImmediate(r));
      expect(peakListeners).toBe(1);
      expect(getEventListeners(shared.signal, 'abort').length).toBe(0);
      expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('should still cancel every waiting and sleeping request when the shared signal aborts', async () => {
    const shared = new AbortController();
    let abortedInFlight = 0;
    const inner: Transport = {
      send: (req: ApiRequest) =>
        new Promise<ApiResponse>((resolve, reject) => {
          const t = setTimeout(() => resolve({ status: 200, contentType: '', text: '{}', endpoint: req.template }), 5_000);
          req.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            abortedInFlight++;
            reject(new Error('aborted in flight'));
          });
        }),
      close: async () => undefined,
    };
    const q = withQueue(inner, 2);
    const sends = Array.from({ length: 20 }, () => q.send({ method: 'GET', template: '/x', signal: shared.signal }).then(() => 'done', (e: Error) => e.message));
    const sleeps = Array.from({ length: 5 }, () => sleep(5_000, shared.signal).then(() => 'slept', (e: Error) => e.message));
    await new Promise((r) => setTimeout(r, 10));
    shared.abort();
    const out = await Promise.all([...sends, ...sleeps]);
    expect(out.filter((x) => x === 'done' || x === 'slept')).toEqual([]);
    expect(out.filter((x) => /cancelled/.test(x))).toHaveLength(25);
    expect(abortedInFlight).toBe(2); // the two in flight saw the abort on their own signals
    expect(getEventListeners(shared.signal, 'abort').length).toBe(0);
  });
});
