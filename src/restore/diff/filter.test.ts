import { describe, expect, it } from 'vitest';
import type { EntityDiff } from './trees.js';
import { filterEntries } from './filter.js';
import { cell, col, coll, mod, amendment, rec } from '../fixtures.test-helpers.js';
import type { ModuleTree } from '../engine/tree.js';

const tree = (over: Partial<ModuleTree> = {}): ModuleTree => ({
  module: mod('m1'),
  collections: [coll('c1', 'Todo', 0), coll('c2', 'Done', 1)],
  columns: [col('k1', 'Status'), col('k2', 'Notes')],
  records: [rec('r1', 'Alpha'), rec('r2', 'Beta', { collectionId: 'c2' }), rec('s1', 'Step', { parentRecordId: 'r1' })],
  cells: [cell('v1', 'r1', 'k1', 'a'), cell('v2', 'r2', 'k1', 'b'), cell('v3', 's1', 'k2', 'c')],
  amendments: [amendment('a1', 'r2', 'hi')],
  automations: [],
  grants: null,
  ...over,
});

const entries: EntityDiff[] = [
  { entity: 'cell', change: 'changed', id: 'v1', label: '' },
  { entity: 'cell', change: 'changed', id: 'v2', label: '' },
  { entity: 'cell', change: 'changed', id: 'v3', label: '' },
  { entity: 'record', change: 'changed', id: 'r2', label: '' },
  { entity: 'amendment', change: 'removed', id: 'a1', label: '' },
  { entity: 'column', change: 'changed', id: 'k2', label: '' },
  { entity: 'collection', change: 'changed', id: 'c2', label: '' },
  { entity: 'automation', change: 'changed', id: 'x', label: '' },
];
const none = { kinds: null, columns: null, records: null, collections: null };
const ids = (es: EntityDiff[]): string[] => es.map((e) => e.id);

describe('diff narrowed to a rollback selection', () => {
  it('keeps everything when nothing narrows it', () => {
    expect(filterEntries(entries, tree(), tree(), new Map(), none)).toBe(entries);
  });
  it('by column: that column and its cells', () => {
    expect(ids(filterEntries(entries, tree(), tree(), new Map(), { ...none, columns: new Set(['k2']) }))).toEqual(['v3', 'k2']);
  });
  it('by record: the record, its sub-records\' and its own cells, its amendments', () => {
    expect(ids(filterEntries(entries, tree(), tree(), new Map(), { ...none, records: new Set(['r1']) }))).toEqual(['v1', 'v3']);
    expect(ids(filterEntries(entries, tree(), tree(), new Map(), { ...none, records: new Set(['r2']) }))).toEqual(['v2', 'r2', 'a1']);
  });
  it('by collection and by kinds; automations never belong to a selection', () => {
    expect(ids(filterEntries(entries, tree(), tree(), new Map(), { ...none, collections: new Set(['c2']) }))).toEqual(['v2', 'r2', 'a1', 'c2']);
    expect(ids(filterEntries(entries, tree(), tree(), new Map(), { ...none, kinds: new Set(['columns', 'collections'] as const) }))).toEqual(['k2', 'c2']);
  });
  it('places an added cell by its own side: a kept cell of a deleted column is not in the recreated copy', () => {
    const b = tree({ columns: [col('k1', 'Status'), col('k2new', 'Notes')], cells: [cell('v1', 'r1', 'k1', 'a'), { ...cell('v3', 's1', 'k2', 'c'), columnId: null }, cell('v9', 's1', 'k2new', 'c')] });
    const added: EntityDiff[] = [{ entity: 'cell', change: 'added', id: 'v3', label: '' }, { entity: 'cell', change: 'added', id: 'v9', label: '' }];
    expect(ids(filterEntries(added, tree(), b, new Map([['k2', 'k2new']]), { ...none, columns: new Set(['k2']) }))).toEqual(['v9']);
  });
});
