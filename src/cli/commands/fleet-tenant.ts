// `wbsync fleet tenant add | list | pause | resume | remove`: the fleet's tenant registry in Postgres.

import { readFileSync } from 'node:fs';
import { shown } from '../../domain/display-text.js';
import { EXIT_CODES, WbsyncError } from '../../domain/errors.js';
import { commandLine } from '../../domain/shell-command.js';
import { jsonErrorAt } from '../../config/load.js';
import { withFleetDb } from '../../fleet/connect.js';
import { addTenant, checkBaseUrl, checkTenantConfig, checkTenantName, listTenants, removeTenant, setPaused, type Tenant } from '../../fleet/tenants.js';
import { stringFlag } from '../flag-values.js';
import type { Command, CommandContext } from '../command.js';

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

const nameArg = [{ name: 'NAME', description: 'the tenant', required: true }];

function fleetDb<T>(ctx: CommandContext, doing: string, fn: Parameters<typeof withFleetDb<T>>[3]): Promise<T> {
  return withFleetDb(ctx.config().config, ctx.logger(), doing, fn);
}

const add: Command = {
  name: 'add',
  summary: 'add a tenant: its name, service base URL and settings',
  usage: 'wbsync fleet tenant add NAME --base-url URL [--tenant-config FILE]',
  description: [
    'Adds a tenant to the fleet. A worker with room takes it (its home) and runs its passes on its',
    'schedule. The key is never in the registry: each worker reads it from <fleet.keyDir>/NAME.',
    '--tenant-config FILE: the tenant\'s own settings, a JSON object with the keys of a wbsync config',
    'file that belong to one tenant (workspaces, http, schedule, freshness, restore, retention,',
    'alerts.afterFailures/timeoutMs, tripwire, offsite, drill); secrets (webhook URLs) are refused.',
  ].join('\n'),
  examples: ['wbsync fleet tenant add acme --base-url https://boards.example.com --tenant-config acme.json'],
  positionals: nameArg,
  flags: [
    { name: 'base-url', type: 'string', valueName: 'URL', description: "the tenant's service root" },
    { name: 'tenant-config', type: 'string', valueName: 'FILE', description: "the tenant's settings (JSON)" },
  ],
  async run(ctx) {
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
  },
};

function line(t: Tenant): string {
  return [t.name, t.paused ? 'paused' : 'active', shown(t.baseUrl), Object.keys(t.config).map(shown).join(',') || '-'].join('  ');
}

const list: Command = {
  name: 'list',
  summary: 'list the tenants',
  usage: 'wbsync fleet tenant list',
  description: 'Lists the tenants: name, active or paused, service base URL, the settings each sets. `wbsync fleet status` shows homes and passes.',
  examples: ['wbsync fleet tenant list --json'],
  flags: [],
  async run(ctx) {
    const all = await fleetDb(ctx, 'listing tenants', (db) => listTenants(db.pool));
    if (ctx.json) ctx.emit({ tenants: all });
    else ctx.say(all.length ? all.map(line).join('\n') : `no tenants yet: ${commandLine(['wbsync', 'fleet', 'tenant', 'add', 'NAME', '--base-url', 'URL'])}`);
    return EXIT_CODES.ok;
  },
};

function pauseCommand(paused: boolean): Command {
  const verb = paused ? 'pause' : 'resume';
  return {
    name: verb,
    summary: paused ? "pause a tenant: no new job starts (one in flight finishes)" : 'resume a paused tenant',
    usage: `wbsync fleet tenant ${verb} NAME`,
    description: paused
      ? 'Stops scheduling jobs for the tenant; a job in flight finishes. It keeps its home and its database.'
      : 'Lets the tenant\'s jobs run again on its schedule.',
    examples: [`wbsync fleet tenant ${verb} acme`],
    positionals: nameArg,
    flags: [],
    async run(ctx) {
      const name = ctx.args.positionals[0]!;
      const t = await fleetDb(ctx, `${paused ? 'pausing' : 'resuming'} the tenant`, (db) => setPaused(db.pool, name, paused));
      if (ctx.json) ctx.emit({ tenant: t.name, paused: t.paused });
      else ctx.say(`tenant ${t.name} ${paused ? 'paused' : 'resumed'}`);
      return EXIT_CODES.ok;
    },
  };
}

const remove: Command = {
  name: 'remove',
  summary: 'remove a tenant from the fleet (its database file stays)',
  usage: 'wbsync fleet tenant remove NAME',
  description: 'Removes the tenant, its home and its run history from the registry. Its home worker stops it after the job in flight; the database file stays on that worker\'s volume (<data>/tenants/NAME/wbsync.db), for `wbsync --db` commands or to delete by hand.',
  examples: ['wbsync fleet tenant remove acme'],
  positionals: nameArg,
  flags: [],
  async run(ctx) {
    const name = ctx.args.positionals[0]!;
    const r = await fleetDb(ctx, 'removing the tenant', (db) => removeTenant(db.pool, name));
    if (ctx.json) ctx.emit({ removed: name, home: r.home });
    else ctx.say(`removed tenant ${name}${r.home ? `; its database stays on worker ${r.home} (tenants/${name}/wbsync.db in its data folder)` : ''}`);
    return EXIT_CODES.ok;
  },
};

export const fleetTenantCommand: Command = {
  name: 'tenant',
  summary: 'the tenant registry: add, list, pause, resume, remove',
  usage: 'wbsync fleet tenant add | list | pause | resume | remove',
  description: 'The fleet\'s tenants, kept in Postgres (fleet.postgresUrlFile). The registry holds no secret.',
  examples: ['wbsync fleet tenant list'],
  flags: [],
  subcommands: [add, list, pauseCommand(true), pauseCommand(false), remove],
};
