// The web console on a fleet worker: /ui/ lists every tenant of the fleet with its home, last pass
// and freshness; a tenant homed on this worker opens its own read-only console under /ui/t/NAME/
// (its backup, hostile names from the service escaped); a tenant homed elsewhere (or nowhere) is not
// served here; a foreign Host is refused with 421 as on the daemon, on the Fleet page and a tenant's.

import { request } from 'node:http';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, runCliCaptured, tempDir } from '../helpers/harness.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { writeTokenFile } from '../helpers/ui-kit.js';
import { spawnWorker, startService, waitFor, writeFleetFiles, writeKey, type FleetFiles, type TenantService, type WorkerProcess } from '../helpers/fleet-kit.js';

const SCRIPT = `<script>window.__pwned = 1</script>`;
const IMG = `"><img src=x onerror="window.__pwned = 2">`;

function raw(port: number, path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host }, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console on a fleet worker', () => {
  let pgs: RunningPostgres;
  const tmp = tempDir('wbsync-fleet-ui-');
  let files: FleetFiles;
  let svc: TenantService;
  let worker: WorkerProcess | undefined;
  let guarded: WorkerProcess | undefined;
  const cli = (...argv: string[]) => runCliCaptured(['--config', files.config, ...argv]);

  beforeAll(async () => {
    pgs = await startPostgres();
    // a freshness bound of its own (the default is 360): the Fleet page must judge by it
    files = writeFleetFiles(tmp.dir, pgs, { freshness: { maxStalenessMinutes: 60 } });
    svc = await startService('observed', { modules: 1, records: 3 });
    // hostile names in the service: a workspace and a module
    const client = makeClient(svc.emu);
    const ws = await client.createWorkspace({ name: `Team ${SCRIPT}` });
    await client.createModule(ws.id, { name: `Board ${IMG}` });
    await client.close();
    const settings = join(tmp.dir, 'tenant.json');
    writeFileSync(settings, JSON.stringify({ schedule: { incremental: '*/3 * * * * *', full: '0 0 1 1 *' } }));
    for (const name of ['alpha', 'beta']) {
      writeKey(files, name, svc.emu.apiKey);
      expect((await cli('fleet', 'tenant', 'add', name, '--base-url', svc.emu.baseUrl, '--tenant-config', settings)).code).toBe(0);
    }
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await guarded?.stop();
    await svc?.emu.stop();
    await pgs?.destroy();
    tmp.cleanup();
  });

  it('lists the fleet, opens a local tenant’s backup with hostile names escaped, refuses foreign hosts', async () => {
    // capacity 1: one tenant homed here, the other without a home
    worker = spawnWorker(files, 'w1', join(tmp.dir, 'w1'), 1);
    const okRuns = async (): Promise<number> => Number((await pgs.query<{ n: string }>(`select count(*) as n from wbsync_fleet.runs where ok`))[0]!.n);
    await waitFor('a pass on the worker', 60_000, async () => {
      if (worker!.proc.exitCode !== null) throw new Error(worker!.output());
      return (await okRuns()) >= 1;
    });
    const home = (await pgs.query<{ tenant: string }>(`select tenant from wbsync_fleet.homes where worker = 'w1'`)).map((r) => r.tenant);
    expect(home).toHaveLength(1);
    const here = home[0]!;
    const elsewhere = here === 'alpha' ? 'beta' : 'alpha';
    const url = (await pgs.query<{ health_url: string }>(`select health_url from wbsync_fleet.workers where id = 'w1'`))[0]!.health_url;
    const port = Number(new URL(url).port);

    const fleet = await fetch(`${url}/ui/`);
    expect(fleet.status).toBe(200);
    expect(fleet.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const page = await fleet.text();
    expect(page).toContain('<h1>Fleet</h1>');
    expect(page).toContain(`<a href="/ui/t/${here}/">${here}</a>`);
    expect(page).toMatch(new RegExp(`<td>${elsewhere}</td><td>-</td>`));
    expect(page).not.toContain(`/ui/t/${elsewhere}/`);
    expect(page).toMatch(/<td>w1 \(this worker\)<\/td><td>(idle|running \w+)<\/td><td>(full|incremental) \d{4}-/);
    expect(page).toMatch(/<td>\d+s ago<\/td>/);

    const overview = await fetch(`${url}/ui/t/${here}/`);
    expect(overview.status).toBe(200);
    const o = await overview.text();
    expect(o).toContain(`href="/ui/t/${here}/browse"`);
    const browse = await (await fetch(`${url}/ui/t/${here}/browse`)).text();
    expect(browse).toContain('Team &lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    expect(browse).toContain('Board &quot;&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;');
    expect(browse).not.toMatch(/<script|<img/i);

    expect((await fetch(`${url}/ui/t/${elsewhere}/`)).status).toBe(404);
    expect((await fetch(`${url}/ui/t/%3Cscript%3E/`)).status).toBe(404);
    // the console is read-only
    expect((await fetch(`${url}/ui/t/${here}/`, { method: 'POST' })).status).toBe(405);

    // a rebinding-shaped Host: refused, with nothing of the fleet or the backup in the answer
    for (const p of ['/ui/', `/ui/t/${here}/`, `/ui/t/${here}/browse`]) {
      const r = await raw(port, p, `evil.example:${port}`);
      expect(r.status, p).toBe(421);
      expect(r.text, p).not.toContain(here);
    }
    expect((await raw(port, '/ui/', `127.0.0.1:${port}`)).status).toBe(200);
    // /healthz keeps serving
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    // the tenant without a home, added two hours ago: beyond the configured 60 minutes (not the
    // default 360), so the Fleet page says it is stale, as `wbsync fleet status` does
    await pgs.query(`update wbsync_fleet.tenants set created_at = now() - interval '2 hours' where name = $1`, [elsewhere]);
    const stale = `${elsewhere}: stale: no successful pass in the 2 h since it was added, beyond its freshness bound (freshness.maxStalenessMinutes: 60 min)`;
    const judged = await (await fetch(`${url}/ui/`)).text();
    expect(judged).toContain('1 of 2 tenant(s) failing:');
    expect(judged).toContain(`<li>${stale}</li>`);
    expect(judged).not.toContain(`<li>${here}:`);
    const cliStatus = await cli('fleet', 'status');
    expect(cliStatus.code).toBe(5);
    expect(cliStatus.out).toContain(`  ${stale}`);
  }, 120_000);

  it('asks for the token (ui.tokenFile) on the Fleet page and under /ui/t/, one bearer serving both', async () => {
    const token = 'c0nsole-t0ken-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const other = writeFleetFiles(join(tmp.dir, 'guarded'), pgs, { ui: { tokenFile: writeTokenFile(join(tmp.dir, 'guarded'), token) } });
    for (const name of ['alpha', 'beta']) writeKey(other, name, svc.emu.apiKey);
    // capacity 1: it takes the tenant w1 left without a home
    guarded = spawnWorker(other, 'w2', join(tmp.dir, 'w2'), 1);
    const mine = await waitFor('w2 running a tenant', 60_000, async () => {
      if (guarded!.proc.exitCode !== null) throw new Error(guarded!.output());
      const rows = await pgs.query<{ tenant: string }>(`select h.tenant from wbsync_fleet.homes h where h.worker = 'w2' and exists (select 1 from wbsync_fleet.runs r where r.tenant = h.tenant and r.ok and r.worker = 'w2')`);
      return rows[0]?.tenant;
    });
    const theirs = mine === 'alpha' ? 'beta' : 'alpha';
    const url = (await pgs.query<{ health_url: string }>(`select health_url from wbsync_fleet.workers where id = 'w2'`))[0]!.health_url;
    const bearer = { authorization: `Bearer ${token}` };
    const bare = await fetch(`${url}/ui/`);
    expect(bare.status).toBe(401);
    expect(await bare.text()).not.toMatch(/alpha|beta/);
    const tenantBare = await fetch(`${url}/ui/t/${mine}/`);
    expect(tenantBare.status).toBe(401);
    expect(await tenantBare.text()).not.toContain(mine);
    expect((await fetch(`${url}/ui/`, { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(401);
    const ok = await fetch(`${url}/ui/`, { headers: bearer });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).toContain(`<a href="/ui/t/${mine}/">${mine}</a>`);
    expect(text).toContain(`<td>${theirs}</td><td>w1</td>`); // listed with its home, not linked
    expect(text).toContain('action="/ui/logout"');
    expect((await fetch(`${url}/ui/t/${mine}/browse`, { headers: bearer })).status).toBe(200);
    expect((await fetch(`${url}/ui/t/${theirs}/`, { headers: bearer })).status).toBe(404);
    expect(guarded.output()).not.toContain(token);

    // a tenant that leaves this worker is no longer served here (its console closed with it)
    expect((await cli('fleet', 'tenant', 'remove', mine)).code).toBe(0);
    await waitFor(`${mine} gone from w2's console`, 30_000, async () => (await fetch(`${url}/ui/t/${mine}/`, { headers: bearer })).status === 404);
    expect(await (await fetch(`${url}/ui/`, { headers: bearer })).text()).not.toContain(`/ui/t/${mine}/`);
  }, 90_000);
});
