// `wbsync fleet tenant ...` against a real Postgres: the registry, its refusals (nothing changed,
// no secret accepted), and the Postgres URL never printed. `wbsync fleet status`'s exit code: 5
// with each failing tenant and why (no live home, last pass failed, stale), 0 when none is.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliCaptured, tempDir } from '../helpers/harness.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';

describe('fleet tenant registry', () => {
  let pgs: RunningPostgres;
  const tmp = tempDir('wbsync-fleet-tenants-');
  const cfg = join(tmp.dir, 'fleet.json');
  const cli = (...argv: string[]) => runCliCaptured(['--config', cfg, ...argv]);
  const password = (): string => new URL(pgs.url).password;

  beforeAll(async () => {
    pgs = await startPostgres();
    writeFileSync(cfg, JSON.stringify({ fleet: { postgresUrlFile: pgs.urlFile } }), { mode: 0o600 });
  }, 120_000);
  afterAll(async () => {
    await pgs?.destroy();
    tmp.cleanup();
  });

  it('adds, lists, pauses, resumes and removes tenants', async () => {
    const settings = join(tmp.dir, 'acme.json');
    writeFileSync(settings, JSON.stringify({ schedule: { incremental: '*/10 * * * * *' }, workspaces: { exclude: ['w9'] } }));
    const a = await cli('fleet', 'tenant', 'add', 'acme', '--base-url', 'http://127.0.0.1:1/', '--tenant-config', settings);
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    expect((await cli('fleet', 'tenant', 'add', 'beta', '--base-url', 'https://boards.example.com')).code).toBe(0);
    const dup = await cli('fleet', 'tenant', 'add', 'acme', '--base-url', 'https://boards.example.com');
    expect(dup.code).toBe(2);
    expect(dup.err).toMatch(/tenant acme already exists/);

    const listed = await cli('fleet', 'tenant', 'list', '--json');
    expect(listed.code).toBe(0);
    const doc = JSON.parse(listed.out) as { tenants: Array<{ name: string; baseUrl: string; config: Record<string, unknown>; paused: boolean }> };
    expect(doc.tenants.map((t) => t.name)).toEqual(['acme', 'beta']);
    expect(doc.tenants[0]!.baseUrl).toBe('http://127.0.0.1:1');
    expect(doc.tenants[0]!.config).toEqual({ schedule: { incremental: '*/10 * * * * *' }, workspaces: { exclude: ['w9'] } });

    expect((await cli('fleet', 'tenant', 'pause', 'beta')).code).toBe(0);
    expect((await pgs.query<{ paused: boolean }>(`select paused from wbsync_fleet.tenants where name = 'beta'`))[0]!.paused).toBe(true);
    expect((await cli('fleet', 'tenant', 'resume', 'beta')).code).toBe(0);
    expect((await pgs.query<{ paused: boolean }>(`select paused from wbsync_fleet.tenants where name = 'beta'`))[0]!.paused).toBe(false);
    const rm = await cli('fleet', 'tenant', 'remove', 'beta');
    expect(rm.code).toBe(0);
    expect((await cli('fleet', 'tenant', 'remove', 'beta')).err).toMatch(/no tenant named "beta"/);
    expect((await pgs.query(`select name from wbsync_fleet.tenants`)).map((r) => r.name)).toEqual(['acme']);
  }, 60_000);

  it('refuses bad names, URLs and secret settings, changing nothing', async () => {
    const before = await pgs.query(`select name from wbsync_fleet.tenants order by name`);
    const badName = await cli('fleet', 'tenant', 'add', 'Bad;rm -rf', '--base-url', 'https://x.example.com');
    expect(badName.code).toBe(2);
    expect(badName.err).toMatch(/tenant name .* is not allowed/);
    const withPassword = await cli('fleet', 'tenant', 'add', 'gamma', '--base-url', 'https://user:pw@x.example.com');
    expect(withPassword.err).toMatch(/must not hold a user or password/);
    const secret = join(tmp.dir, 'secret.json');
    writeFileSync(secret, JSON.stringify({ apiKeyFile: '/k', alerts: { webhooks: [{ url: 'https://hooks.example.com/T0KEN' }] }, db: '/elsewhere.db' }));
    const refused = await cli('fleet', 'tenant', 'add', 'gamma', '--base-url', 'https://x.example.com', '--tenant-config', secret);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/apiKeyFile: not a tenant setting/);
    expect(refused.err).toMatch(/alerts\.webhooks: a secret/);
    expect(refused.err).toMatch(/db: not a tenant setting/);
    expect(refused.err).not.toContain('T0KEN');
    const invalid = join(tmp.dir, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ schedule: { incremental: 'every now and then' } }));
    const inv = await cli('fleet', 'tenant', 'add', 'gamma', '--base-url', 'https://x.example.com', '--tenant-config', invalid);
    expect(inv.err).toMatch(/schedule\.incremental: not a valid cron expression/);
    expect(await pgs.query(`select name from wbsync_fleet.tenants order by name`)).toEqual(before);
  }, 60_000);

  it('never prints the Postgres URL or its password', async () => {
    // a wrong password: the failure names the problem, not the secret
    const wrongFile = join(tmp.dir, 'wrong-url');
    writeFileSync(wrongFile, pgs.url.replace(password(), 'Wr0ngSecretPw'), { mode: 0o600 });
    const wrongCfg = join(tmp.dir, 'wrong.json');
    writeFileSync(wrongCfg, JSON.stringify({ fleet: { postgresUrlFile: wrongFile } }));
    const r = await runCliCaptured(['--config', wrongCfg, 'fleet', 'tenant', 'list']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/password authentication failed/);
    expect(r.err).not.toContain('Wr0ngSecretPw');
    // down: refused connection, the URL not shown
    const downFile = join(tmp.dir, 'down-url');
    writeFileSync(downFile, pgs.url.replace(`:${pgs.port}/`, ':1/'), { mode: 0o600 });
    writeFileSync(wrongCfg, JSON.stringify({ fleet: { postgresUrlFile: downFile } }));
    const d = await runCliCaptured(['--config', wrongCfg, 'fleet', 'tenant', 'list']);
    expect(d.code).toBe(4);
    expect(d.err).not.toContain(password());
    const none = await runCliCaptured(['fleet', 'tenant', 'list']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/fleet\.postgresUrlFile: no Postgres URL file is configured/);
  }, 60_000);

  it('fleet status exits 5 naming each failing tenant and why, 0 when none is failing', async () => {
    const S = 'wbsync_fleet';
    await pgs.query(`delete from ${S}.tenants`);
    const settings = join(tmp.dir, 'tight.json');
    writeFileSync(settings, JSON.stringify({ freshness: { maxStalenessMinutes: 1 } }));
    for (const name of ['acme', 'beta', 'gamma']) expect((await cli('fleet', 'tenant', 'add', name, '--base-url', 'https://boards.example.com')).code).toBe(0);
    expect((await cli('fleet', 'tenant', 'add', 'delta', '--base-url', 'https://boards.example.com', '--tenant-config', settings)).code).toBe(0);
    const status = async (): Promise<{ code: number; out: string; doc: { failing: number; tenants: Array<{ name: string; problems: string[] }> } }> => {
      const human = await cli('fleet', 'status');
      const json = await cli('fleet', 'status', '--json');
      expect(json.code).toBe(human.code);
      return { code: human.code, out: human.out, doc: JSON.parse(json.out) };
    };
    const problems = (doc: { tenants: Array<{ name: string; problems: string[] }> }): Record<string, string[]> => Object.fromEntries(doc.tenants.map((t) => [t.name, t.problems]));

    // no worker has taken them
    const homeless = await status();
    expect(homeless.code).toBe(5);
    expect(homeless.doc.failing).toBe(4);
    expect(homeless.out).toMatch(/4 of 4 tenant\(s\) failing:/);
    expect(homeless.out).toMatch(/^  acme: no home: no worker has taken it/m);

    // homed on a live worker, each with a successful pass: none failing
    await pgs.query(`insert into ${S}.workers(id, capacity, heartbeat_at, started_at) values ('w1', 10, now(), now())`);
    await pgs.query(`insert into ${S}.homes(tenant, worker, epoch) select name, 'w1', 1 from ${S}.tenants`);
    await pgs.query(`insert into ${S}.runs(tenant, worker, epoch, kind, started_at, finished_at, ok, snapshot_id) select name, 'w1', 1, 'full', now() - interval '20 seconds', now() - interval '10 seconds', true, 1 from ${S}.tenants`);
    const fine = await status();
    expect(fine.code, fine.out).toBe(0);
    expect(fine.doc.failing).toBe(0);
    expect(fine.out).not.toMatch(/failing/);

    // acme's last pass failed; delta's last success is older than its own bound (1 min), not the fleet's (360)
    await pgs.query(`insert into ${S}.runs(tenant, worker, epoch, kind, started_at, finished_at, ok, error) values ('acme', 'w1', 1, 'incremental', now() - interval '2 seconds', now(), false, 'authentication failed: the key was refused')`);
    await pgs.query(`update ${S}.runs set started_at = now() - interval '3 minutes', finished_at = now() - interval '2 minutes' where tenant in ('delta', 'gamma')`);
    const failing = await status();
    expect(failing.code).toBe(5);
    expect(problems(failing.doc)).toEqual({
      acme: [expect.stringMatching(/^last pass failed \(incremental, .*\): authentication failed: the key was refused$/)],
      beta: [],
      delta: [expect.stringMatching(/^stale: last successful pass 2 min ago, beyond its freshness bound \(freshness.maxStalenessMinutes: 60 s\)$/)],
      gamma: [],
    });
    expect(failing.out).toMatch(/2 of 4 tenant\(s\) failing:\n  acme: last pass failed .*\n  delta: stale: /);

    // beta's worker gone (heartbeat older than fleet.workerTtlSeconds, 60 by default); a paused tenant is never failing
    await pgs.query(`insert into ${S}.workers(id, capacity, heartbeat_at, started_at) values ('w2', 10, now() - interval '10 minutes', now() - interval '1 hour')`);
    await pgs.query(`update ${S}.homes set worker = 'w2' where tenant in ('beta', 'acme')`);
    expect((await cli('fleet', 'tenant', 'pause', 'acme')).code).toBe(0);
    const gone = await status();
    expect(gone.code).toBe(5);
    expect(problems(gone.doc).acme).toEqual([]);
    expect(problems(gone.doc).beta).toEqual([expect.stringMatching(/^no live home: its worker w2 is gone .* wbsync fleet adopt beta --to WORKER$/)]);
    expect(gone.doc.failing).toBe(2);

    // all well again: exit 0
    await pgs.query(`update ${S}.workers set heartbeat_at = now()`);
    await pgs.query(`insert into ${S}.runs(tenant, worker, epoch, kind, started_at, finished_at, ok, snapshot_id) select name, 'w1', 1, 'incremental', now(), now(), true, 2 from ${S}.tenants`);
    const recovered = await status();
    expect(recovered.code, recovered.out).toBe(0);
  }, 60_000);
});
