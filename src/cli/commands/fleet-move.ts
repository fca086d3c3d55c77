// `wbsync fleet drain WORKER` and `wbsync fleet adopt TENANT --to WORKER`: moving tenants between
// workers with their history (src/fleet/move.ts says how).

import type { Command } from '../command.js';

export const fleetDrainCommand: Command = {
  name: 'drain',
  summary: 'move every tenant off a worker, with its history (it takes no new ones)',
  usage: 'wbsync fleet drain WORKER [--wait SECONDS] [--undo]',
  description: [
    'Marks WORKER draining: it takes no tenant, and each tenant homed on it moves to the live worker',
    'with the most room. Its home stops it between passes, writes a fleet copy of its database (every',
    'snapshot) encrypted to fleet.copyRecipient, and hands the home over with a new epoch; the new home',
    'places the copy (SHA-256 and verify checked) and carries on from it. --wait SECONDS: wait until',
    'every move has ended. --undo: let the worker take tenants again (moves already made stay).',
  ].join('\n'),
  examples: ['wbsync fleet drain worker-2 --wait 600'],
  positionals: [{ name: 'WORKER', description: 'the worker to empty', required: true }],
  flags: [
    { name: 'wait', type: 'number', valueName: 'SECONDS', description: 'wait up to SECONDS for the moves to end' },
    { name: 'undo', type: 'boolean', description: 'stop draining: the worker takes tenants again' },
  ],
  run: async (ctx) => (await import('../actions/fleet-move.js')).runFleetDrainCommand(ctx),
};

export const fleetAdoptCommand: Command = {
  name: 'adopt',
  summary: 'bring a tenant whose worker is gone up on another, from its latest fleet copy',
  usage: 'wbsync fleet adopt TENANT --to WORKER',
  description: [
    'For a tenant whose home worker has gone (no heartbeat within fleet.workerTtlSeconds) and will not',
    'come back with its volume: homes it on WORKER with a new epoch (the old home, should it return,',
    'no longer runs it) from the latest fleet copy, and says what the gap is — the passes the old home',
    'made after that copy, lost with its volume. The first pass on WORKER is a full pass, to cover it.',
    'Refused while the home is alive: use `wbsync fleet drain` to move a tenant with all its history.',
  ].join('\n'),
  examples: ['wbsync fleet adopt acme --to worker-3'],
  positionals: [{ name: 'TENANT', description: 'the tenant', required: true }],
  flags: [{ name: 'to', type: 'string', valueName: 'WORKER', description: 'the worker that takes it (alive, not draining)' }],
  run: async (ctx) => (await import('../actions/fleet-move.js')).runFleetAdoptCommand(ctx),
};
