// The tenant registry in Postgres: names, service base URLs and each tenant's own settings — never
// a secret (a worker reads the key from <fleet.keyDir>/<name>). A tenant's settings are those of a
// wbsync config file, limited to what belongs to one tenant: the worker supplies the database path,
// the listen address, the log and the fleet settings, and secrets stay out of the registry.

import { WbsyncError } from '../domain/errors.js';
import { ConfigSchema } from '../config/schema.js';
import { formatIssues, mergeConfig } from '../config/load.js';
import type pg from 'pg';
import { FLEET_SCHEMA as S } from './schema.js';

export const TENANT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Keys of a config file a tenant may set. */
export const TENANT_KEYS = ['workspaces', 'http', 'schedule', 'freshness', 'restore', 'retention', 'alerts', 'tripwire', 'offsite', 'drill'] as const;

/** Why each other key is refused in a tenant's settings. */
const REFUSED: Record<string, string> = {
  baseUrl: 'give it with --base-url',
  apiKeyFile: "the key is read from <fleet.keyDir>/<tenant name> on each worker",
  apiKey: 'the registry holds no secret: the key is read from <fleet.keyDir>/<tenant name>',
  key: 'the registry holds no secret: the key is read from <fleet.keyDir>/<tenant name>',
  token: 'the registry holds no secret',
  pit: 'the registry holds no secret',
  db: "each tenant's database is <worker data dir>/tenants/<name>/wbsync.db",
  daemon: "the worker's own fleet.listen serves every tenant's /healthz and /metrics",
  log: "the worker's log settings apply",
  ui: 'the console is not run per tenant by a worker',
  fleet: "fleet settings are the worker's",
};

export interface Tenant {
  name: string;
  baseUrl: string;
  config: Record<string, unknown>;
  paused: boolean;
  createdAt: string;
}

export function checkTenantName(name: string): void {
  if (!TENANT_NAME.test(name)) {
    throw new WbsyncError('usage', `tenant name ${JSON.stringify(name.slice(0, 80))} is not allowed`, {
      hint: 'use 1-63 lower-case letters, digits and dashes, starting with a letter or digit (it names the key file and the database folder)',
    });
  }
}

export function checkBaseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new WbsyncError('usage', `--base-url ${JSON.stringify(url.slice(0, 200))} is not a URL`, { hint: 'give the service root, e.g. https://boards.example.com' });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new WbsyncError('usage', `--base-url must be http(s), got ${u.protocol}`, { hint: 'give the service root, e.g. https://boards.example.com' });
  if (u.username || u.password) throw new WbsyncError('usage', '--base-url must not hold a user or password', { hint: 'the registry holds no secret; the key goes in <fleet.keyDir>/<tenant name>' });
  return url.replace(/\/+$/, '');
}

/** A tenant's settings checked: only tenant keys, no secret, valid as a wbsync configuration. */
export function checkTenantConfig(raw: unknown, from: string): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new WbsyncError('config', `${from} must hold a JSON object`);
  const obj = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(obj)) {
    if ((TENANT_KEYS as readonly string[]).includes(k)) continue;
    problems.push(`${k}: not a tenant setting (${REFUSED[k] ?? `a tenant may set ${TENANT_KEYS.join(', ')}`})`);
  }
  const alerts = obj.alerts as Record<string, unknown> | undefined;
  if (alerts && typeof alerts === 'object') {
    for (const k of ['webhooks', 'healthchecksUrl']) {
      if (k in alerts) problems.push(`alerts.${k}: a secret (its URL carries a token), which the registry never holds; set it in the workers' config file`);
    }
  }
  if (problems.length) {
    throw new WbsyncError('config', `${from}: ${problems.length} setting(s) refused:\n  ${problems.join('\n  ')}`, { hint: 'remove them from the tenant\'s file; nothing was changed', details: { problems } });
  }
  const parsed = ConfigSchema.safeParse(mergeConfig({}, obj));
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues as Parameters<typeof formatIssues>[0]);
    throw new WbsyncError('config', `${from}: invalid settings:\n  ${lines.join('\n  ')}`, { hint: 'fix the settings named above; nothing was changed', details: { problems: lines } });
  }
  return obj;
}

type Row = { name: string; base_url: string; config: Record<string, unknown>; paused: boolean; created_at: Date };
const toTenant = (r: Row): Tenant => ({ name: r.name, baseUrl: r.base_url, config: r.config, paused: r.paused, createdAt: r.created_at.toISOString() });

export async function addTenant(pool: pg.Pool, t: { name: string; baseUrl: string; config: Record<string, unknown> }): Promise<Tenant> {
  checkTenantName(t.name);
  const baseUrl = checkBaseUrl(t.baseUrl);
  const res = await pool.query<Row>(
    `insert into ${S}.tenants(name, base_url, config) values ($1, $2, $3::jsonb) on conflict (name) do nothing returning *`,
    [t.name, baseUrl, JSON.stringify(t.config)],
  );
  if (!res.rows[0]) {
    throw new WbsyncError('usage', `tenant ${t.name} already exists`, { hint: `pick another name, or remove it first (its database stays on its worker)` });
  }
  return toTenant(res.rows[0]);
}

export async function listTenants(pool: pg.Pool): Promise<Tenant[]> {
  return (await pool.query<Row>(`select * from ${S}.tenants order by name`)).rows.map(toTenant);
}

export async function getTenant(pool: pg.Pool, name: string): Promise<Tenant | null> {
  const r = (await pool.query<Row>(`select * from ${S}.tenants where name = $1`, [name])).rows[0];
  return r ? toTenant(r) : null;
}

function unknownTenant(name: string): WbsyncError {
  return new WbsyncError('usage', `no tenant named ${JSON.stringify(name.slice(0, 80))}`, { hint: "'wbsync fleet tenant list' lists them" });
}

export async function setPaused(pool: pg.Pool, name: string, paused: boolean): Promise<Tenant> {
  const r = (await pool.query<Row>(`update ${S}.tenants set paused = $2 where name = $1 returning *`, [name, paused])).rows[0];
  if (!r) throw unknownTenant(name);
  return toTenant(r);
}

/** Removes the tenant from the registry (its home and run history go with it); its database file
 * stays on its worker's volume. Returns the worker that was its home. */
export async function removeTenant(pool: pg.Pool, name: string): Promise<{ home: string | null }> {
  const home = (await pool.query<{ worker: string }>(`select worker from ${S}.homes where tenant = $1`, [name])).rows[0]?.worker ?? null;
  const r = await pool.query(`delete from ${S}.tenants where name = $1`, [name]);
  if (!r.rowCount) throw unknownTenant(name);
  return { home };
}
