// A hostile service (or anything between it and wbsync) sends ids shaped like shell commands: a
// real HTTP proxy on 127.0.0.1 rewrites one module's id, or one record's id, to
// `x$(touch${IFS}<dir>/PWNED)` in every answer. `wbsync sync` refuses those answers and reports
// them (naming the endpoint and the field), stores nothing of them, and nothing runs.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { openStore } from '../../src/store/index.js';
import { startProxy, type RunningProxy } from '../helpers/fault-kit.js';
import { makeHarness, runCliCaptured, view, type Harness } from '../helpers/harness.js';

/** Every byte of a database folder (main file, WAL, journal), as text to search. */
function bytesOf(dir: string, name: string): string {
  return readdirSync(dir)
    .filter((f) => f.startsWith(name))
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('\n');
}

describe.each(['spec', 'observed'] as Dialect[])('ids shaped like shell commands (%s dialect)', (dialect) => {
  let h: Harness;
  let proxy: RunningProxy;
  beforeAll(async () => {
    h = await makeHarness(dialect, { randomSeed: 32 });
    proxy = await startProxy(h.emu.baseUrl);
  });
  afterAll(async () => {
    await proxy?.stop();
    await h?.close();
  });

  const sync = async (name: string): Promise<{ code: number; out: string; err: string; db: string }> => {
    const db = join(h.dir, `${name}.db`);
    const r = await runCliCaptured(['sync', '--full', '--db', db], { WBSYNC_BASE_URL: proxy.baseUrl, WBSYNC_API_KEY: h.emu.apiKey, WBSYNC_LOG_LEVEL: 'silent' });
    return { ...r, db };
  };

  it.each([
    ['a module id', (d: ReturnType<Harness['emu']['dump']>) => (d.modules.find((m) => !m.isDeleted) as { _id: string })._id, /modules|_id|module/],
    ['a record id', (d: ReturnType<Harness['emu']['dump']>) => (d.records.find((r) => !r.isDeleted && !r.isArchived && !r.parentRecord) as { _id: string })._id, /record/],
  ])('%s: refused and reported, nothing stored, nothing run', async (what, pick, named) => {
    const marker = join(h.dir, `PWNED-${what.replace(/\W/g, '')}`);
    const hostile = `x$(touch\${IFS}${marker})`;
    const id = pick(h.emu.dump());
    proxy.setRewrite((_req, body) => (body.includes(id) ? body.split(id).join(hostile) : undefined));
    try {
      const r = await sync(`hostile-${what.replace(/\W/g, '')}`);
      expect(proxy.rewritten.length).toBeGreaterThan(0);
      const said = r.out + r.err;
      expect(r.code, said).not.toBe(0);
      // refused and reported: the failing endpoint and field are named, the run does not end clean
      expect(said).toMatch(/GET \/[a-z]+[^\n]*: unexpected response shape at [^\n]*expected an id of letters, digits/);
      expect(said).toMatch(named);
      expect(said).not.toContain(hostile);
      // nothing stored: not a byte of it in the database, not a row naming it
      expect(bytesOf(h.dir, `hostile-${what.replace(/\W/g, '')}.db`)).not.toContain('PWNED');
      if (existsSync(r.db)) {
        const s = openStore(r.db, { readonly: true });
        try {
          for (const v of ['modules', 'records', 'cells', 'activity']) expect(view(s, v, 'WHERE id = ? OR id = ?', [hostile, id]), v).toEqual([]);
        } finally {
          s.close();
        }
      }
      // nothing ran
      expect(existsSync(marker)).toBe(false);
    } finally {
      proxy.setRewrite(null);
    }
  });

  it('with the proxy passing answers through, the same sync completes (the refusal was the ids)', async () => {
    const r = await sync('clean');
    expect(r.code, r.err).toBe(0);
    const s = openStore(r.db, { readonly: true });
    try {
      expect(view(s, 'modules').length).toBeGreaterThan(0);
    } finally {
      s.close();
    }
  });
});
