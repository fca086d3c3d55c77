// `wbsync emulator`: the bundled in-memory service emulator, for trying wbsync and for tests.
// What it does, loaded only when it runs (its help and flags: ../commands/emulator.ts).

import { WbsyncError } from '../../domain/errors.js';
import { runEmulatorCommand as startEmulatorProcess } from '../../emulator/command.js';
import type { Dialect, SeedName } from '../../emulator/types.js';
import { stringFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';

const SEEDS: SeedName[] = ['none', 'demo', 'small', 'large'];
const DIALECTS: Dialect[] = ['spec', 'observed'];

function numberFlag(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || v < min || v > max) {
    throw new WbsyncError('usage', `--${name} must be a number from ${min} to ${max}`, { hint: "see 'wbsync emulator --help'" });
  }
  return v;
}

export async function runEmulatorCommand(ctx: CommandContext): Promise<number> {
  const f = ctx.args.flags;
  const seed = (stringFlag(f, 'seed') ?? 'none') as SeedName;
  if (!SEEDS.includes(seed)) throw new WbsyncError('usage', `--seed must be one of ${SEEDS.join(', ')}`, { hint: "see 'wbsync emulator --help'" });
  const dialect = (stringFlag(f, 'dialect') ?? 'spec') as Dialect;
  if (!DIALECTS.includes(dialect)) throw new WbsyncError('usage', `--dialect must be spec or observed`, { hint: "see 'wbsync emulator --help'" });
  const port = numberFlag(f.port, 'port', 0, 65535);
  if (port === undefined) throw new WbsyncError('usage', 'emulator needs --port P (0 for any free port)', { hint: "see 'wbsync emulator --help'" });
  const records = numberFlag(f.records, 'records', 1, 100_000);
  const modules = numberFlag(f.modules, 'modules', 1, 1000);
  const emu = await startEmulatorProcess(
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
}
