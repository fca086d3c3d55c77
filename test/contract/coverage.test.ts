// Fails when an endpoint of the spec has no contract test, or when endpoints.ts drifts from the
// spec's endpoint tables.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from './endpoints.js';

const HERE = import.meta.dirname;
const REPO_ROOT = resolve(HERE, '../..');
const SPEC = resolve(REPO_ROOT, '../shared/spec/workspace-board-service.md');
const NOT_CONTRACT_TESTS = new Set(['coverage.test.ts', 'bad-input.test.ts']);

/** Every route named in a `covers(...)` call of the contract test files. */
function declaredRoutes(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const files = readdirSync(HERE).filter((f) => f.endsWith('.test.ts') && !NOT_CONTRACT_TESTS.has(f));
  for (const file of files) {
    const text = readFileSync(join(HERE, file), 'utf8');
    for (const call of text.matchAll(/\bcovers\(([^)]*)\)/g)) {
      for (const lit of call[1].matchAll(/'([^']+)'|"([^"]+)"/g)) {
        const route = lit[1] ?? lit[2];
        found.set(route, [...(found.get(route) ?? []), file]);
      }
    }
  }
  return found;
}

/** Method + path of every row of the tables under "## Endpoints". */
function parseSpecEndpoints(markdown: string): string[] {
  const start = markdown.indexOf('\n## Endpoints');
  if (start < 0) throw new Error('spec has no "## Endpoints" section');
  const rest = markdown.slice(start + 1);
  const next = rest.indexOf('\n## ', 3);
  const section = next < 0 ? rest : rest.slice(0, next);
  const routes: string[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\/[^\s|]*)\s*\|/.exec(line);
    if (m) routes.push(`${m[1]} ${m[2]}`);
  }
  return routes;
}

describe('contract coverage', () => {
  it('every endpoint of endpoints.ts has a contract test declaring it with covers()', () => {
    const declared = declaredRoutes();
    const uncovered = ENDPOINTS.filter((e) => !declared.has(e));
    expect(uncovered, `endpoints without a contract test:\n${uncovered.join('\n')}`).toEqual([]);
  });

  it('covers() names only endpoints of the list', () => {
    const known = new Set<string>(ENDPOINTS);
    const strays = [...declaredRoutes().entries()].filter(([r]) => !known.has(r)).map(([r, files]) => `${r} (${files.join(', ')})`);
    expect(strays).toEqual([]);
  });

  it('endpoints.ts lists exactly the endpoints of the spec tables, once each', () => {
    expect(new Set(ENDPOINTS).size).toBe(ENDPOINTS.length);
    if (!existsSync(SPEC)) {
      // Outside the shared workspace the spec is not at hand: the list must still be well formed.
      for (const e of ENDPOINTS) expect(e).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/[\w\-{}/]+$/);
      return;
    }
    const fromSpec = parseSpecEndpoints(readFileSync(SPEC, 'utf8'));
    expect(fromSpec.length).toBeGreaterThan(40);
    expect([...ENDPOINTS].sort()).toEqual([...new Set(fromSpec)].sort());
  });
});
