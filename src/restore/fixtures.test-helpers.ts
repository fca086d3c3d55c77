// Small module trees for the pure planner and diff tests.

import type { Amendment, Automation, BoardRecord, Cell, Collection, Column, Module } from '../domain/entities.js';
import type { ModuleTree } from './engine/tree.js';

const T = '2026-01-01T00:00:00.000Z';

export function mod(id: string, over: Partial<Module> = {}): Module {
  return { id, workspaceId: 'ws', name: 'Board', description: null, icon: '📋', color: '#111111', visibility: 'workspace', tags: [], createdAt: T, updatedAt: T, raw: {}, ...over };
}
export function coll(id: string, name: string, position: number): Collection {
  return { id, moduleId: 'm1', name, color: null, position, isCollapsed: false, tieRank: null, raw: {} };
}
export function col(id: string, name: string, over: Partial<Column> = {}): Column {
  return { id, moduleId: 'm1', scope: 'record', name, type: 'text', position: 0, width: 180, isRequired: false, isHidden: false, statusOptions: null, settings: null, tieRank: null, raw: {}, ...over };
}
export function rec(id: string, name: string, over: Partial<BoardRecord> = {}): BoardRecord {
  return { id, workspaceId: 'ws', moduleId: 'm1', collectionId: 'c1', parentRecordId: null, name, position: 0, isCompleted: false, isArchived: false, subRecordCount: 0, amendmentCount: 0, createdAt: T, updatedAt: T, raw: {}, ...over };
}
export function cell(id: string, recordId: string, columnId: string, value: string): Cell {
  return { id, recordId, columnId, value, createdAt: T, updatedAt: T, raw: {} };
}
export function amendment(id: string, recordId: string, message: string, over: Partial<Amendment> = {}): Amendment {
  return { id, workspaceId: 'ws', moduleId: 'm1', recordId, parentId: null, userId: 'u1', message, edited: false, isDeleted: false, createdAt: T, raw: {}, ...over };
}
export function automation(id: string, name: string, over: Partial<Automation> = {}): Automation {
  return { id, workspaceId: 'ws', moduleId: 'm1', scope: 'module', name, trigger: { type: 'record_created' }, conditions: [], match: 'all', actions: [], isActive: true, runCount: 3, lastRunAt: T, lastError: null, createdAt: T, raw: {}, ...over };
}

/** A board with a self-relation, a reference through it, a relation into another module, a
 * thread with a reply and a tombstone, a sub-record, an archived record, a grant and an automation. */
export function sampleTree(): ModuleTree {
  return {
    module: mod('m1'),
    collections: [coll('c2', 'Done', 1), coll('c1', 'Todo', 0)],
    columns: [
      col('k-ref', 'Linked status', { type: 'reference', position: 3, settings: { via: 'k-rel', field: 'k-status', aggregate: 'list' } }),
      col('k-rel', 'Linked', { type: 'relation', position: 2, settings: { targetModule: 'm1', displayField: 'k-name' } }),
      col('k-name', 'Notes', { position: 0 }),
      col('k-status', 'Status', { type: 'status', position: 1, statusOptions: [{ label: 'Done', color: '#0f0' }] }),
      col('k-other', 'Customer', { type: 'relation', position: 4, settings: { targetModule: 'm-dead' } }),
      col('k-live', 'Account', { type: 'relation', position: 5, settings: { targetModule: 'm-live' } }),
      col('k-sub', 'Owner', { scope: 'subrecord', type: 'person', position: 0 }),
    ],
    records: [
      rec('r1', 'First', { position: 0, isCompleted: true }),
      rec('r2', 'Second', { position: 1, collectionId: 'c2', isArchived: true }),
      rec('s1', 'Sub', { parentRecordId: 'r1', collectionId: 'c1' }),
    ],
    cells: [
      cell('v1', 'r1', 'k-rel', '["r2"]'),
      cell('v2', 'r1', 'k-name', 'hello'),
      cell('v3', 'r2', 'k-live', '["x-live-record"]'),
      cell('v4', 's1', 'k-sub', '["u1"]'),
    ],
    amendments: [
      amendment('a2', 'r1', 'a reply', { parentId: 'a1', createdAt: '2026-01-02T00:00:00.000Z' }),
      amendment('a1', 'r1', '', { isDeleted: true, userId: null }),
      amendment('a3', 'r1', 'edited text', { edited: true, createdAt: '2026-01-03T00:00:00.000Z' }),
    ],
    automations: [
      automation('au1', 'Move done', {
        trigger: { type: 'column_changed_to', column: 'k-status', value: 'Done' },
        actions: [{ type: 'move_to_collection', collectionName: 'c2' }, { type: 'create_record', targetModule: 'm-dead' }],
        isActive: false,
      }),
    ],
    grants: ['u2', 'u-gone'],
  };
}
