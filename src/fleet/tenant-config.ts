// A tenant's configuration on its worker: the worker's configuration, the tenant's own settings
// from the registry over it, and what the fleet decides (the service root, the database path);
// and its key, read from <fleet.keyDir>/<name> — never from the registry.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatIssues, mergeConfig } from '../config/load.js';
import { ConfigSchema, type Config } from '../config/schema.js';
import { secretFileWarning } from '../config/secret-file.js';
import { WbsyncError } from '../domain/errors.js';
import { TENANT_NAME } from './tenants.js';

export function tenantDbPath(dataDir: string, name: string): string {
  if (!TENANT_NAME.test(name)) throw new WbsyncError('internal', `tenant name ${JSON.stringify(name)} is not allowed`);
  return path.resolve(dataDir, 'tenants', name, 'wbsync.db');
}

export function tenantConfig(worker: Config, t: { name: string; baseUrl: string; config: Record<string, unknown> }, dataDir: string): Config {
  const merged = mergeConfig(mergeConfig(structuredClone(worker) as unknown as Record<string, unknown>, t.config), { baseUrl: t.baseUrl, db: tenantDbPath(dataDir, t.name) });
  delete merged.apiKeyFile;
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues as Parameters<typeof formatIssues>[0]);
    throw new WbsyncError('config', `tenant ${t.name}: invalid settings: ${lines.join('; ')}`, { hint: `fix them with 'wbsync fleet tenant remove' and add again, or in the workers' config file` });
  }
  return parsed.data;
}

export function readTenantKey(keyDir: string, name: string): { key: string; warning?: string } {
  if (!TENANT_NAME.test(name)) throw new WbsyncError('internal', `tenant name ${JSON.stringify(name)} is not allowed`);
  const file = path.resolve(keyDir, name);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new WbsyncError('auth', `tenant ${name}: cannot read its key file ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: `put the tenant's key in ${file} (mode 0600), readable by the worker's user (fleet.keyDir names the folder)`,
    });
  }
  const key = text.trim();
  if (!key || /\s/.test(key)) {
    throw new WbsyncError('auth', `tenant ${name}: the key file ${file} must hold exactly one word, the key`, { hint: 'write only the key into it' });
  }
  const warning = secretFileWarning(file, `tenant ${name}'s key file`);
  return warning ? { key, warning } : { key };
}
