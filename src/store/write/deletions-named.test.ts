import { describe, expect, it } from 'vitest';
import { deletionsNamed } from './cursors.js';

describe('deletionsNamed: which vanished modules a module_deleted row explains', () => {
  const modules = [
    { id: 'm1', name: 'Sales' },
    { id: 'm2', name: 'Hiring' },
    { id: 'm3', name: 'Ops' },
  ];
  it('by id where the row carries one, by name only where it carries none', () => {
    const rows = [
      { id: 'm1', name: 'renamed since' },
      { id: null, name: 'Hiring' },
      { id: 'other', name: 'Ops' }, // another module once called Ops: its id says it is not m3
    ];
    expect([...deletionsNamed(modules, rows)].sort()).toEqual(['m1', 'm2']);
  });
  it('no rows, nothing explained', () => {
    expect(deletionsNamed(modules, []).size).toBe(0);
  });
});
