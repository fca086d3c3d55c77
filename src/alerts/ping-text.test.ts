import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Notifier } from './notifier.js';

describe('the healthchecks failure ping', () => {
  it('carries the failure text on one line, controls spelled out', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let b = '';
      req.setEncoding('utf8').on('data', (d: string) => (b += d));
      req.on('end', () => {
        bodies.push(b);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const quiet = { warn: () => undefined, info: () => undefined };
      const n = new Notifier({ webhooks: [], healthchecksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hc`, database: '/data/wbsync.db', timeoutMs: 5_000, logger: quiet });
      n.ping('fail', 'unreachable: GET /workspaces: the service failed (HTTP 500): boom\nOK: all passes green\r\u001b[2J');
      expect(await n.drain(5_000)).toBe(true);
      expect(bodies).toEqual(['unreachable: GET /workspaces: the service failed (HTTP 500): boom\\nOK: all passes green\\r\\u001b[2J']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
