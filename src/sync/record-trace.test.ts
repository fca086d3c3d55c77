import { describe, expect, it } from 'vitest';
import type { Activity } from '../domain/entities.js';
import { makeActivity, makeRecord } from '../store/fixtures.js';
import { RecordTrace } from './record-trace.js';

const row = (id: string, action: string, createdAt: string, over: Partial<Activity> = {}): Activity =>
  makeActivity(id, 'w1', { action, createdAt, moduleId: 'm1', recordId: 'r1', collectionId: 'c1', targetName: 'First', after: null, ...over });

describe('RecordTrace', () => {
  const rows = [
    row('a1', 'record_created', '2026-01-01T00:00:00.000Z', { message: 'created record "First"' }),
    row('a2', 'record_updated', '2026-01-02T00:00:00.000Z', { after: '"Second"', targetName: 'Second' }),
    row('a3', 'record_moved', '2026-01-03T00:00:00.000Z', { collectionId: 'c2', targetName: 'Second' }),
    row('a4', 'cell_updated', '2026-01-04T00:00:00.000Z', { collectionId: 'c9', targetName: 'Status' }),
    row('a5', 'record_deleted', '2026-01-05T00:00:00.000Z', { collectionId: 'c2', targetName: 'Second' }),
  ];

  it('should describe a record as the newest rows say, whatever order the rows came in', () => {
    for (const order of [rows, [...rows].reverse(), [rows[2]!, rows[0]!, rows[4]!, rows[1]!, rows[3]!]]) {
      const t = new RecordTrace();
      t.add(order);
      expect(t.synthesize('r1', 'w1', 'm1')).toMatchObject({
        id: 'r1', moduleId: 'm1', collectionId: 'c2', name: 'Second', isArchived: true, parentRecordId: null, createdAt: '2026-01-01T00:00:00.000Z',
      });
      expect(t.idsInModule('m1')).toEqual(['r1']);
    }
  });

  it('should not place a record the feed says is a sub-record, nor one of another module', () => {
    const t = new RecordTrace();
    t.add([row('s1', 'record_created', '2026-01-01T00:00:00.000Z', { recordId: 's', message: 'created sub-record "x" under "First"' })]);
    expect(t.synthesize('s', 'w1', 'm1')).toBeNull();
    t.add(rows);
    expect(t.synthesize('r1', 'w1', 'other')).toBeNull();
    expect(t.synthesize('unknown', 'w1', 'm1')).toBeNull();
  });

  it('should bring a stored record up to renames and moves logged after its version, and leave it when none are', () => {
    const t = new RecordTrace();
    t.add(rows);
    const stale = makeRecord('r1', 'm1', 'c1', { name: 'First', updatedAt: '2026-01-01T12:00:00.000Z' });
    expect(t.overlay(stale)).toMatchObject({ name: 'Second', collectionId: 'c2', raw: { name: 'Second', collectionName: 'c2' } });
    const fresh = makeRecord('r1', 'm1', 'c2', { name: 'Second', updatedAt: '2026-01-06T00:00:00.000Z' });
    expect(t.overlay(fresh)).toBe(fresh);
    // a sub-record keeps its collection id (the service does not move it with its parent)
    const sub = makeRecord('r1', 'm1', 'c1', { name: 'First', parentRecordId: 'p', updatedAt: '2026-01-01T12:00:00.000Z' });
    expect(t.overlay(sub)).toMatchObject({ name: 'Second', collectionId: 'c1' });
  });
});
