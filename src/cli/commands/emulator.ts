// `wbsync emulator`: the bundled in-memory service emulator, for trying wbsync and for tests.

import { WbsyncError } from '../../domain/errors.js';
import { runEmulatorCommand } from '../../emulator/command.js';
import type { Dialect, SeedName } from '../../emulator/types.js';
import { stringFlag } from '../flag-values.js';
import type { Command } from '../command.js';

const SEEDS: SeedName[] = ['none', 'demo', 'small', 'large'];
const DIALECTS: Dialect[] = ['spec', 'observed'];

function numberFlag(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || v < min || v > max) {
    throw new WbsyncError('usage', `--${name} must be a number from ${min} to ${max}`, { hint: "see 'wbsync emulator --help'" });
  }
  return v;
}

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
  async run(ctx) {
    const f = ctx.args.flags;
    const seed = (stringFlag(f, 'seed') ?? 'none') as SeedName;
    if (!SEEDS.includes(seed)) throw new WbsyncError('usage', `--seed must be one of ${SEEDS.join(', ')}`, { hint: "see 'wbsync emulator --help'" });
    const dialect = (stringFlag(f, 'dialect') ?? 'spec') as Dialect;
    if (!DIALECTS.includes(dialect)) throw new WbsyncError('usage', `--dialect must be spec or observed`, { hint: "see 'wbsync emulator --help'" });
    const port = numberFlag(f.port, 'port', 0, 65535);
    if (port === undefined) throw new WbsyncError('usage', 'emulator needs --port P (0 for any free port)', { hint: "see 'wbsync emulator --help'" });
    const records = numberFlag(f.records, 'records', 1, 100_000);
    const modules = numberFlag(f.modules, 'modules', 1, 1000);
    const emu = await runEmulatorCommand(
      {
        port,
        host: stringFlag(f, 'host') ?? '127.0.0.1',
        apiKey: stringFlag(f, 'api-key'),
        seed,
        dialect,
        latencyMs: numberFlag(f['latency-ms'], 'latency-ms', 0, 600_000),
        failRate: numberFlag(f['fail-rate'], 'fail-rate', 0, 1),
        seedParams: { ...(records ? { records } : {}), ...(modules ? { modules } : {}) },
      },
      { write: (s: string) => ctx.stdout.write(s) } as unknown as NodeJS.WritableStream,
    );
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await emu.stop();
    return 0;
  },
};
