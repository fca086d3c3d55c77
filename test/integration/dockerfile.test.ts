// No Docker engine runs here, so this checks what can be checked without one: the Dockerfile names
// only paths that exist in the build, and the runtime stage's command line (same entrypoint, same
// environment variables, the key from WBSYNC_API_KEY_FILE) works outside Docker, healthcheck included.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { tempDir } from '../helpers/harness.js';
import { NODE_FLAGS } from '../../src/config/heap-policy.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const lines = DOCKERFILE.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
const stages = DOCKERFILE.split(/^FROM /m).slice(1).map((s) => `FROM ${s}`);
const runtime = stages.find((s) => /AS runtime/.test(s.split('\n')[0]))!;

function envOf(stage: string): Record<string, string> {
  const env: Record<string, string> = {};
  const block = stage.match(/^ENV ([\s\S]*?)(?=^\S)/m)?.[1] ?? '';
  for (const m of block.matchAll(/(\w+)=(\S+)/g)) env[m[1]] = m[2].replace(/\\$/, '');
  return env;
}

describe('Dockerfile', () => {
  it('is multi-stage: a build stage with dev dependencies, a slim LTS runtime, non-root, /data volume', () => {
    expect(stages.length).toBe(2);
    expect(stages[0]).toMatch(/^FROM node:24-bookworm-slim AS build/);
    expect(stages[0]).toContain('npm ci');
    expect(stages[0]).toContain('npm prune --omit=dev');
    expect(runtime).toMatch(/^FROM node:24-bookworm-slim AS runtime/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toContain('VOLUME ["/data"]');
    expect(runtime).toContain('ENTRYPOINT ["wbsync"]');
    expect(runtime).toContain('CMD ["daemon"]');
    expect(runtime).toMatch(/HEALTHCHECK[\s\S]*\/healthz/);
    expect(envOf(runtime)).toMatchObject({ WBSYNC_DB: '/data/wbsync.db', WBSYNC_API_KEY_FILE: '/run/secrets/wbsync_key' });
    expect(DOCKERFILE).not.toMatch(/WBSYNC_API_KEY=/);
  });

  it('listens on all interfaces of the container on the port it exposes, with no config file', () => {
    const listen = envOf(runtime).WBSYNC_DAEMON_LISTEN;
    expect(listen).toBe('0.0.0.0:9464');
    expect(runtime).toMatch(new RegExp(`^EXPOSE ${listen!.split(':')[1]}$`, 'm'));
    // the healthcheck asks the same port from inside
    expect(runtime).toMatch(new RegExp(`HEALTHCHECK[\\s\\S]*127\\.0\\.0\\.1:${listen!.split(':')[1]}/healthz`));
    expect(runtime).not.toMatch(/WBSYNC_CONFIG/);
  });

  it('copies only paths that exist in the build context and the build stage', () => {
    for (const l of lines.filter((x) => x.startsWith('COPY'))) {
      const parts = l.split(/\s+/).slice(1).filter((p) => !p.startsWith('--'));
      const sources = parts.slice(0, -1);
      for (const src of sources) {
        // build stage: from the repository; runtime stage: from /app of the build stage
        const rel = src.replace(/^\/app\//, '').replace(/^\.\//, '');
        expect(existsSync(join(ROOT, rel)), `${l}: ${src}`).toBe(true);
      }
    }
    // the entrypoint's target exists after `npm run build` and is executable by its first lines
    // (sh, which runs node with NODE_FLAGS: see src/cli/main.ts)
    expect(readFileSync(join(ROOT, 'dist/cli/main.js'), 'utf8').split('\n').slice(0, 2)).toEqual(['#!/bin/sh', `//bin/sh -c :; exec /usr/bin/env node ${NODE_FLAGS.join(' ')} "$0" "$@"`]);
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8')).toMatch(/^node_modules$/m);
  });
});

describe('the runtime command line outside Docker', () => {
  let emu: RunningEmulator;
  let daemon: ChildProcess | undefined;
  const t = tempDir();
  afterAll(async () => {
    if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
    await emu?.stop();
    t.cleanup();
  });

  it('wbsync daemon with the image environment syncs, answers the HEALTHCHECK, and stops on SIGTERM', async () => {
    emu = await startEmulator({ seed: 'demo' });
    const env = envOf(runtime);
    // the image's paths, moved under a temporary root
    const keyFile = join(t.dir, env.WBSYNC_API_KEY_FILE.replace(/\//g, '_'));
    writeFileSync(keyFile, `${emu.apiKey}\n`, { mode: 0o600 });
    // no config file: the schedule and the listener from the environment as the image sets it (on
    // loopback and a free port here, a shared machine)
    const procEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: env.NODE_ENV,
      WBSYNC_DB: join(t.dir, env.WBSYNC_DB),
      WBSYNC_API_KEY_FILE: keyFile,
      WBSYNC_BASE_URL: emu.baseUrl,
      WBSYNC_DAEMON_LISTEN: env.WBSYNC_DAEMON_LISTEN!.replace(/^0\.0\.0\.0:\d+$/, '127.0.0.1:0'),
      WBSYNC_SCHEDULE_INCREMENTAL: '*/1 * * * * *',
    };
    expect(procEnv.WBSYNC_DAEMON_LISTEN).toBe('127.0.0.1:0');
    // ENTRYPOINT ["wbsync"] + CMD ["daemon"]: /usr/local/bin/wbsync links to dist/cli/main.js
    daemon = spawn(join(ROOT, 'dist/cli/main.js'), ['daemon'], { env: procEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line:\n${err}`)), 15_000);
      daemon!.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        const addr = err.split('\n').map((l) => { try { return JSON.parse(l) as { msg?: string; address?: string }; } catch { return {}; } }).find((l) => l.msg === 'listening');
        if (addr?.address) {
          clearTimeout(timer);
          resolve(Number(String(addr.address).split(':').pop()));
        }
      });
    });
    // the HEALTHCHECK's own command, pointed at the bound port
    const check = runtime.match(/CMD \["node", "-e", "(.*)"\]\s*$/m)![1].replace(/\\"/g, '"').replace('9464', String(port));
    let healthy = false;
    for (let i = 0; i < 50 && !healthy; i++) {
      healthy = spawnSync(process.execPath, ['-e', check]).status === 0;
      if (!healthy) await new Promise((r) => setTimeout(r, 200));
    }
    expect(healthy).toBe(true);
    expect(err).not.toContain(emu.apiKey);
    const exited = new Promise<number | null>((r) => daemon!.once('exit', (c) => r(c)));
    daemon.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
