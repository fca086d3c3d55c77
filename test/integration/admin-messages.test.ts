// Messages that used to send an admin the wrong way (issue 34, item 6): each one as a person meets it.
// Log lines on a terminal; the key file the service user cannot read; `daemon --help`; a syntax
// error in the config file; a webhook given as a string. (The store's messages are tested with it.)

import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { runCliCaptured, tempDir } from '../helpers/harness.js';

const MAIN = new URL('../../dist/cli/main.js', import.meta.url).pathname;

/** What a terminal shows: each line as it stands after its last carriage return and erase-line. */
function screen(text: string): string {
  return text
    .split('\n')
    .map((l) => l.split('\r\x1b[K').pop()!)
    .join('\n');
}

async function onTerminal(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s) => void (out += s), isTTY: true }, stderr: { write: (s) => void (err += s), isTTY: true }, env });
  return { code, out, err: screen(err) };
}

describe('log lines beside a command\'s human output', () => {
  let emu: RunningEmulator;
  const t = tempDir();
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 'demo' });
    env = { WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey };
  });
  afterAll(async () => {
    await emu?.stop();
    t.cleanup();
  });

  it('on a terminal: no JSON, and nothing below warn unless --log-level asks for it', async () => {
    const r = await onTerminal(['sync', '--full', '--db', join(t.dir, 'a.db')], env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^snapshot 1 \(full\) complete/);
    expect(r.err).not.toMatch(/\{"level"/);
    expect(r.err).not.toMatch(/ INFO /);

    const asked = await onTerminal(['sync', '--db', join(t.dir, 'a.db'), '--log-level', 'info'], env);
    expect(asked.code, asked.err).toBe(0);
    expect(asked.err).not.toMatch(/\{"level"/);
    // rendered for a person: time, level, message, fields
    expect(asked.err).toMatch(/^\d\d:\d\d:\d\d INFO pass finished {2}.*kind=incremental/m);
    expect(asked.err).not.toContain(emu.apiKey);
  });

  it('off a terminal (a pipe, the journal, a container log): JSON lines at the configured level, as before', async () => {
    const r = await runCliCaptured(['sync', '--db', join(t.dir, 'a.db')], env);
    expect(r.code, r.err).toBe(0);
    const lines = r.err.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.map((l) => JSON.parse(l) as { msg: string }).map((l) => l.msg)).toContain('pass finished');
  });
});

describe('the key file the service user cannot read', () => {
  const t = tempDir();
  afterAll(() => t.cleanup());

  it('names the user wbsync runs as, who must be able to read it, and shows how', () => {
    const keyFile = join(t.dir, 'wbsync_key');
    writeFileSync(keyFile, 'sekrit-key-value-1234\n', { mode: 0o600 });
    chmodSync(keyFile, 0o000);
    // as root every file is readable: run as uid 1000, the container image's `node`
    const root = process.getuid?.() === 0;
    if (root) chmodSync(t.dir, 0o755);
    const argv = [MAIN, 'snapshots', '--db', join(t.dir, 'x.db')];
    const env = { PATH: process.env.PATH, WBSYNC_API_KEY_FILE: keyFile };
    const r = root
      ? spawnSync('setpriv', ['--reuid=1000', '--regid=1000', '--clear-groups', '--', process.execPath, ...argv], { env, encoding: 'utf8' })
      : spawnSync(process.execPath, argv, { env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(2);
    const uid = root ? 1000 : process.getuid!();
    expect(r.stderr).toContain(`wbsync: cannot read the key file ${keyFile} (EACCES): wbsync runs as `);
    expect(r.stderr).toMatch(new RegExp(`wbsync runs as \\S+ \\(uid ${uid}\\), and that user must be able to read it`));
    expect(r.stderr).toContain(`hint: give it to that user, e.g. chown ${uid} ${keyFile} with mode 0400`);
    expect(r.stderr).not.toContain('sekrit-key-value-1234');
  });
});

describe('help and configuration messages', () => {
  const t = tempDir();
  afterAll(() => t.cleanup());

  it('wbsync daemon --help names the command once', async () => {
    for (const name of ['daemon', 'verify', 'demo']) {
      const r = await runCliCaptured([name, '--help']);
      expect(r.out.split('\n')[0]).toBe(`usage: wbsync ${name} [options]`);
    }
  });

  it('a JSON syntax error in the config file: line and column, and the line itself', async () => {
    const cfg = join(t.dir, 'wbsync.json');
    writeFileSync(cfg, '{\n  "db": "./data/wbsync.db",\n  "schedule": { "incremental": "*/5 * * * *" }\n  "daemon": { "listen": "0.0.0.0:9464" }\n}\n');
    const r = await runCliCaptured(['--config', cfg, 'snapshots']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`wbsync: config file ${cfg} is not valid JSON at line 4, column 3: Expected ',' or '}' after property value`);
    expect(r.err).toContain('\n    "daemon": { "listen": "0.0.0.0:9464" }\n    ^\n');
    expect(r.err).not.toMatch(/position \d+/);
  });

  it('a webhook given as a string: the {"url": …} form', async () => {
    const cfg = join(t.dir, 'hooks.json');
    writeFileSync(cfg, JSON.stringify({ alerts: { webhooks: ['https://hooks.example.com/services/T0/B0/x'] } }));
    const r = await runCliCaptured(['--config', cfg, 'snapshots']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('alerts.webhooks.0: Invalid input: expected object, received string; each item is an object: {"url": "https://hooks.example.com/…", "format": "json"}');
    // the URL is a secret: not echoed
    expect(r.err).not.toContain('services/T0/B0');
  });
});
