// `wbsync fleet ...`: many tenants on a fleet of workers coordinated through Postgres (docs/fleet.md).

import type { Command } from '../command.js';
import { fleetAdoptCommand, fleetDrainCommand } from './fleet-move.js';
import { fleetTenantCommand } from './fleet-tenant.js';
import { fleetBudgetCommand, fleetStatusCommand, fleetWorkerCommand } from './fleet-worker.js';

export const FLEET_SUBCOMMANDS: Command[] = [fleetTenantCommand, fleetWorkerCommand, fleetStatusCommand, fleetBudgetCommand, fleetDrainCommand, fleetAdoptCommand];

export const fleetCommand: Command = {
  name: 'fleet',
  summary: 'many tenants on workers coordinated through Postgres: tenants, workers, status',
  usage: 'wbsync fleet tenant | worker | status | budget',
  description: [
    'A fleet: tenants (each its own service base URL, key and SQLite database) homed on workers, one',
    'home per tenant, coordinated through Postgres (fleet.postgresUrlFile; the URL holds a password,',
    'so it is never a flag). See docs/fleet.md.',
  ].join('\n'),
  examples: ['wbsync fleet status', 'wbsync fleet tenant list'],
  flags: [],
  subcommands: FLEET_SUBCOMMANDS,
};
