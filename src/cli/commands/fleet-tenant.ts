// `wbsync fleet tenant add | list | pause | resume | remove`: the fleet's tenant registry in Postgres.

import type { Command } from '../command.js';

const nameArg = [{ name: 'NAME', description: 'the tenant', required: true }];

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
  run: async (ctx) => (await import('../actions/fleet-tenant.js')).runFleetTenantAddCommand(ctx),
};

const list: Command = {
  name: 'list',
  summary: 'list the tenants',
  usage: 'wbsync fleet tenant list',
  description: 'Lists the tenants: name, active or paused, service base URL, the settings each sets. `wbsync fleet status` shows homes and passes.',
  examples: ['wbsync fleet tenant list --json'],
  flags: [],
  run: async (ctx) => (await import('../actions/fleet-tenant.js')).runFleetTenantListCommand(ctx),
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
    run: async (ctx) => (await import('../actions/fleet-tenant.js')).runFleetTenantPauseCommand(ctx, paused),
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
  run: async (ctx) => (await import('../actions/fleet-tenant.js')).runFleetTenantRemoveCommand(ctx),
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
