// Reads `GET /` (outside /api, no key): `{status, service, database, uptimeSeconds, time}`,
// 503 while the database is down. Used by health() and by the retry decorator to tell a dead
// key from a dead database (the deployed service answers 401 to keys while its DB is down).

import { z } from 'zod';
import type { Health } from './port.js';
import type { ApiResponse } from './transport.js';

export const HealthBodySchema = z.looseObject({
  status: z.unknown().optional(),
  database: z.unknown().optional(),
});
export type HealthBody = z.infer<typeof HealthBodySchema>;

const DOWN_WORDS = new Set(['disconnected', 'disconnecting', 'connecting', 'down', 'error', 'unavailable', 'unreachable', 'degraded', 'fail', 'failed', 'false']);

function saysDown(value: unknown): boolean {
  if (value === false) return true;
  if (typeof value === 'string') return DOWN_WORDS.has(value.trim().toLowerCase());
  if (value !== null && typeof value === 'object') {
    const inner = value as Record<string, unknown>;
    return saysDown(Object.hasOwn(inner, 'status') ? inner['status'] : undefined) || saysDown(Object.hasOwn(inner, 'state') ? inner['state'] : undefined);
  }
  return false;
}

/** Never throws: a body we cannot read counts as "database up" only when the status is 2xx. */
export function readHealth(res: ApiResponse): Health {
  let raw: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(res.text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
  } catch {
    raw = null;
  }
  const body = raw === null ? null : HealthBodySchema.safeParse(raw);
  const ok = res.status >= 200 && res.status < 300;
  const down = body?.success === true && (saysDown(body.data.database) || saysDown(body.data.status));
  return { databaseUp: ok && !down, status: res.status, raw };
}
