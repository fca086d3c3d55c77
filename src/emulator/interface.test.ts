// The emulator's interface page against its route table: every route documented, nothing else;
// GET /api serves it in both dialects (JSON, or HTML for a browser); docs/emulator.md holds the
// same table.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './index.js';
import { interfaceRoutes, renderInterfaceMarkdown, type InterfaceIndex } from './interface.js';
import { ROUTE_DOCS } from './interface-routes.js';
import { allRoutes } from './routes/index.js';
import type { RunningEmulator } from './types.js';

describe('the interface documentation', () => {
  it('documents exactly the routes of the table', () => {
    expect(Object.keys(ROUTE_DOCS).sort()).toEqual(allRoutes.map((r) => `${r.method} ${r.template}`).sort());
    for (const [name, d] of Object.entries(ROUTE_DOCS)) {
      expect(d.request, name).not.toBe('');
      expect(d.response, name).not.toBe('');
    }
  });

  it('marks the routes one dialect lacks', () => {
    const specOnly = interfaceRoutes(allRoutes).filter((r) => r.dialects.length === 1);
    expect(specOnly.map((r) => `${r.method} ${r.path}`)).toEqual(allRoutes.filter((r) => r.only === 'spec').map((r) => `${r.method} /api${r.template}`));
    for (const r of specOnly) expect(r.observed).toMatch(/No such route/);
  });

  it('docs/emulator.md holds the generated table', () => {
    const page = readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8');
    expect(page, 'run npm run build && node scripts/generate-docs.mjs').toContain(renderInterfaceMarkdown(allRoutes));
    for (const r of allRoutes) expect(page).toContain(`\`${r.method} /api${r.template}\``);
  });
});

describe.each(['spec', 'observed'] as const)('GET /api in the %s dialect', (dialect) => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ dialect, seed: 'none' });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it('answers the index as JSON without a key: every route of the table', async () => {
    const res = await fetch(`${emu.baseUrl}/api`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const index = (await res.json()) as InterfaceIndex;
    expect(index.dialect).toBe(dialect);
    expect(index.routes).toEqual(interfaceRoutes(allRoutes));
    expect(index.dialects.observed.length).toBeGreaterThan(3);
    // every documented route answers in the dialects the index says (a route that is not there is the unknown-route answer)
    for (const r of index.routes) {
      const path = r.path.replace(/\{[^}]+\}/g, '65f0c0ffee0000000000dead');
      const reply = await fetch(`${emu.baseUrl}${path}`, { method: r.method, headers: { 'x-api-key': emu.apiKey, 'content-type': 'application/json' }, body: r.method === 'GET' || r.method === 'DELETE' ? undefined : '{}' });
      const known = reply.headers.get('content-type')?.startsWith('application/json') === true || reply.status !== 404;
      expect(known, `${r.method} ${r.path}`).toBe(r.dialects.includes(dialect));
      await reply.arrayBuffer();
    }
  });

  it('answers a browser with the page: escaped, no script, every route', async () => {
    const res = await fetch(`${emu.baseUrl}/api`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    for (const r of interfaceRoutes(allRoutes)) expect(html).toContain(`<code>${r.method} ${r.path.replace(/&/g, '&#38;')}</code>`);
    expect(html).toContain(`(${dialect} dialect)`);
  });
});
