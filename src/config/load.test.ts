import { chmodSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WbsyncError } from '../domain/errors.js';
import { loadConfig, mergeConfig, requireService } from './load.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wbsync-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WbsyncError);
    return ((e as WbsyncError).details?.problems as string[]) ?? [(e as Error).message];
  }
  throw new Error('expected a configuration error');
}

describe('loadConfig', () => {
  it('applies defaults when nothing is given', () => {
    const { config, apiKey } = loadConfig({}, {});
    expect(config.db).toBe('./data/wbsync.db');
    expect(config.http).toEqual({ concurrency: 8, timeoutMs: 30000, retries: 5 });
    expect(config.schedule).toEqual({ incremental: '*/5 * * * *', full: '0 3 * * *' });
    expect(config.daemon.listen).toBe('127.0.0.1:9464');
    expect(config.log.level).toBe('info');
    expect(config.workspaces).toEqual({ include: [], exclude: [] });
    expect(apiKey).toBeNull();
  });

  it('layers flags over environment over file over defaults', () => {
    const cfg = file('c.json', JSON.stringify({ db: 'file.db', log: { level: 'warn' }, http: { concurrency: 3 } }));
    const env = { WBSYNC_DB: 'env.db', WBSYNC_LOG_LEVEL: 'debug', WBSYNC_BASE_URL: 'http://127.0.0.1:1' };
    expect(loadConfig({ config: cfg }, {}).config.db).toBe('file.db');
    expect(loadConfig({ config: cfg }, env).config.db).toBe('env.db');
    const both = loadConfig({ config: cfg, db: 'flag.db', logLevel: 'error' }, env).config;
    expect(both.db).toBe('flag.db');
    expect(both.log.level).toBe('error');
    expect(both.http.concurrency).toBe(3);
    expect(both.http.retries).toBe(5);
    expect(both.baseUrl).toBe('http://127.0.0.1:1');
  });

  it('takes the config file from WBSYNC_CONFIG', () => {
    const cfg = file('c.json', JSON.stringify({ workspaces: { include: ['w1'] } }));
    expect(loadConfig({}, { WBSYNC_CONFIG: cfg }).config.workspaces.include).toEqual(['w1']);
  });

  it('should error listing every problem as path: message', () => {
    const cfg = file(
      'bad.json',
      JSON.stringify({ http: { concurrency: 0, retries: 'x' }, schedule: { incremental: 'every minute' }, daemon: { listen: 'nope' }, bogus: 1 }),
    );
    const list = problems(() => loadConfig({ config: cfg }, {}));
    expect(list).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^http\.concurrency: /),
        expect.stringMatching(/^http\.retries: /),
        expect.stringMatching(/^schedule\.incremental: not a valid cron expression/),
        expect.stringMatching(/^daemon\.listen: expected host:port/),
        expect.stringMatching(/^\(root\): Unrecognized key.*bogus/),
      ]),
    );
  });

  it('accepts a six-field cron expression with seconds (for tests)', () => {
    const cfg = file('c.json', JSON.stringify({ schedule: { incremental: '*/1 * * * * *' } }));
    expect(loadConfig({ config: cfg }, {}).config.schedule.incremental).toBe('*/1 * * * * *');
  });

  it('should error and not accept a key inside the config file', () => {
    const cfg = file('c.json', JSON.stringify({ apiKey: 'sekrit-value-123' }));
    try {
      loadConfig({ config: cfg }, {});
      throw new Error('expected refusal');
    } catch (e) {
      expect((e as WbsyncError).code).toBe('config');
      expect((e as Error).message).toMatch(/never accepted in a config file/);
      expect((e as Error).message).not.toContain('sekrit-value-123');
    }
  });

  it('reads the key from WBSYNC_API_KEY first, then the key file', () => {
    const keyFile = file('key', '  from-file-key\n');
    expect(loadConfig({}, { WBSYNC_API_KEY_FILE: keyFile }).apiKey).toBe('from-file-key');
    expect(loadConfig({}, { WBSYNC_API_KEY_FILE: keyFile, WBSYNC_API_KEY: 'env-key' }).apiKey).toBe('env-key');
  });

  it('warns (does not refuse) when others may read the key file', () => {
    const keyFile = file('loose-key', 'crm_loose-key-content\n');
    chmodSync(keyFile, 0o644);
    const loaded = loadConfig({}, { WBSYNC_API_KEY_FILE: keyFile });
    expect(loaded.apiKey).toBe('crm_loose-key-content');
    expect(loaded.warnings).toEqual([`apiKeyFile ${keyFile} is readable by everyone on this machine (mode 0644): make it readable by its owner only (chmod 600; a mounted secret: mode 0400)`]);
    chmodSync(keyFile, 0o600);
    expect(loadConfig({}, { WBSYNC_API_KEY_FILE: keyFile }).warnings).toBeUndefined();
  });

  it('should error naming the key file, not its content, when unreadable or empty', () => {
    expect(() => loadConfig({}, { WBSYNC_API_KEY_FILE: join(dir, 'missing') })).toThrow(/cannot read the key file .*missing/);
    const empty = file('empty', '\n');
    expect(() => loadConfig({}, { WBSYNC_API_KEY_FILE: empty })).toThrow(/is empty/);
  });

  it('should error on malformed JSON naming the file', () => {
    const cfg = file('broken.json', '{ "db": ');
    expect(() => loadConfig({ config: cfg }, {})).toThrow(/broken\.json is not valid JSON/);
  });

  it('should error on a JSON syntax error with its line and column, and the line with a caret', () => {
    const cfg = file('syntax.json', '{\n  "db": "./data/wbsync.db",\n  "http": { "concurrency": 4, }\n}\n');
    try {
      loadConfig({ config: cfg }, {});
      throw new Error('expected refusal');
    } catch (e) {
      const msg = (e as Error).message;
      expect(msg).toMatch(/syntax\.json is not valid JSON at line 3, column 31: Expected double-quoted property name/);
      expect(msg).not.toMatch(/position/);
      expect(msg).toContain('  "http": { "concurrency": 4, }\n' + ' '.repeat(2 + 30) + '^');
      expect((e as WbsyncError).hint).toMatch(/trailing commas/);
    }
  });

  it('should error on a webhook given as a string, showing the {"url": …} form', () => {
    const cfg = file('hook.json', JSON.stringify({ alerts: { webhooks: ['https://hooks.example.com/x'] } }));
    const [line] = problems(() => loadConfig({ config: cfg }, {}));
    expect(line).toMatch(/^alerts\.webhooks\.0: .*expected object, received string; each item is an object: \{"url": "https:\/\/hooks\.example\.com\/…", "format": "json"\}$/);
  });

  it('sets every key from the environment, named after it, and names the variable in a problem', () => {
    const env = {
      WBSYNC_DAEMON_LISTEN: '0.0.0.0:9464',
      WBSYNC_SCHEDULE_INCREMENTAL: '*/10 * * * *',
      WBSYNC_HTTP_TIMEOUT_MS: '5000',
      WBSYNC_TRIPWIRE_ENABLED: 'false',
      WBSYNC_WORKSPACES_INCLUDE: 'w1, w2',
      WBSYNC_ALERTS_AFTER_FAILURES: '3',
      WBSYNC_OFFSITE_RETENTION_KEEP_DAILY: '7',
    };
    const { config } = loadConfig({}, env);
    expect(config.daemon.listen).toBe('0.0.0.0:9464');
    expect(config.schedule.incremental).toBe('*/10 * * * *');
    expect(config.http.timeoutMs).toBe(5000);
    expect(config.tripwire.enabled).toBe(false);
    expect(config.workspaces.include).toEqual(['w1', 'w2']);
    expect(config.alerts.afterFailures).toBe(3);
    expect(config.offsite.retention.keepDaily).toBe(7);
    // over a config file, under a flag
    const cfg = file('c.json', JSON.stringify({ daemon: { listen: '127.0.0.1:1' } }));
    expect(loadConfig({ config: cfg }, env).config.daemon.listen).toBe('0.0.0.0:9464');
    expect(problems(() => loadConfig({}, { WBSYNC_DAEMON_LISTEN: 'nope' }))).toEqual([expect.stringMatching(/^daemon\.listen: expected host:port.* \(from WBSYNC_DAEMON_LISTEN\)$/)]);
    expect(() => loadConfig({}, { WBSYNC_HTTP_CONCURRENCY: 'eight' })).toThrow(/^WBSYNC_HTTP_CONCURRENCY: expected a number, got "eight"$/);
    expect(() => loadConfig({}, { WBSYNC_TRIPWIRE_ENABLED: 'maybe' })).toThrow(/WBSYNC_TRIPWIRE_ENABLED: expected true or false/);
  });

  it('requireService names what is missing', () => {
    expect(() => requireService(loadConfig({}, {}))).toThrow(/baseUrl/);
    expect(() => requireService(loadConfig({}, { WBSYNC_BASE_URL: 'http://127.0.0.1:9' }))).toThrow(/no API key/);
    const ok = requireService(loadConfig({}, { WBSYNC_BASE_URL: 'http://127.0.0.1:9/', WBSYNC_API_KEY: 'k' }));
    expect(ok).toEqual({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
  });

  it('rejects a non-http base URL', () => {
    expect(problems(() => loadConfig({}, { WBSYNC_BASE_URL: 'ftp://x' }))[0]).toMatch(/^baseUrl: /);
  });
});

describe('a config file with hostile keys and values', () => {
  it('names each problem on its own line: a key or a value holding a newline is spelled out', () => {
    const cfg = file('c.json', JSON.stringify({ 'db\nhint: all good': 1, log: { level: 'loud\n  nothing else' } }));
    let message = '';
    try {
      loadConfig({ config: cfg }, {});
    } catch (e) {
      message = (e as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe('invalid configuration:');
    expect(lines.slice(1).every((l) => l.startsWith('  ') && !/^\s*(hint|nothing)/.test(l)), message).toBe(true);
    expect(message).toContain('db\\nhint: all good');
  });
});

describe('mergeConfig', () => {
  it('merges nested objects, replaces arrays, ignores prototype keys', () => {
    const over = JSON.parse('{"a":{"y":2},"l":[3],"__proto__":{"polluted":1}}') as Record<string, unknown>;
    const merged = mergeConfig({ a: { x: 1 }, l: [1, 2] }, over);
    expect(merged).toEqual({ a: { x: 1, y: 2 }, l: [3] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
