import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../api/port.js';
import { meterInFlight } from './in-flight.js';

describe('the bench meter of requests in flight', () => {
  let server: Server;
  let url: string;
  beforeEach(async () => {
    // every answer takes 60 ms, like the bench's injected latency
    server = createServer((_req, res) => void setTimeout(() => res.end('{}'), 60));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('counts requests on the wire (never more than were sent at once) and calls asked and not yet answered', async () => {
    let answered = 0;
    const client = {
      listWorkspaces: () => new Promise((r) => setTimeout(() => r((answered += 1)), 60)),
      stats: () => ({ requests: 0, retries: 0 }),
    } as unknown as ServiceClient;
    const meter = meterInFlight(client, 4, 5);
    const agent = new Agent({ connections: 4 });
    try {
      await Promise.all([
        ...Array.from({ length: 4 }, () => request(url, { dispatcher: agent }).then((r) => r.body.text())),
        ...Array.from({ length: 3 }, () => meter.client.listWorkspaces()),
      ]);
      // nothing in flight any more: the last samples are zero
      await new Promise((r) => setTimeout(r, 60));
    } finally {
      await agent.close();
    }
    const f = meter.stop();
    expect(answered).toBe(3); // the wrapped client still answers
    expect(f.samples).toBeGreaterThan(5);
    expect(f.meanOnWire).toBeGreaterThan(0);
    expect(f.meanOnWire).toBeLessThanOrEqual(4);
    expect(f.atBound).toBeGreaterThan(0);
    expect(f.underHalf).toBeGreaterThan(0);
    expect(f.meanAsked).toBeGreaterThan(0);
    expect(f.meanAsked).toBeLessThanOrEqual(3);
    expect(f.byTenth).toHaveLength(10);
    expect(f.byTenth.at(-1)).toBe(0);
  });
});
