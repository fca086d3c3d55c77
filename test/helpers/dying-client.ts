// A client that dies at its Nth write, as a kill -9 would leave a run: 'before' never sends that
// write, 'after' sends it and dies on the answer; every later call fails too (nothing more reaches
// the service, not even a clean-up).

import type { ServiceClient } from '../../src/api/port.js';

export const WRITE = /^(create|update|delete|put)/;

export function dyingClient(inner: ServiceClient, n: number, when: 'before' | 'after', onWrite?: (method: string) => void): ServiceClient {
  let writes = 0;
  let dead = false;
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || prop === 'stats' || prop === 'close') return v;
      return async (...args: unknown[]) => {
        if (dead) throw new Error('killed');
        if (!WRITE.test(String(prop))) return (v as (...a: unknown[]) => unknown).apply(target, args);
        onWrite?.(String(prop));
        const mine = ++writes;
        if (mine === n && when === 'before') {
          dead = true;
          throw new Error('killed');
        }
        const out = await (v as (...a: unknown[]) => unknown).apply(target, args);
        if (mine === n) {
          dead = true;
          throw new Error('killed');
        }
        return out;
      };
    },
  });
}
