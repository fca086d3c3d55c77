// A ServiceClient that counts the calls made through it (one per method call; retries are the
// inner client's and are not counted again), for figures such as the requests a pass spends on
// re-verification. Bookkeeping methods pass through uncounted.
import type { ServiceClient } from './port.js';

const UNCOUNTED = new Set<PropertyKey>(['stats', 'close']);

export interface CountedClient {
  client: ServiceClient;
  calls(): number;
}

export function countCalls(inner: ServiceClient): CountedClient {
  let calls = 0;
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || UNCOUNTED.has(prop)) return value;
      return (...args: unknown[]) => {
        calls++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client, calls: () => calls };
}
