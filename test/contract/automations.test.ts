// Automations in both scopes: create, list, fire (module scope by column id, workspace scope by
// column name), pause, update (observed: {isActive} alone or a complete automation), delete. Each test
// uses a fresh workspace so workspace-wide automations cannot fire on other tests' writes.

import { expect, it } from 'vitest';
import { expectJsonError, expectMessage, expectOk, listed, written } from './expect-reply.js';
import { mkBoard, mkColumn, mkRecord, mkWorkspace, setCell, uniqueName } from './fixtures.js';
import { contractSuite, covers, type Ctx } from './harness.js';
import { ActivityPageSchema, AmendmentSchema, AutomationSchema, TimestampSchema, type Automation } from './schemas.js';

function automation(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: uniqueName('Automation'),
    trigger: { type: 'record_created' },
    conditions: [],
    match: 'all',
    actions: [{ type: 'post_amendment', value: 'auto hello' }],
    ...overrides,
  };
}

async function createModuleAutomation(ctx: Ctx, moduleId: string, body: Record<string, unknown>): Promise<Automation> {
  const r = await ctx.owner.send('POST /automations/{moduleId}', { moduleId }, { body });
  expect(typeof expectOk(r).message).toBe('string');
  return written(ctx, r, 'automation', AutomationSchema);
}

async function listModuleAutomations(ctx: Ctx, moduleId: string): Promise<Automation[]> {
  return listed(await ctx.owner.send('GET /automations/{moduleId}', { moduleId }), 'automations', AutomationSchema);
}

async function notes(ctx: Ctx, recordId: string): Promise<string[]> {
  const r = await ctx.owner.send('GET /amendments/{recordId}', { recordId });
  return listed(r, 'amendments', AmendmentSchema).map((a) => a.message);
}

/** Gives asynchronous runs a chance to happen before asserting that nothing did. */
async function quiet(ctx: Ctx): Promise<void> {
  await ctx.settle();
  if (ctx.live) await new Promise((r) => setTimeout(r, 2_000));
}

contractSuite('automations', (ctx) => {
  it('POST /automations/{moduleId} answers {message, automation}; GET lists it', async () => {
    covers('POST /automations/{moduleId}', 'GET /automations/{moduleId}');
    const ws = await mkWorkspace(ctx);
    const board = await mkBoard(ctx, ws);
    const body = automation();
    const a = await createModuleAutomation(ctx, board.module._id, body);
    expect(a).toMatchObject({ ...body, scope: 'module', module: board.module._id, workspace: ws, isActive: true, runCount: 0 });
    const list = await listModuleAutomations(ctx, board.module._id);
    expect(list.map((x) => x._id)).toEqual([a._id]);
    if (ctx.observed) expect(list[0].lastError).toBe('');
  });

  it('POST /automations/{moduleId} with required fields missing is refused', async () => {
    covers('POST /automations/{moduleId}');
    const board = await mkBoard(ctx, await mkWorkspace(ctx));
    const r = await ctx.owner.send('POST /automations/{moduleId}', { moduleId: board.module._id }, { body: { name: 'half an automation' } });
    expectJsonError(r, ctx.observed ? 400 : '4xx');
    expect(await listModuleAutomations(ctx, board.module._id)).toEqual([]);
  });

  it('a module automation fires on API writes; its writes are in the feed with source=automation', async () => {
    covers('POST /automations/{moduleId}', 'GET /automations/{moduleId}', 'GET /activity/{workspaceId}');
    const ws = await mkWorkspace(ctx);
    const board = await mkBoard(ctx, ws);
    await createModuleAutomation(ctx, board.module._id, automation());
    const rec = await mkRecord(ctx, board.collection._id);
    await ctx.eventually(async () => expect(await notes(ctx, rec._id)).toContain('auto hello'));
    const [after] = await listModuleAutomations(ctx, board.module._id);
    expect(after.runCount).toBeGreaterThanOrEqual(1);
    TimestampSchema.parse(after.lastRunAt);
    const byEngine = ActivityPageSchema.parse(expectOk(await ctx.owner.send('GET /activity/{workspaceId}', { workspaceId: ws }, { query: { source: 'automation', limit: 50 } })));
    expect(byEngine.activities.length).toBeGreaterThanOrEqual(1);
    for (const row of byEngine.activities) expect(row.automation, JSON.stringify(row)).toBeTruthy();
    const byPeople = ActivityPageSchema.parse(expectOk(await ctx.owner.send('GET /activity/{workspaceId}', { workspaceId: ws }, { query: { source: 'person', limit: 50 } })));
    expect(byPeople.activities.some((row) => row.action === 'record_created' && row.record?._id === rec._id)).toBe(true);
    for (const row of byPeople.activities) expect(row.automation ?? null, JSON.stringify(row)).toBeNull();
  });

  it('a module automation addresses columns by id (column_changed_to)', async () => {
    covers('POST /automations/{moduleId}', 'POST /record-values');
    const ws = await mkWorkspace(ctx);
    const board = await mkBoard(ctx, ws);
    const stage = await mkColumn(ctx, board.module._id, 'status', { statusOptions: [{ label: 'Done', color: '#22C55E' }, { label: 'Stuck', color: '#EF4444' }] });
    await createModuleAutomation(ctx, board.module._id, automation({
      trigger: { type: 'column_changed_to', column: stage._id, value: 'Done' },
      actions: [{ type: 'post_amendment', value: 'stage done' }],
    }));
    const stuck = await mkRecord(ctx, board.collection._id);
    await setCell(ctx, stuck, stage._id, 'Stuck');
    await setCell(ctx, board.record, stage._id, 'Done');
    await ctx.eventually(async () => expect(await notes(ctx, board.record._id)).toEqual(['stage done']));
    expect(await notes(ctx, stuck._id)).toEqual([]);
  });

  it('PUT /automations/{automationId} with {isActive: false} pauses the automation', async () => {
    covers('PUT /automations/{automationId}');
    const board = await mkBoard(ctx, await mkWorkspace(ctx));
    const a = await createModuleAutomation(ctx, board.module._id, automation());
    const r = await ctx.owner.send('PUT /automations/{automationId}', { automationId: a._id }, { body: { isActive: false } });
    expect(typeof expectOk(r).message).toBe('string');
    expect(written(ctx, r, 'automation', AutomationSchema).isActive).toBe(false);
    const rec = await mkRecord(ctx, board.collection._id);
    await quiet(ctx);
    expect(await notes(ctx, rec._id)).toEqual([]);
    expect((await listModuleAutomations(ctx, board.module._id))[0].isActive).toBe(false);
  });

  it('PUT /automations/{automationId} with part of an automation: spec applies it, observed answers 400', async () => {
    covers('PUT /automations/{automationId}');
    const board = await mkBoard(ctx, await mkWorkspace(ctx));
    const a = await createModuleAutomation(ctx, board.module._id, automation());
    const r = await ctx.owner.send('PUT /automations/{automationId}', { automationId: a._id }, { body: { name: 'Renamed automation' } });
    if (ctx.spec) expect(written(ctx, r, 'automation', AutomationSchema).name).toBe('Renamed automation');
    else expectJsonError(r, 400);
  });

  if (ctx.observed) {
    it('observed: a complete automation in PUT re-activates it unless isActive: false is sent', async () => {
      covers('PUT /automations/{automationId}');
      const board = await mkBoard(ctx, await mkWorkspace(ctx));
      const body = automation();
      const a = await createModuleAutomation(ctx, board.module._id, body);
      await ctx.owner.send('PUT /automations/{automationId}', { automationId: a._id }, { body: { isActive: false } });
      const r = await ctx.owner.send('PUT /automations/{automationId}', { automationId: a._id }, { body: { ...body, name: 'Again' } });
      expect(written(ctx, r, 'automation', AutomationSchema)).toMatchObject({ name: 'Again', isActive: true });
    });
  }

  it('DELETE /automations/{automationId} answers {message}; the automation stops', async () => {
    covers('DELETE /automations/{automationId}', 'GET /automations/{moduleId}');
    const board = await mkBoard(ctx, await mkWorkspace(ctx));
    const a = await createModuleAutomation(ctx, board.module._id, automation());
    expectMessage(await ctx.owner.send('DELETE /automations/{automationId}', { automationId: a._id }));
    expect(await listModuleAutomations(ctx, board.module._id)).toEqual([]);
    const rec = await mkRecord(ctx, board.collection._id);
    await quiet(ctx);
    expect(await notes(ctx, rec._id)).toEqual([]);
  });

  it('workspace automations: columns by name, listed per workspace, firing on every module', async () => {
    covers('POST /automations/workspace/{workspaceId}', 'GET /automations/workspace/{workspaceId}', 'GET /automations/{moduleId}', 'PUT /automations/{automationId}', 'DELETE /automations/{automationId}');
    const ws = await mkWorkspace(ctx);
    const boards = [await mkBoard(ctx, ws), await mkBoard(ctx, ws)];
    const options = { statusOptions: [{ label: 'Done', color: '#22C55E' }, { label: 'Stuck', color: '#EF4444' }] };
    const columns = [];
    for (const b of boards) columns.push(await mkColumn(ctx, b.module._id, 'status', { ...options, name: 'Stage' }));
    const body = automation({
      trigger: { type: 'column_changed_to', columnName: 'Stage', value: 'Done' },
      actions: [{ type: 'post_amendment', value: 'ws done' }],
    });
    const r = await ctx.owner.send('POST /automations/workspace/{workspaceId}', { workspaceId: ws }, { body });
    expect(typeof expectOk(r).message).toBe('string');
    const a = written(ctx, r, 'automation', AutomationSchema);
    expect(a).toMatchObject({ scope: 'workspace', module: null, workspace: ws, isActive: true });
    const list = listed(await ctx.owner.send('GET /automations/workspace/{workspaceId}', { workspaceId: ws }), 'automations', AutomationSchema);
    expect(list.map((x) => x._id)).toEqual([a._id]);
    expect(list[0].trigger).toMatchObject({ columnName: 'Stage' });
    expect(await listModuleAutomations(ctx, boards[0].module._id)).toEqual([]);
    for (const [i, b] of boards.entries()) await setCell(ctx, b.record, columns[i]._id, 'Done');
    for (const b of boards) await ctx.eventually(async () => expect(await notes(ctx, b.record._id)).toEqual(['ws done']));
    const paused = await ctx.owner.send('PUT /automations/{automationId}', { automationId: a._id }, { body: { isActive: false } });
    expect(written(ctx, paused, 'automation', AutomationSchema)).toMatchObject({ scope: 'workspace', isActive: false });
    expectMessage(await ctx.owner.send('DELETE /automations/{automationId}', { automationId: a._id }));
    expect(listed(await ctx.owner.send('GET /automations/workspace/{workspaceId}', { workspaceId: ws }), 'automations', AutomationSchema)).toEqual([]);
  });

  if (ctx.observed) {
    it('observed: workspace automations match column names case-insensitively', async () => {
      covers('POST /automations/workspace/{workspaceId}');
      const ws = await mkWorkspace(ctx);
      const board = await mkBoard(ctx, ws);
      const col = await mkColumn(ctx, board.module._id, 'text', { name: 'Priority' });
      const r = await ctx.owner.send('POST /automations/workspace/{workspaceId}', { workspaceId: ws }, {
        body: automation({ trigger: { type: 'column_changed_to', columnName: 'priority', value: 'High' }, actions: [{ type: 'post_amendment', value: 'urgent' }] }),
      });
      written(ctx, r, 'automation', AutomationSchema);
      await setCell(ctx, board.record, col._id, 'High');
      await ctx.eventually(async () => expect(await notes(ctx, board.record._id)).toEqual(['urgent']));
    });
  }
});
