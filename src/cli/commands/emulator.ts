// `wbsync emulator`: the bundled in-memory service emulator, for trying wbsync and for tests.

import type { Command } from '../command.js';

export const emulatorCommand: Command = {
  name: 'emulator',
  summary: 'run the bundled service emulator on loopback (in memory)',
  usage: 'wbsync emulator --port P [--host 127.0.0.1] [--api-key KEY] [--seed none|demo|small|large] [--dialect spec|observed] [--latency-ms N] [--fail-rate R]',
  description:
    'Serves the whole Workspace Board Service interface in memory. When ready it prints one JSON line:\n' +
    '{"baseUrl", "apiKey", "users": [{"id", "email", "apiKey"}, ...]}. Stop it with SIGTERM or Ctrl-C.\n' +
    '`spec` follows the published interface; `observed` the deployed service\'s real behaviour.\n' +
    'GET {baseUrl}/api (no key) describes every route: request, response, what each dialect does\n' +
    'differently (JSON; a browser gets a page). The same table is docs/emulator.md.',
  examples: ['wbsync emulator --seed demo --port 4010', 'wbsync emulator --seed large --dialect observed --latency-ms 20 --port 0'],
  allowSecretFlags: true,
  flags: [
    { name: 'port', type: 'number', valueName: 'P', description: 'port to listen on (0 = any free port)' },
    { name: 'host', type: 'string', valueName: 'HOST', description: 'address to bind (default 127.0.0.1)' },
    { name: 'api-key', type: 'string', valueName: 'KEY', description: "the first user's key (an emulator-only fake key)" },
    { name: 'seed', type: 'string', valueName: 'NAME', description: 'none | demo | small | large (default none)' },
    { name: 'dialect', type: 'string', valueName: 'NAME', description: 'spec | observed (default spec)' },
    { name: 'latency-ms', type: 'number', valueName: 'N', description: 'added latency per request' },
    { name: 'fail-rate', type: 'number', valueName: 'R', description: 'probability 0..1 of a random 500/503/reset' },
    { name: 'records', type: 'number', valueName: 'N', description: 'large seed: records per module' },
    { name: 'modules', type: 'number', valueName: 'N', description: 'large seed: modules per workspace' },
  ],
  run: async (ctx) => (await import('../actions/emulator.js')).runEmulatorCommand(ctx),
};
