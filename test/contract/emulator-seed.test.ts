// The emulator's `demo` seed, as its in-process interface documents it: users[0] owns "Acme Co",
// users[1] is a plain member without a grant to the private board "Leadership", users[2] is a
// member of nothing. Emulator only: a live service has no seeds.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { Actor } from './client.js';
import { expectJsonError, expectOk, listed } from './expect-reply.js';
import { MemberSchema, ModuleSchema, WorkspaceSchema } from './schemas.js';

describe.each(['spec', 'observed'] as const)('demo seed [%s]', (dialect) => {
  let em: RunningEmulator;
  let users: Actor[];
  beforeAll(async () => {
    em = await startEmulator({ dialect, seed: 'demo' });
    users = em.users.map((u, i) => new Actor(em.baseUrl, u.id, u.email, u.apiKey, `users[${i}]`));
  });
  afterAll(() => em.stop());

  it('users[0] owns "Acme Co" with its four modules; users[1] is a member; users[2] is not', async () => {
    expect(users.length).toBeGreaterThanOrEqual(3);
    expect(em.apiKey).toBe(users[0].key);
    const rows = listed(await users[0].send('GET /workspaces'), 'workspaces', z.looseObject({ workspace: WorkspaceSchema }));
    const acme = rows.map((r) => r.workspace).find((w) => w.name === 'Acme Co');
    if (!acme) throw new Error(`no "Acme Co" in ${JSON.stringify(rows)}`);
    const modules = listed(await users[0].send('GET /modules/{workspaceId}', { workspaceId: acme._id }), 'modules', ModuleSchema);
    expect(modules.map((m) => m.name).sort()).toEqual(['Hiring', 'Leadership', 'Product Roadmap', 'Sales Pipeline']);
    expect(modules.find((m) => m.name === 'Leadership')?.visibility).toBe('private');
    const members = listed(await users[0].send('GET /workspace-members/{workspaceId}', { workspaceId: acme._id }), 'members', MemberSchema);
    const roles = Object.fromEntries(members.map((m) => [m.user._id, m.role]));
    expect(roles[users[0].id]).toBe('owner');
    expect(roles[users[1].id]).toBe('member');
    expect(roles[users[2].id]).toBeUndefined();

    const leadership = modules.find((m) => m.name === 'Leadership');
    const sales = modules.find((m) => m.name === 'Sales Pipeline');
    expectOk(await users[0].send('GET /collections/{moduleId}', { moduleId: String(leadership?._id) }));
    expectOk(await users[1].send('GET /collections/{moduleId}', { moduleId: String(sales?._id) }));
    expectJsonError(await users[1].send('GET /collections/{moduleId}', { moduleId: String(leadership?._id) }), 403);
    expectJsonError(await users[2].send('GET /collections/{moduleId}', { moduleId: String(sales?._id) }), 403);
  });
});
