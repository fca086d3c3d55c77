// The queue decorator alone: never more than `concurrency` sends at once.

import { describe, expect, it } from 'vitest';
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
});
