// `wbsync emulator`: start on a real clock, print one JSON ready line, stop cleanly on a signal.

import { startEmulator } from './emulator.js';
import type { EmulatorOptions, ReadyLine, RunningEmulator } from './types.js';

export async function runEmulatorCommand(opts: EmulatorOptions, stdout: NodeJS.WritableStream): Promise<RunningEmulator> {
  const emu = await startEmulator({ ...opts, clockMode: opts.clockMode ?? 'real' });
  const ready: ReadyLine = {
    baseUrl: emu.baseUrl,
    apiKey: emu.apiKey,
    users: emu.users.map((u) => ({ id: u.id, email: u.email, apiKey: u.apiKey })),
  };
  stdout.write(JSON.stringify(ready) + '\n');
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    emu.stop().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  return emu;
}
