import { describe, expect, it } from 'vitest';
import { emptyErasedSet } from './erasure-filter.js';
import { moduleSelection, needles, perSnapshot, recordClosure, withTarget, type RecordLink } from './selection.js';

const link = (id: string, parent: string | null, mod = 'm1'): RecordLink => ({ id, parentRecordId: parent, moduleId: mod, workspaceId: 'w1' });

describe('recordClosure', () => {
  it('takes the sub-records beneath a record through every version, and nothing else', () => {
    const links = [link('r1', null), link('s1', 'r1'), link('s2', 'r1'), link('s2', 'r9'), link('ss1', 's2'), link('r2', null), link('s3', 'r2')];
    expect(recordClosure(['r1'], links).map((x) => x.entityId)).toEqual(['r1', 's1', 's2', 'ss1']);
    // a sub-record moved under r9 in some version: erasing r9 takes it (and what is beneath it) too
    expect(recordClosure(['r9'], links).map((x) => x.entityId)).toEqual(['r9', 's2', 'ss1']);
    expect(recordClosure(['r1'], links)[0]).toEqual({ kind: 'record', entityId: 'r1', moduleId: 'm1', workspaceId: 'w1' });
  });

  it('survives a cycle in the parent links', () => {
    expect(recordClosure(['a'], [link('a', 'b'), link('b', 'a')]).map((x) => x.entityId)).toEqual(['a', 'b']);
  });
});

describe('moduleSelection', () => {
  it('is the module and every record that ever lived in it', () => {
    const links = [link('r1', null, 'm1'), link('r2', null, 'm2'), link('r2', null, 'm1'), link('s1', 'r2', 'm2')];
    const sel = moduleSelection('m1', 'w1', links);
    expect(sel[0]).toEqual({ kind: 'module', entityId: 'm1', moduleId: 'm1', workspaceId: 'w1' });
    expect(sel.slice(1).map((x) => x.entityId)).toEqual(['r1', 'r2', 's1']);
  });
});

describe('withTarget and needles', () => {
  it('adds a target to the erased set and lists the strings a row is looked at for', () => {
    const set = withTarget(emptyErasedSet(), { kind: 'user', id: 'user0001' }, []);
    const set2 = withTarget(set, { kind: 'record', id: 'rec00001' }, [{ kind: 'record', entityId: 'rec00001', moduleId: null, workspaceId: null }, { kind: 'amendment', entityId: 'am000001', moduleId: null, workspaceId: null }]);
    expect([...set2.users]).toEqual(['user0001']);
    expect([...set2.records]).toEqual(['rec00001']);
    expect([...set2.amendments]).toEqual(['am000001']);
    const people = new Map([['user0001', { texts: new Set(['g@x.example', 'Grace Hopper']), mentions: new Set(['@Grace']), said: new Set(['my note']) }]]);
    expect(needles(set2, people)).toEqual(['@Grace', 'Grace Hopper', 'am000001', 'g@x.example', 'rec00001', 'user0001']);
  });
});

describe('perSnapshot', () => {
  it('counts the touched versions each snapshot shows ([from, to) intervals)', () => {
    expect(perSnapshot([[1, 3], [2, null], [5, 6]], [1, 2, 3, 4, 5, 6])).toEqual({ 1: 1, 2: 2, 3: 1, 4: 1, 5: 2, 6: 1 });
    // forgotten snapshots are not listed: an interval spanning them counts for the survivors only
    expect(perSnapshot([[2, 7]], [1, 4, 7])).toEqual({ 4: 1 });
    expect(perSnapshot([], [1, 2])).toEqual({});
  });
});
