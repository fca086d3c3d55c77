import { describe, expect, it } from 'vitest';
import { attributionPattern, diffModuleTrees, stripAttribution } from './trees.js';
import { sampleTree } from '../fixtures.test-helpers.js';
import type { ModuleTree } from '../engine/tree.js';

/** The sample with every id renamed, as a restore would leave it. */
function restoredCopy(t: ModuleTree, line = ''): ModuleTree {
  const re = (s: string): string => s.replace(/\b(m1|c\d|k-[a-z]+|r\d|s\d|v\d|a\d|au\d)\b/g, 'N$1');
  const copy = JSON.parse(re(JSON.stringify(t))) as ModuleTree;
  copy.amendments = copy.amendments.map((a) => ({ ...a, userId: 'restorer', createdAt: '2027-01-01T00:00:00.000Z', message: line ? (a.message ? `${a.message}\n\n${line}` : a.message) : a.message }));
  copy.records = copy.records.map((r) => ({ ...r, updatedAt: 'later', subRecordCount: 9 }));
  copy.automations = copy.automations.map((a) => ({ ...a, runCount: 0, lastRunAt: null }));
  return copy;
}

describe('diffModuleTrees', () => {
  it('should find nothing between a tree and itself, ignoring volatile fields', () => {
    const a = sampleTree();
    const b = sampleTree();
    b.records[0] = { ...b.records[0], updatedAt: 'x', amendmentCount: 42 };
    b.automations[0] = { ...b.automations[0], runCount: 99, lastError: 'boom' };
    expect(diffModuleTrees(a, b, { matchBy: 'id' }).entries).toEqual([]);
  });

  it('should report added, removed and changed entities field by field, cells by value', () => {
    const a = sampleTree();
    const b = sampleTree();
    b.records[0] = { ...b.records[0], name: 'Renamed', position: 5 };
    b.cells = b.cells.filter((c) => c.id !== 'v2');
    b.cells[0] = { ...b.cells[0], value: '["r1"]' };
    b.collections.push({ ...b.collections[0], id: 'c9', name: 'New' });
    const d = diffModuleTrees(a, b, { matchBy: 'id' });
    expect(d.entries.map((e) => `${e.change} ${e.entity} ${e.label}`).sort()).toEqual([
      'added collection New',
      'changed cell First · Linked',
      'changed record Todo / First',
      'removed cell First · Notes',
    ]);
    expect(d.entries.find((e) => e.entity === 'record')!.fields).toEqual([
      { field: 'name', before: 'First', after: 'Renamed' },
      { field: 'position', before: 0, after: 5 },
    ]);
  });

  it('should match a restored copy modulo ids: no difference, authors/times and attribution aside', () => {
    const a = sampleTree();
    const line = 'Restored by wbsync — originally by Ada at 2026-01-01.';
    const b = restoredCopy(a, line);
    const d = diffModuleTrees(a, b, { matchBy: 'shape', acrossRestore: true, attribution: 'Restored by wbsync — originally by {author} at {createdAt}.' });
    expect(d.entries).toEqual([]);
    // the same copy compared by id is all different
    expect(diffModuleTrees(a, b, { matchBy: 'id' }).entries.length).toBeGreaterThan(10);
    // and a real change in the copy still shows
    b.cells[1] = { ...b.cells[1], value: 'changed' };
    expect(diffModuleTrees(a, b, { matchBy: 'shape', acrossRestore: true, attribution: 'Restored by wbsync — originally by {author} at {createdAt}.' }).entries).toHaveLength(1);
  });

  it('should skip archived records a live read cannot list, and say so', () => {
    const a = sampleTree();
    const b = sampleTree();
    b.records = b.records.filter((r) => r.id !== 'r2');
    b.cells = b.cells.filter((c) => c.recordId !== 'r2');
    const d = diffModuleTrees(a, b, { matchBy: 'id', bHidesArchived: true });
    expect(d.entries).toEqual([]);
    expect(d.notes[0]).toContain('archived');
  });

  it('stripAttribution strips only the appended line', () => {
    const p = attributionPattern('by {author} at {createdAt}.');
    expect(stripAttribution('hello\n\nby Ada at 2026.', p)).toBe('hello');
    expect(stripAttribution('by Ada at 2026.', p)).toBe('');
    expect(stripAttribution('hello by Ada at 2026.', p)).toBe('hello by Ada at 2026.');
  });

  it('stripAttribution keeps an earlier restore\'s line (an amendment restored twice)', () => {
    const p = attributionPattern('by {author} at {createdAt}.');
    expect(stripAttribution('hello\n\nby Ada at 2026.\n\nby Bob at 2027.', p)).toBe('hello\n\nby Ada at 2026.');
  });
});
