// A tenant whose last pass failed, as readFleetStatus reports it: the fixture the fleet's formatter
// and page tests share.
import type { FleetStatus } from './status.js';

export type TenantStatus = FleetStatus['tenants'][number];

export const failingTenant = (error: string): TenantStatus => ({
  name: 'acme',
  baseUrl: 'http://127.0.0.1:1',
  paused: false,
  home: { worker: 'w1', epoch: 1, since: '2026-11-26T18:00:00.000Z', workerLive: true },
  running: null,
  lastPass: { kind: 'incremental', startedAt: '2026-11-26T18:59:00.000Z', finishedAt: '2026-11-26T18:59:30.000Z', ok: false, error, snapshot: null },
  lastSuccess: '2026-11-26T18:58:00.000Z',
  freshnessSeconds: 120,
  failuresSinceSuccess: 1,
  passes: 3,
  addedAt: '2026-11-26T17:00:00.000Z',
  freshnessBoundSeconds: 21_600,
  problems: [`last pass failed (incremental, 2026-11-26T18:59:30Z): ${error}`],
});
