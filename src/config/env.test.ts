import { describe, expect, it } from 'vitest';
import { CONFIG_LEAVES, envLayer, envName } from './env.js';

describe('configuration from the environment', () => {
  it('names each variable after its key', () => {
    expect(envName('baseUrl')).toBe('WBSYNC_BASE_URL');
    expect(envName('apiKeyFile')).toBe('WBSYNC_API_KEY_FILE');
    expect(envName('db')).toBe('WBSYNC_DB');
    expect(envName('log.level')).toBe('WBSYNC_LOG_LEVEL');
    expect(envName('daemon.listen')).toBe('WBSYNC_DAEMON_LISTEN');
    expect(envName('schedule.incremental')).toBe('WBSYNC_SCHEDULE_INCREMENTAL');
    expect(envName('freshness.maxStalenessMinutes')).toBe('WBSYNC_FRESHNESS_MAX_STALENESS_MINUTES');
    expect(envName('offsite.retention.keepLast')).toBe('WBSYNC_OFFSITE_RETENTION_KEEP_LAST');
  });

  it('covers every key of the schema, each with its own variable, none taken by the key or the config file', () => {
    const names = CONFIG_LEAVES.map((l) => l.env);
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain('WBSYNC_API_KEY');
    expect(names).not.toContain('WBSYNC_CONFIG');
    expect(CONFIG_LEAVES.length).toBeGreaterThan(40);
    const kinds = Object.fromEntries(CONFIG_LEAVES.map((l) => [l.key, l.kind]));
    expect(kinds).toMatchObject({ 'http.concurrency': 'number', 'tripwire.enabled': 'boolean', 'workspaces.include': 'list', 'offsite.recipients': 'list', 'alerts.webhooks': 'json', 'daemon.listen': 'string' });
    expect(CONFIG_LEAVES.filter((l) => l.secret).map((l) => l.key)).toEqual(['alerts.webhooks', 'alerts.healthchecksUrl']);
  });

  it('builds the layer with typed values; empty variables count as unset', () => {
    const { layer, fromEnv } = envLayer({ WBSYNC_HTTP_RETRIES: '3', WBSYNC_OFFSITE_FORCE_PATH_STYLE: 'true', WBSYNC_WORKSPACES_EXCLUDE: '["a","b"]', WBSYNC_DB: '', OTHER: 'x' });
    expect(layer).toEqual({ http: { retries: 3 }, offsite: { forcePathStyle: true }, workspaces: { exclude: ['a', 'b'] } });
    expect([...fromEnv.entries()]).toEqual([
      ['workspaces.exclude', 'WBSYNC_WORKSPACES_EXCLUDE'],
      ['http.retries', 'WBSYNC_HTTP_RETRIES'],
      ['offsite.forcePathStyle', 'WBSYNC_OFFSITE_FORCE_PATH_STYLE'],
    ]);
  });

  it('refuses a secret from the environment, without echoing it', () => {
    for (const name of ['WBSYNC_ALERTS_WEBHOOKS', 'WBSYNC_ALERTS_HEALTHCHECKS_URL']) {
      try {
        envLayer({ [name]: 'https://hooks.example.com/sekrit-token' });
        throw new Error('expected refusal');
      } catch (e) {
        expect((e as Error).message).toMatch(new RegExp(`^${name}: alerts\\.\\w+ is a secret and is not read from the environment$`));
        expect(JSON.stringify(e)).not.toContain('sekrit-token');
      }
    }
  });

  it('refuses a value that cannot be the key\'s kind, naming the variable and the key', () => {
    expect(() => envLayer({ WBSYNC_OFFSITE_FORCE_PATH_STYLE: 'https://x' })).toThrow(/^WBSYNC_OFFSITE_FORCE_PATH_STYLE: expected true or false, got "https:\/\/x"$/);
    expect(() => envLayer({ WBSYNC_RETENTION_KEEP_LAST: '' })).not.toThrow();
    expect(() => envLayer({ WBSYNC_RETENTION_KEEP_LAST: 'ten' })).toThrow(/expected a number/);
  });
});
