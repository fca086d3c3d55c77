// Starts `wbsync emulator` as a child process and reads its ready line; stops it by pid.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface EmulatorChild {
  baseUrl: string;
  apiKey: string;
  users: Array<{ id: string; email: string; apiKey: string }>;
  /** The child's pid. */
  pid: number;
  stop(): Promise<void>;
}

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export async function startEmulatorChild(args: string[]): Promise<EmulatorChild> {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'emulator', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`emulator exited early (${code})`)));
  });
  const line = JSON.parse(ready) as Omit<EmulatorChild, 'stop' | 'pid'>;
  return {
    ...line,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
