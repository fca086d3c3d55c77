import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderConfigTable } from './config-table.js';
import { CONFIG_LEAVES } from './env.js';

describe('configuration table', () => {
  it('covers every schema key with its variable, default and description', () => {
    const table = renderConfigTable();
    for (const key of ['baseUrl', 'apiKeyFile', 'db', 'workspaces.include', 'workspaces.exclude', 'http.concurrency', 'http.timeoutMs', 'http.retries', 'schedule.incremental', 'schedule.full', 'daemon.listen', 'log.level', 'restore.attribution']) {
      expect(table).toContain(`| ${key} | WBSYNC_`);
    }
    for (const leaf of CONFIG_LEAVES) expect(table).toContain(leaf.secret ? `| ${leaf.key} | — (a secret: config file only) |` : `| ${leaf.key} | ${leaf.env}`);
    expect(table).toContain('| alerts.webhooks | — (a secret: config file only) |');
    expect(table).toContain('| http.concurrency | WBSYNC_HTTP_CONCURRENCY | `8` | Requests in flight. |');
    expect(table).toContain('| daemon.listen | WBSYNC_DAEMON_LISTEN | `127.0.0.1:9464` |');
    expect(table).toContain('| schedule.incremental | WBSYNC_SCHEDULE_INCREMENTAL | `*/5 * * * *` |');
  });

  it('is the table docs/configuration.md shows', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(page).toContain(renderConfigTable());
  });
});
