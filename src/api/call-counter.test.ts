import { describe, expect, it } from 'vitest';
import { countCalls } from './call-counter.js';
import type { ServiceClient } from './port.js';

describe('countCalls', () => {
  it('should count each method call once, pass results through, and not count bookkeeping', async () => {
    const inner = {
      listModules: async (ws: string) => [{ id: `${ws}-m` }],
      listMembers: async () => [],
      stats: () => ({ requests: 7, retries: 0, byClass: {} }),
    } as unknown as ServiceClient;
    const counted = countCalls(inner);
    expect(await counted.client.listModules('w')).toEqual([{ id: 'w-m' }]);
    await counted.client.listMembers('w');
    expect(counted.client.stats().requests).toBe(7);
    expect(counted.calls()).toBe(2);
  });
});
