// Decorator bounding the requests in flight. One client = one queue = one bound for the whole
// pass, however many streams call it concurrently. Retries go around it (see http-client.ts),
// so a request sleeping in backoff does not hold a slot.

import PQueue from 'p-queue';
import { WbsyncError } from '../domain/errors.js';
import { followSignal } from './abort-fanout.js';
import { cancelledError } from './backoff.js';
import { describeEndpoint } from './endpoint.js';
import type { ApiRequest, ApiResponse, Transport } from './transport.js';

export function withQueue(inner: Transport, concurrency: number): Transport {
  const queue = new PQueue({ concurrency: Math.max(1, Math.floor(concurrency)) });
  return {
    send: async (req: ApiRequest): Promise<ApiResponse> => {
      const priority = req.priority ?? 0;
      if (req.signal === undefined) return queue.add(() => inner.send(req), { priority });
      // The caller's signal is shared by every request of the command: each request follows it
      // through a signal of its own (one listener on the shared one, see abort-fanout.ts).
      const own = followSignal(req.signal);
      try {
        return await queue.add(() => inner.send({ ...req, signal: own.signal }), { signal: own.signal, priority });
      } catch (err) {
        // p-queue rejects a task cancelled while waiting with its own AbortError.
        if (!(err instanceof WbsyncError) && req.signal.aborted) throw cancelledError(describeEndpoint(req.method, req.template));
        throw err;
      } finally {
        own.release();
      }
    },
    close: async () => {
      queue.clear();
      await queue.onIdle();
      await inner.close();
    },
  };
}
