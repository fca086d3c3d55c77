// Decorator that makes each request wait for a slot from a gate before it goes out (the fleet's
// shared budget per service), and gives the slot back when its exchange ends. It sits inside the
// queue: a request holds one of the client's own slots while it waits for the gate's.

import type { ApiRequest, ApiResponse, Transport } from './transport.js';

export interface RequestGate {
  /** Resolves with the slot's release once the request may go out; rejects on abort or failure. */
  acquire(signal?: AbortSignal): Promise<() => void>;
}

export function withGate(inner: Transport, gate: RequestGate): Transport {
  return {
    async send(req: ApiRequest): Promise<ApiResponse> {
      const release = await gate.acquire(req.signal);
      try {
        return await inner.send(req);
      } finally {
        release();
      }
    },
    close: () => inner.close(),
  };
}
