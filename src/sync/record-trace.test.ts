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

  describe('rows an earlier pass stored (the deployed service logs a write after stamping updatedAt)', () => {
    // four renames sent in the same millisecond: applied in one order (the last, ".1", is what
    // the listing showed), logged in another, each row a few ms after the update it describes
    const burst = [
      row('b0', 'record_updated', '2026-01-02T00:00:00.004Z', { after: '"same ms 121.0"', targetName: 'same ms 121.0' }),
      row('b1', 'record_updated', '2026-01-02T00:00:00.005Z', { after: '"same ms 121.1"', targetName: 'same ms 121.1' }),
      row('b2', 'record_updated', '2026-01-02T00:00:00.007Z', { after: '"same ms 121.2"', targetName: 'same ms 121.2' }),
      row('b3', 'record_updated', '2026-01-02T00:00:00.007Z', { after: '"same ms 121.3"', targetName: 'same ms 121.3' }),
    ];
    // the version the listing showed after the burst, stored by snapshot 5; archived since (no row)
    const listed = makeRecord('r1', 'm1', 'c1', { name: 'same ms 121.1', updatedAt: '2026-01-02T00:00:00.003Z' });

    it('should not take them as newer than a version stored by the same pass or later', () => {
      for (const order of [burst, [...burst].reverse()]) {
        const t = new RecordTrace();
        t.add(order, new Map(burst.map((r) => [r.id, 5])));
        expect(t.overlay(listed, 5)).toBe(listed);
        expect(t.overlay(listed, 7)).toBe(listed);
        // no snapshot known for the version: only fresh rows count
        expect(t.overlay(listed)).toBe(listed);
        // the same rows fresh (never stored) are read as newer, by time (then by name)
        const unseen = new RecordTrace();
        unseen.add(order);
        expect(unseen.overlay(listed, 5)).toMatchObject({ name: 'same ms 121.3' });
      }
    });

    it('should take them when stored after the version (a pass that stored the rows but not the record)', () => {
      const t = new RecordTrace();
      t.add(rows, 6);
      const stale = makeRecord('r1', 'm1', 'c1', { name: 'First', updatedAt: '2026-01-01T12:00:00.000Z' });
      expect(t.overlay(stale, 5)).toMatchObject({ name: 'Second', collectionId: 'c2' });
      expect(t.overlay(stale, 6)).toBe(stale);
    });

    it('should weigh fresh rows when the newest row is one stored before the version', () => {
      const t = new RecordTrace();
      const old = row('o1', 'record_updated', '2026-01-03T00:00:00.000Z', { after: '"Old"', targetName: 'Old' });
      const late = row('n1', 'record_moved', '2026-01-02T12:00:00.000Z', { collectionId: 'c7', targetName: 'First' });
      t.add([old], 4);
      t.add([late]);
      const base = makeRecord('r1', 'm1', 'c1', { name: 'First', updatedAt: '2026-01-02T00:00:00.000Z' });
      expect(t.overlay(base, 5)).toMatchObject({ name: 'First', collectionId: 'c7' });
      // the synthesized record (never stored) takes the newest row whoever stored it
      expect(t.synthesize('r1', 'w1', 'm1')).toMatchObject({ name: 'Old', collectionId: 'c1' });
    });
  });

  it('should take a move whose collection is null as a move into a collection that is gone (unreachable), and other rows without one as saying nothing', () => {
    const t = new RecordTrace();
    t.add([
      row('c1', 'record_created', '2026-01-01T00:00:00.000Z', { message: 'created record "First"' }),
      row('m1', 'record_moved', '2026-01-02T00:00:00.000Z', { collectionId: null }),
      row('u1', 'record_updated', '2026-01-03T00:00:00.000Z', { collectionId: null, after: '"Renamed"', targetName: 'Renamed' }),
    ]);
    const stored = makeRecord('r1', 'm1', 'c1', { name: 'First', updatedAt: '2026-01-01T00:00:00.000Z' });
    expect(t.overlay(stored)).toMatchObject({ collectionId: null, name: 'Renamed' });
    expect(t.synthesize('r1', 'w1', 'm1')).toBeNull();
    // moved again, into a live collection: placed there
    t.add([row('m2', 'record_moved', '2026-01-04T00:00:00.000Z', { collectionId: 'c3' })]);
    expect(t.overlay(stored)).toMatchObject({ collectionId: 'c3' });
    expect(t.synthesize('r1', 'w1', 'm1')).toMatchObject({ collectionId: 'c3' });
  });
});
