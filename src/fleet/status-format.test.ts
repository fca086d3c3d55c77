import { describe, expect, it } from 'vitest';
import { formatFleetStatus, type FleetStatus } from './status.js';
import { failingTenant } from './status.test-helpers.js';

describe('formatFleetStatus', () => {
  it('keeps a failure text, a problem and a URL from outside on their lines', () => {
    const error = 'HTTP 500: boom\n✔ all tenants fresh\r\u001b[2J\u202E';
    const s: FleetStatus = {
      at: '2026-11-26T19:00:00.000Z',
      failing: 1,
      tenants: [failingTenant(error)],
      workers: [{ id: 'w1', capacity: 2, tenants: 1, heartbeatAt: '2026-11-26T19:00:00.000Z', heartbeatAgeSeconds: 1, live: true, draining: false, healthUrl: 'http://127.0.0.1:9465/\nhint: x' }],
      services: [],
    };
    const text = formatFleetStatus(s);
    expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E]/);
    const lines = text.split('\n');
    expect(lines).toHaveLength(2 + 1 + 2 + 1 + 2);
    expect(lines[1]).toContain('FAILED: HTTP 500: boom ✔ all tenants fresh \\u001b[2J\\u202e  2m ago');
    expect(lines[4]).toMatch(/http:\/\/127\.0\.0\.1:9465\/\\nhint: x$/);
    expect(lines[7]).toBe('  acme: last pass failed (incremental, 2026-11-26T18:59:30Z): HTTP 500: boom\\n✔ all tenants fresh\\r\\u001b[2J\\u202e');
  });
});
