// `wbsync fleet tenant add | list | pause | resume | remove`: the fleet's tenant registry in Postgres.
// What it does, loaded only when it runs (its help and flags: ../commands/fleet-tenant.ts).

import { readFileSync } from 'node:fs';
import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { commandLine } from '../../domain/shell-command.js';
import { jsonErrorAt } from '../../config/load.js';
import { withFleetDb } from '../../fleet/connect.js';
import { addTenant, checkBaseUrl, checkTenantConfig, checkTenantName, listTenants, removeTenant, setPaused, type Tenant } from '../../fleet/tenants.js';
import { stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';

function readTenantConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new WbsyncError('usage', `--tenant-config ${shown(file)}: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const at = jsonErrorAt(text, (e as Error).message);
    throw new WbsyncError('config', `--tenant-config ${shown(file)} is not valid JSON at line ${at.line}, column ${at.column}: ${shown(at.reason)}`, { hint: 'it holds one JSON object: the tenant\'s settings, as in a wbsync config file' });
  }
  return checkTenantConfig(parsed, `--tenant-config ${file}`);
}

function fleetDb<T>(ctx: CommandContext, doing: string, fn: Parameters<typeof withFleetDb<T>>[3]): Promise<T> {
  return withFleetDb(ctx.config().config, ctx.logger(), doing, fn);
}

function line(t: Tenant): string {
  return [t.name, t.paused ? 'paused' : 'active', shown(t.baseUrl), Object.keys(t.config).map(shown).join(',') || '-'].join('  ');
}

export async function runFleetTenantAddCommand(ctx: CommandContext): Promise<number> {
  const name = ctx.args.positionals[0]!;
  checkTenantName(name);
  const url = stringFlag(ctx.args.flags, 'base-url');
  if (!url) throw new WbsyncError('usage', 'fleet tenant add needs --base-url URL', { hint: "see 'wbsync fleet tenant add --help'" });
  const baseUrl = checkBaseUrl(url);
  const file = stringFlag(ctx.args.flags, 'tenant-config');
  const config = file ? readTenantConfig(file) : {};
  const t = await fleetDb(ctx, 'adding the tenant', (db) => addTenant(db.pool, { name, baseUrl, config }));
  if (ctx.json) ctx.emit({ added: t });
  else {
    ctx.say(`added tenant ${t.name} (${shown(t.baseUrl)}); a worker with room takes it at its next heartbeat`);
    ctx.say(`its key: the file <fleet.keyDir>/${t.name} on every worker (mode 0600)`);
  }
  return EXIT_CODES.ok;
}

export async function runFleetTenantListCommand(ctx: CommandContext): Promise<number> {
  const all = await fleetDb(ctx, 'listing tenants', (db) => listTenants(db.pool));
  if (ctx.json) ctx.emit({ tenants: all });
  else ctx.say(all.length ? all.map(line).join('\n') : `no tenants yet: ${commandLine(['wbsync', 'fleet', 'tenant', 'add', 'NAME', '--base-url', 'URL'])}`);
  return EXIT_CODES.ok;
}

export async function runFleetTenantRemoveCommand(ctx: CommandContext): Promise<number> {
  const name = ctx.args.positionals[0]!;
  const r = await fleetDb(ctx, 'removing the tenant', (db) => removeTenant(db.pool, name));
  if (ctx.json) ctx.emit({ removed: name, home: r.home });
  else ctx.say(`removed tenant ${name}${r.home ? `; its database stays on worker ${r.home} (tenants/${name}/wbsync.db in its data folder)` : ''}`);
  return EXIT_CODES.ok;
}

export async function runFleetTenantPauseCommand(ctx: CommandContext, paused: boolean): Promise<number> {
  const name = ctx.args.positionals[0]!;
  const t = await fleetDb(ctx, `${paused ? 'pausing' : 'resuming'} the tenant`, (db) => setPaused(db.pool, name, paused));
  if (ctx.json) ctx.emit({ tenant: t.name, paused: t.paused });
  else ctx.say(`tenant ${t.name} ${paused ? 'paused' : 'resumed'}`);
  return EXIT_CODES.ok;
}
