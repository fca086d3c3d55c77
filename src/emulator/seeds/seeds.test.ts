import { describe, expect, it } from 'vitest';
import { buildWorld, DEFAULT_START } from '../build-world.js';
import { EmulatorClockImpl } from '../emulator-clock.js';
import { Serializer } from '../serialize.js';
import { testWorld } from '../test-kit.js';

function fingerprint(dialect: 'spec' | 'observed', seed: 'demo' | 'small'): string {
  const { w } = testWorld(dialect, seed);
  const s = w.state;
  const parts = [s.users, s.workspaces, s.modules, s.collections, s.columns, s.records, s.values, s.amendments, s.automations].map(
    (m) => JSON.stringify([...m.values()].map((d) => Serializer.plain(d))),
  );
  return parts.join('|');
}

describe('seeds', () => {
  it('should rebuild the same demo world for the same random seed', () => {
    expect(fingerprint('spec', 'demo')).toBe(fingerprint('spec', 'demo'));
  });

  it('should rebuild the same small world for the same random seed', () => {
    expect(fingerprint('observed', 'small')).toBe(fingerprint('observed', 'small'));
  });

  it('should give the demo every column type, a private board and a tombstone', () => {
    const { w } = testWorld('spec', 'demo');
    const s = w.state;
    const types = new Set([...s.columns.values()].map((c) => c.type));
    for (const t of ['text', 'number', 'status', 'date', 'timeline', 'person', 'email', 'phone', 'checkbox', 'dropdown', 'link', 'file', 'rating', 'relation', 'reference']) {
      expect(types.has(t)).toBe(true);
    }
    expect([...s.modules.values()].map((m) => m.name)).toEqual(['Sales Pipeline', 'Hiring', 'Product Roadmap', 'Leadership']);
    expect([...s.modules.values()].find((m) => m.name === 'Leadership')?.visibility).toBe('private');
    expect([...s.amendments.values()].some((a) => a.isDeleted)).toBe(true);
    expect([...s.records.values()].some((r) => r.isArchived && !r.isDeleted)).toBe(true);
    expect([...s.automations.values()].some((a) => a.scope === 'workspace')).toBe(true);
    expect([...s.automations.values()].some((a) => !a.isActive)).toBe(true);
  });

  it('should size the large seed from seedParams', () => {
    const clock = new EmulatorClockImpl('manual', DEFAULT_START);
    const { world: w } = buildWorld({ seed: 'large', seedParams: { modules: 2, records: 30, columns: 4, collections: 3 } }, clock, DEFAULT_START);
    const top = [...w.state.records.values()].filter((r) => !r.parentRecord);
    expect(top.length).toBe(60);
    expect(w.state.modules.size).toBe(2);
  });
});

