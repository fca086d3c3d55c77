import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../store/index.js';
import { runCli, terminalLogLevel } from './run.js';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s) => void (out += s) }, stderr: { write: (s) => void (err += s) }, env: {} });
  return { code, out, err };
}

describe('--json: stdout is exactly one JSON document', () => {
  it('for help, a usage error, a missing command and a command run, with the global flag before or after', async () => {
    const help = await cli(['--json', 'sync', '--help']);
    expect(help.code).toBe(0);
    expect(JSON.parse(help.out).help).toMatch(/^usage: wbsync sync/);

    const bad = await cli(['sync', '--ful', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.out)).toMatchObject({ error: { code: 'usage', message: "unknown flag --ful for 'sync'; did you mean --full?" }, exitCode: 2 });
    expect(bad.err).toContain('wbsync: unknown flag --ful');

    const none = await cli(['--json']);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.out).error.message).toBe('no command given');
    expect(none.err).toMatch(/^usage: wbsync /);

    const dir = mkdtempSync(join(tmpdir(), 'wbsync-run-'));
    try {
      openStore(join(dir, 'x.db')).close();
      for (const argv of [['--json', '--db', join(dir, 'x.db'), 'snapshots'], ['snapshots', '--db', join(dir, 'x.db'), '--json']]) {
        const r = await cli(argv);
        expect(r.code, r.err).toBe(0);
        expect(JSON.parse(r.out)).toEqual({ snapshots: [] });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('log level on a terminal', () => {
  it('keeps lines below warn out of a command\'s output unless asked; the daemon and pipes keep the configured level', () => {
    expect(terminalLogLevel('info', { terminal: true, asked: false, logsAreTheOutput: false })).toBe('warn');
    expect(terminalLogLevel('debug', { terminal: true, asked: false, logsAreTheOutput: false })).toBe('warn');
    expect(terminalLogLevel('error', { terminal: true, asked: false, logsAreTheOutput: false })).toBe('error');
    expect(terminalLogLevel('info', { terminal: true, asked: true, logsAreTheOutput: false })).toBe('info');
    expect(terminalLogLevel('info', { terminal: true, asked: false, logsAreTheOutput: true })).toBe('info');
    expect(terminalLogLevel('info', { terminal: false, asked: false, logsAreTheOutput: false })).toBe('info');
  });
});
