import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../run.js';

const dir = mkdtempSync(join(tmpdir(), 'wbsync-rollback-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** rollback against a database that does not exist: a usage error must come before anything opens. */
async function rollback(...flags: string[]): Promise<{ code: number; err: string; db: string }> {
  const db = join(dir, `never-${Math.random().toString(36).slice(2)}.db`);
  let err = '';
  const code = await runCli(['rollback', ...flags, '--db', db], { stdout: { write: () => undefined }, stderr: { write: (s) => void (err += s) }, env: {} });
  return { code, err, db };
}

describe('rollback: the command words every usage error, before opening the database or the service', () => {
  it.each([
    [['--module', 'm1'], 'rollback needs exactly one of --to-snapshot N or --to TIME'],
    [['--module', 'm1', '--to-snapshot', '2', '--to', '2026-11-24T09:00:00Z'], 'rollback needs exactly one of --to-snapshot N or --to TIME'],
    [['--module', 'm1', '--to', 'yesterday'], "--to wants a time (ISO 8601, e.g. 2026-11-24T09:00:00Z), got 'yesterday'"],
    [['--module', 'm1', '--to-snapshot', '2', '--kinds', 'cells,rows'], "--kinds: unknown kind 'rows'"],
    [['--module', 'm1', '--to-snapshot', '2', '--changed-between', '2026-11-24T10:00:00Z', '2026-11-24T09:00:00Z'], '--changed-between wants two times, the earlier first (got 2026-11-24T10:00:00Z 2026-11-24T09:00:00Z)'],
  ])('%j', async (flags, message) => {
    const r = await rollback(...flags);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`wbsync: ${message}\n`);
    expect(existsSync(r.db)).toBe(false);
  });

  it('diff takes --kinds through the same check', async () => {
    let err = '';
    const code = await runCli(['diff', '--module', 'm1', '--kinds', 'cells,rows', '--db', join(dir, 'none.db')], { stdout: { write: () => undefined }, stderr: { write: (s) => void (err += s) }, env: {} });
    expect(code).toBe(2);
    expect(err).toContain("wbsync: --kinds: unknown kind 'rows'\nhint: kinds are cells, records, columns, collections, amendments\n");
  });
});
