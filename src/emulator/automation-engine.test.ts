import { describe, expect, it } from 'vitest';
import { drainEvents, MAX_DEPTH } from './automation-engine.js';
import type { AutomationDoc, Json } from './docs.js';
import { testBoard, type TestBoard } from './test-kit.js';
import { createRecord, setCell } from './writes-records.js';
import { personActor } from './actor.js';

function automation(b: TestBoard, over: Partial<AutomationDoc> & { trigger: { [k: string]: Json }; actions: Json[] }): AutomationDoc {
  const at = b.w.state.clock.stamp();
  const doc: AutomationDoc = {
    _id: b.w.state.ids.id(),
    workspace: b.ws._id,
    module: b.mod._id,
    scope: 'module',
    name: 'test automation',
    conditions: [],
    match: 'all',
    isActive: true,
    runCount: 0,
    lastRunAt: null,
    lastError: '',
    createdBy: b.owner._id,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
    ...over,
  };
  b.w.state.addAutomation(doc);
  return doc;
}

describe('automation engine', () => {
  it('should complete and move a record when a status changes to a value', () => {
    const b = testBoard('spec');
    const a = automation(b, {
      trigger: { type: 'column_changed_to', column: b.status._id, value: 'Done' },
      actions: [{ type: 'set_completed', value: true }, { type: 'move_to_collection', collectionName: b.collections[1]! }],
    });
    setCell(b.w, personActor(b.owner), b.mod, b.rec, b.status, 'Done');
    drainEvents(b.w);
    expect(b.rec.isCompleted).toBe(true);
    expect(b.rec.collectionName).toBe(b.collections[1]);
    expect(a.runCount).toBe(1);
    const rows = b.w.activity.page(b.ws._id, { limit: 50, before: null, visibleModules: null, source: 'automation' }).rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.automation?._id === a._id)).toBe(true);
  });

  it('should match workspace automations by column name, case-insensitively', () => {
    const b = testBoard('observed');
    automation(b, {
      module: null,
      scope: 'workspace',
      trigger: { type: 'record_created' },
      actions: [{ type: 'set_column_value', columnName: 'note', value: 'auto' }],
    });
    const rec = createRecord(b.w, personActor(b.owner), b.mod, b.collections[0]!, 'Second', null);
    drainEvents(b.w);
    expect(b.w.state.valueOf(rec._id, b.text._id)?.value).toBe('auto');
  });

  it('should respect conditions with match any/all', () => {
    const b = testBoard('spec');
    const a = automation(b, {
      trigger: { type: 'record_created' },
      conditions: [{ source: 'record', field: 'name', op: 'starts_with', value: 'urgent' }],
      actions: [{ type: 'rename_record', value: '[!] {{name}}' }],
    });
    const actor = personActor(b.owner);
    const calm = createRecord(b.w, actor, b.mod, b.collections[0]!, 'calm', null);
    const hot = createRecord(b.w, actor, b.mod, b.collections[0]!, 'Urgent fix', null);
    drainEvents(b.w);
    expect(calm.name).toBe('calm');
    expect(hot.name).toBe('[!] Urgent fix');
    expect(a.runCount).toBe(1);
  });

  it('should cap chains of automations that set each other off', () => {
    const b = testBoard('spec');
    const ping = automation(b, {
      trigger: { type: 'column_changed', column: b.text._id },
      actions: [{ type: 'set_column_value', column: b.status._id, value: 'Open' }],
    });
    const pong = automation(b, {
      trigger: { type: 'column_changed', column: b.status._id },
      actions: [{ type: 'set_column_value', column: b.text._id, value: 'again' }],
    });
    setCell(b.w, personActor(b.owner), b.mod, b.rec, b.text, 'start');
    drainEvents(b.w);
    expect(ping.runCount + pong.runCount).toBeLessThanOrEqual(MAX_DEPTH);
    expect(b.w.events.length).toBe(0);
  });

  it('should record the error of a failing action without counting a run', () => {
    const b = testBoard('spec');
    const a = automation(b, { trigger: { type: 'record_created' }, actions: [{ type: 'set_column_value', column: 'nope', value: 'x' }] });
    createRecord(b.w, personActor(b.owner), b.mod, b.collections[0]!, 'x', null);
    drainEvents(b.w);
    expect(a.runCount).toBe(0);
    expect(a.lastError).toMatch(/not found/);
    expect(a.lastRunAt).not.toBeNull();
  });

  it('should leave inactive automations alone', () => {
    const b = testBoard('spec');
    const a = automation(b, { isActive: false, trigger: { type: 'record_created' }, actions: [{ type: 'set_completed' }] });
    createRecord(b.w, personActor(b.owner), b.mod, b.collections[0]!, 'x', null);
    drainEvents(b.w);
    expect(a.runCount).toBe(0);
  });
});
