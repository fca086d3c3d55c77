// `wbsync fleet worker`, `wbsync fleet status` and `wbsync fleet budget`.

import type { Command } from '../command.js';

export const fleetWorkerCommand: Command = {
  name: 'worker',
  summary: 'run a fleet worker: tenants up to its capacity, their passes and upkeep as jobs',
  usage: 'wbsync fleet worker --data DIR --id ID [--capacity N]',
  description: [
    'Runs until SIGTERM or SIGINT. Registers as worker ID (one process per ID: a second one exits 2)',
    'with a heartbeat every fleet.heartbeatSeconds, takes tenants without a home up to --capacity',
    '(default 10; each tenant is homed on exactly one worker), and runs each one\'s passes and upkeep',
    '(incremental, full, prune, drill, offsite) as jobs on the tenant\'s schedule (schedule.*,',
    'drill.schedule: the daemon\'s settings), through pg-boss in Postgres — never two jobs for one',
    'tenant at once. Each tenant\'s database: DIR/tenants/NAME/wbsync.db (every `wbsync --db`',
    'command works on it; writers take their turn between jobs). Its key: <fleet.keyDir>/NAME.',
    'Requests to one service base URL share one budget across the fleet (fleet.budget.*).',
    'GET /healthz and /metrics on fleet.listen: the worker and each tenant (label tenant).',
    'Postgres may restart: the worker waits for it and resumes; a job whose tenant lock is lost stops.',
  ].join('\n'),
  examples: ['wbsync fleet worker --data /var/lib/wbsync --id worker-0 --capacity 50'],
  flags: [
    { name: 'data', type: 'string', valueName: 'DIR', description: "the worker's volume: tenants' databases go in DIR/tenants/" },
    { name: 'id', type: 'string', valueName: 'ID', description: 'this worker\'s id (a StatefulSet pod name)' },
    { name: 'capacity', type: 'number', valueName: 'N', description: 'tenants this worker takes at most (default 10)' },
  ],
  run: async (ctx) => (await import('../actions/fleet-worker.js')).runFleetWorkerCommand(ctx),
};

export const fleetStatusCommand: Command = {
  name: 'status',
  summary: 'tenants, homes, last pass and its result, freshness, failures; workers; budgets',
  usage: 'wbsync fleet status',
  description: [
    'One line per tenant (its home worker, running or idle, its last pass and result, how long ago its last successful pass finished, failed jobs since), per worker (tenants/capacity, heartbeat, live or GONE) and per service with a budget. --json gives it all as one document.',
    'A tenant is failing when its last pass failed, its last successful pass is older than its freshness.maxStalenessMinutes, or it has no live home (no worker took it, or its worker is gone); paused tenants never are. Each failing tenant is listed with why, and the command exits 5 (0 when none is failing).',
  ].join('\n'),
  examples: ['wbsync fleet status', 'wbsync fleet status --json'],
  flags: [],
  run: async (ctx) => (await import('../actions/fleet-worker.js')).runFleetStatusCommand(ctx),
};

export const fleetBudgetCommand: Command = {
  name: 'budget',
  summary: "set one service's shared budget (requests per second, in flight)",
  usage: 'wbsync fleet budget URL [--requests-per-second N] [--in-flight N]',
  description: 'Sets the budget every worker shares for requests to the service at URL (its base URL, as tenants give it); a limit not given keeps its value (unset: fleet.budget.* of each worker). `wbsync fleet status` shows the budgets and their use.',
  examples: ['wbsync fleet budget https://boards.example.com --requests-per-second 50 --in-flight 20'],
  positionals: [{ name: 'URL', description: 'the service base URL', required: true }],
  flags: [
    { name: 'requests-per-second', type: 'number', valueName: 'N', description: 'requests per second to it, fleet-wide (at least 1)' },
    { name: 'in-flight', type: 'number', valueName: 'N', description: 'requests in flight to it, fleet-wide (at least 1)' },
  ],
  run: async (ctx) => (await import('../actions/fleet-worker.js')).runFleetBudgetCommand(ctx),
};
