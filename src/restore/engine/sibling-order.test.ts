import { describe, expect, it } from 'vitest';
import { creationOrder, effectivePosition, serviceOrder, tieChains } from './sibling-order.js';

const s = (id: string, position: number | null, createdAt: string | null, parent = 'p') => ({ id, position, createdAt, parent });

describe('sibling order', () => {
  it('sorts like the service: position (missing = 0), then creation time, then input order', () => {
    const list = [s('c', 1, '2026-01-01T00:00:00.003Z'), s('b', 0, '2026-01-01T00:00:00.002Z'), s('a', null, '2026-01-01T00:00:00.001Z'), s('d', 0, '2026-01-01T00:00:00.002Z'), s('e', 1, null)];
    expect(serviceOrder(list).map((x) => x.id)).toEqual(['a', 'b', 'd', 'c', 'e']);
    expect(effectivePosition({ position: null })).toBe(0);
  });

  it('orders by creation time alone when asked, unknown times last', () => {
    expect(creationOrder([{ id: 'x', createdAt: null }, { id: 'y', createdAt: '2026-01-02T00:00:00.000Z' }, { id: 'z', createdAt: '2026-01-03T00:00:00.000Z' }]).map((x) => x.id)).toEqual(['y', 'z', 'x']);
  });

  it('reads the creation time from the raw object when the entity has none (collections, columns)', () => {
    const list = [{ id: 'late', position: 0, raw: { createdAt: '2026-01-02T00:00:00.000Z' } }, { id: 'early', position: 0, raw: { createdAt: '2026-01-01T00:00:00.000Z' } }];
    expect(serviceOrder(list).map((x) => x.id)).toEqual(['early', 'late']);
  });

  it('prefers the rank the listing gave within a tie over creation times', () => {
    const list = [
      { id: 'x', position: 0, tieRank: 1, createdAt: '2026-01-01T00:00:00.000Z' },
      { id: 'y', position: 0, tieRank: 0, createdAt: '2026-01-02T00:00:00.000Z' },
    ];
    expect(serviceOrder(list).map((x) => x.id)).toEqual(['y', 'x']);
  });

  it('chains only siblings that share list and position', () => {
    const list = [s('a', 0, null, 'p1'), s('b', 0, null, 'p1'), s('c', 0, null, 'p2'), s('d', 1, null, 'p1'), s('e', null, null, 'p1')];
    const chains = tieChains(list, (x) => x.parent, 'records');
    expect(chains.get('a')).toBe(chains.get('b'));
    expect(chains.get('e')).toBe(chains.get('a')); // a missing position ties with 0
    expect(chains.has('c')).toBe(false); // alone in its list
    expect(chains.has('d')).toBe(false); // alone at its position
    expect(chains.get('a')).toMatch(/^records:/);
  });
});
