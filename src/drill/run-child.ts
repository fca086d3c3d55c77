// Starts a drill in a child process (child.ts) and reads its one JSON line: what the daemon's
// schedule and the benchmark use. The child is stopped by its pid when the signal aborts.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WbsyncError } from '../domain/errors.js';
import type { ChildInput, ChildOutput } from './child.js';
import { NODE_FLAGS } from '../config/heap-policy.js';

function childScript(): string {
  const here = fileURLToPath(new URL('./child.js', import.meta.url));
  if (fs.existsSync(here)) return here;
  // running from the TypeScript sources (vitest): the compiled child (`npm test` builds first)
  const built = fileURLToPath(new URL('../../dist/drill/child.js', import.meta.url));
  if (fs.existsSync(built)) return built;
  throw new WbsyncError('internal', 'the drill process (drill/child.js) is missing', { hint: 'run `npm run build`' });
}

export async function runDrillInChild(input: ChildInput, opts: { signal?: AbortSignal } = {}): Promise<ChildOutput & { wallMs: number }> {
  const started = Date.now();
  // the child needs no secret: the service's key and the offsite credentials stay in this process
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WBSYNC_') && !k.startsWith('AWS_')));
  const proc = spawn(process.execPath, [...NODE_FLAGS, childScript(), JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
  const stop = (): void => {
    if (proc.pid && proc.exitCode === null) process.kill(proc.pid, 'SIGTERM');
  };
  opts.signal?.addEventListener('abort', stop, { once: true });
  try {
    const code = await new Promise<number | string>((resolve, reject) => {
      proc.once('error', reject);
      proc.once('exit', (c, s) => resolve(c ?? s ?? -1));
    });
    const line = out.trim().split('\n').pop() ?? '';
    try {
      return { ...(JSON.parse(line) as ChildOutput), wallMs: Date.now() - started };
    } catch {
      throw new WbsyncError('internal', `the drill process ended (${code}) without a result: ${err.trim().split('\n').pop() ?? ''}`);
    }
  } finally {
    opts.signal?.removeEventListener('abort', stop);
  }
}
