// The bad day as a person lives it, shared by the incident journeys: a real daemon (child process)
// on a short schedule over the emulator (real clock), a webhook receiver on 127.0.0.1, three
// members (Ada holds wbsync's key; Grace and Alan edit), the CLI run from an argument vector taken
// from an alert (split into shell words here, never through a shell).

import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import type { Dialect, RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf, tempDir } from '../helpers/harness.js';
import { startDaemon, writeConfig, type DaemonChild } from './daemon-harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');

export type Alert = Record<string, any>;

export interface Receiver {
  url: string;
  alerts(event?: string): Alert[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    alerts: (event) => bodies.map((b) => JSON.parse(b) as Alert).filter((a) => !event || a.event === event),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** POSIX shell words of a line (plain words, single quotes, backslash escapes): no shell is run. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${line}`);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      cur = (cur ?? '') + (line[++i] ?? '');
    } else if (c === ' ' || c === '\t') {
      if (cur !== null) words.push(cur);
      cur = null;
    } else if (/[;&|<>()$`"*?]/.test(c)) {
      throw new Error(`a shell would treat ${c} specially in ${line}`);
    } else cur = (cur ?? '') + c;
  }
  if (cur !== null) words.push(cur);
  return words;
}

export interface Journey {
  emu: RunningEmulator;
  rx: Receiver;
  daemon: DaemonChild;
  port: number;
  db: string;
  config: string;
  workspaceId: string;
  /** users: ada (wbsync's key), grace, alan */
  keys: { ada: string; grace: string; alan: string };
  passes(): number;
  /** Resolves after `n` more passes finished. */
  morePasses(n: number, timeoutMs?: number): Promise<void>;
  /** Runs the CLI (an argv whose first word is `wbsync`) with the daemon's config and key; a child
   * process, waited for without blocking (the emulator lives in this process). */
  cli(argv: string[]): Promise<{ status: number | null; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export async function startJourney(dialect: Dialect, name: string): Promise<Journey> {
  const emu = await startEmulator({ dialect, seed: 'demo', clockMode: 'real' });
  const rx = await startReceiver();
  const t = tempDir(`wbsync-journey-${name}-`);
  const workspaceId = dumpOf(emu).workspaces[0]!._id as string;
  // Alan joins, so three people can edit (Ada's key is wbsync's)
  const [ada, grace, alan] = emu.users;
  const joined = await api(emu, 'POST', `/workspace-members/${workspaceId}`, { userId: alan!.id, role: 'member' });
  if (joined.status !== 201) throw new Error(`could not add Alan: ${JSON.stringify(joined.body)}`);
  const db = join(t.dir, 'wbsync.db');
  const config = writeConfig(t.dir, name, {
    db,
    // every 4 s: the writes of one step land between two passes
    incremental: '*/4 * * * * *',
    extra: { alerts: { webhooks: [{ url: rx.url, format: 'json' }], timeoutMs: 2000 }, tripwire: { minCells: 5, minRecords: 5 } },
  });
  const daemon = startDaemon(config, emu.baseUrl, emu.apiKey);
  const port = await daemon.port();
  const passes = (): number => daemon.lines.filter((l) => l.msg === 'pass finished').length;
  const morePasses = async (n: number, timeoutMs = 30_000): Promise<void> => {
    const target = passes() + n;
    await daemon.waitForLog(() => passes() >= target, timeoutMs, `${n} more passes`);
  };
  await morePasses(2);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WBSYNC_')) env[k] = v;
  Object.assign(env, { WBSYNC_CONFIG: config, WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey, WBSYNC_LOG_LEVEL: 'warn' });
  return {
    emu,
    rx,
    daemon,
    port,
    db,
    config,
    workspaceId,
    keys: { ada: ada!.apiKey, grace: grace!.apiKey, alan: alan!.apiKey },
    passes,
    morePasses,
    cli(argv) {
      if (argv[0] !== 'wbsync') throw new Error(`not a wbsync command: ${argv.join(' ')}`);
      const child = spawn(process.execPath, [MAIN, ...argv.slice(1)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (x: string) => (stdout += x));
      child.stderr.setEncoding('utf8').on('data', (x: string) => (stderr += x));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      return new Promise((res) =>
        child.once('close', (code) => {
          clearTimeout(timer);
          res({ status: code, stdout, stderr });
        }),
      );
    },
    async close() {
      await rx.close();
      await emu.stop();
      t.cleanup();
    },
  };
}
