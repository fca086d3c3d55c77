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
  const shutdown = (): void => {
    emu.stop().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  // Stopping in-process (tests) must not leave signal handlers that would exit the host later.
  const stop = emu.stop.bind(emu);
  emu.stop = async () => {
    process.off('SIGTERM', shutdown);
    process.off('SIGINT', shutdown);
    await stop();
  };
  return emu;
}
