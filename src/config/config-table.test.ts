import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderConfigTable } from './config-table.js';

describe('configuration table', () => {
  it('covers every schema key with its default and description', () => {
    const table = renderConfigTable();
    for (const key of ['baseUrl', 'apiKeyFile', 'db', 'workspaces.include', 'workspaces.exclude', 'http.concurrency', 'http.timeoutMs', 'http.retries', 'schedule.incremental', 'schedule.full', 'daemon.listen', 'log.level', 'restore.attribution']) {
      expect(table).toContain(`| ${key} |`);
    }
    expect(table).toContain('| http.concurrency |  | `8` | Requests in flight. |');
  });

  it('is the table the README shows', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(renderConfigTable());
  });
});
