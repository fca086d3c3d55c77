import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../config/schema.js';
import { redactorFor } from './pg.js';
import { readTenantKey, tenantConfig, tenantDbPath } from './tenant-config.js';
import { checkBaseUrl, checkTenantConfig, checkTenantName } from './tenants.js';
import { labelExposition } from './worker-metrics.js';

describe('redactorFor', () => {
  it('scrubs the URL, its password (encoded or not) and user:password', () => {
    const url = 'postgres://fleet:p%40ss%2Fw0rd@db.internal:5432/wbsync';
    const r = redactorFor(url);
    expect(r(`connect ${url} failed`)).toBe('connect *** failed');
    expect(r('password "p@ss/w0rd" rejected; p%40ss%2Fw0rd')).toBe('password "***" rejected; ***');
    expect(r('nothing secret here')).toBe('nothing secret here');
  });
});

describe('tenant registry checks', () => {
  it('accepts names fit for a file name and refuses the rest', () => {
    expect(() => checkTenantName('acme-2')).not.toThrow();
    for (const bad of ['', 'Acme', '-x', '../etc', 'a b', 'a;rm', 'x'.repeat(64)]) expect(() => checkTenantName(bad)).toThrow(/not allowed/);
  });
  it('wants an http(s) base URL without credentials, trailing slashes dropped', () => {
    expect(checkBaseUrl('https://boards.example.com/')).toBe('https://boards.example.com');
    expect(() => checkBaseUrl('ftp://x')).toThrow(/http/);
    expect(() => checkBaseUrl('https://u:p@x.example.com')).toThrow(/user or password/);
    expect(() => checkBaseUrl('not a url')).toThrow(/not a URL/);
  });
  it('keeps tenant settings, refuses secrets and host settings, validates the rest', () => {
    expect(checkTenantConfig({ schedule: { incremental: '*/2 * * * *' }, alerts: { afterFailures: 3 } }, 'f')).toEqual({ schedule: { incremental: '*/2 * * * *' }, alerts: { afterFailures: 3 } });
    expect(() => checkTenantConfig({ alerts: { healthchecksUrl: 'https://hc.example.com/abc' } }, 'f')).toThrow(/alerts\.healthchecksUrl: a secret/);
    expect(() => checkTenantConfig({ apiKey: 'k' }, 'f')).toThrow(/apiKey: not a tenant setting/);
    expect(() => checkTenantConfig({ fleet: {} }, 'f')).toThrow(/fleet: not a tenant setting/);
    expect(() => checkTenantConfig({ http: { concurrency: 0 } }, 'f')).toThrow(/http\.concurrency/);
    expect(() => checkTenantConfig([], 'f')).toThrow(/JSON object/);
  });
});

describe('a tenant on its worker', () => {
  it("merges the worker's config, the tenant's settings and the fleet's choices", () => {
    const worker = ConfigSchema.parse({ http: { concurrency: 3, retries: 2 }, apiKeyFile: '/worker/key', schedule: { incremental: '*/7 * * * *' } });
    const c = tenantConfig(worker, { name: 'acme', baseUrl: 'https://acme.example.com', config: { http: { concurrency: 5 } } }, '/data');
    expect(c.http).toEqual({ concurrency: 5, timeoutMs: 30_000, retries: 2 });
    expect(c.schedule.incremental).toBe('*/7 * * * *');
    expect(c.baseUrl).toBe('https://acme.example.com');
    expect(c.db).toBe('/data/tenants/acme/wbsync.db');
    expect(c.apiKeyFile).toBeUndefined();
    expect(() => tenantDbPath('/data', '../x')).toThrow();
  });
  it('reads its key from the key folder, one word, and says what is wrong otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wbsync-keys-'));
    try {
      writeFileSync(join(dir, 'acme'), 'k3y\n', { mode: 0o600 });
      expect(readTenantKey(dir, 'acme')).toEqual({ key: 'k3y' });
      writeFileSync(join(dir, 'loose'), 'k3y', { mode: 0o644 });
      expect(readTenantKey(dir, 'loose').warning).toMatch(/readable by everyone/);
      writeFileSync(join(dir, 'two'), 'a b', { mode: 0o600 });
      expect(() => readTenantKey(dir, 'two')).toThrow(/exactly one word/);
      expect(() => readTenantKey(dir, 'missing')).toThrow(/cannot read its key file .*ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('labelExposition', () => {
  it('leaves label values alone, however they look', () => {
    const fams = new Map<string, { head: string[]; samples: string[] }>();
    labelExposition('# TYPE wbsync_tripwire_open gauge\nwbsync_tripwire_open{undo="wbsync x ,} y"} 1\nwbsync_empty{} 3\n', 'a', fams);
    expect([...fams.values()][0]!.samples).toEqual(['wbsync_tripwire_open{tenant="a",undo="wbsync x ,} y"} 1', 'wbsync_empty{tenant="a"} 3']);
  });
  it('adds the tenant label to every sample and groups families across tenants', () => {
    const fams = new Map<string, { head: string[]; samples: string[] }>();
    const text = '# HELP wbsync_pass_running 1 while a pass is running.\n# TYPE wbsync_pass_running gauge\nwbsync_pass_running 0\n# HELP wbsync_passes_total Passes.\n# TYPE wbsync_passes_total counter\nwbsync_passes_total{kind="full",status="complete"} 2\n';
    labelExposition(text, 'a', fams);
    labelExposition(text.replace(' 2\n', ' 5\n'), 'b', fams);
    const out = [...fams.values()].map((f) => [...f.head, ...f.samples].join('\n')).join('\n');
    expect(out).toBe(
      [
        '# HELP wbsync_pass_running 1 while a pass is running.',
        '# TYPE wbsync_pass_running gauge',
        'wbsync_pass_running{tenant="a"} 0',
        'wbsync_pass_running{tenant="b"} 0',
        '# HELP wbsync_passes_total Passes.',
        '# TYPE wbsync_passes_total counter',
        'wbsync_passes_total{tenant="a",kind="full",status="complete"} 2',
        'wbsync_passes_total{tenant="b",kind="full",status="complete"} 5',
      ].join('\n'),
    );
  });
});
