import { describe, expect, it } from 'vitest';
import { fleetPage } from './fleet-console.js';
import type { FleetStatus } from './status.js';
import { failingTenant } from './status.test-helpers.js';

const status = (error: string): FleetStatus => ({
  at: '2026-11-26T19:00:00.000Z',
  tenants: [
    failingTenant(error),
    { name: 'globex', baseUrl: 'http://127.0.0.1:2', paused: true, home: { worker: 'w2', epoch: 4, since: '2026-11-26T18:00:00.000Z', workerLive: false }, running: null, lastPass: null, lastSuccess: null, freshnessSeconds: null, failuresSinceSuccess: 0, passes: 0, addedAt: '2026-11-26T17:00:00.000Z', freshnessBoundSeconds: 21_600, problems: [] },
  ],
  workers: [{ id: 'w1', capacity: 2, tenants: 1, heartbeatAt: '2026-11-26T19:00:00.000Z', heartbeatAgeSeconds: 1, live: true, draining: false, healthUrl: 'http://127.0.0.1:9465' }],
  services: [],
  failing: 1,
});

describe('the Fleet page', () => {
  it('links the tenants homed here, lists the others, and escapes what the service said in a failure', () => {
    const text = fleetPage('w1', status(`HTTP 500: <script>alert(1)</script> "><img src=x onerror=alert(2)>`), new Set(['acme']), '').text;
    expect(text).toContain('<a href="/ui/t/acme/">acme</a>');
    expect(text).toContain('<td>w1 (this worker)</td><td>idle</td><td>incremental 2026-11-26T18:59:30Z</td>');
    expect(text).toContain('FAILED: HTTP 500: &lt;script&gt;alert(1)&lt;/script&gt; &quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(text).not.toMatch(/<script|<img/i);
    expect(text).toContain('<td>globex</td><td>w2 (gone)</td><td>paused</td><td>-</td><td>-</td><td>never</td>');
    expect(text).not.toContain('/ui/t/globex/');
    expect(text).toContain('<td>2m ago</td>');
    // why it fails, as `wbsync fleet status` says it, escaped too; the paused tenant is not failing
    expect(text).toContain('1 of 2 tenant(s) failing:');
    expect(text).toContain('<li>acme: last pass failed (incremental, 2026-11-26T18:59:30Z): HTTP 500: &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).not.toContain('<li>globex');
  });
});
