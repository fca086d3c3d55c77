import { describe, expect, it } from 'vitest';
import { withTieRanks } from './tie-ranks.js';

describe('tie ranks', () => {
  it('counts, per position, the siblings listed before (a missing position is 0)', () => {
    const listing = [
      { id: 'a', position: 0, tieRank: null },
      { id: 'b', position: null, tieRank: null },
      { id: 'c', position: 1, tieRank: null },
      { id: 'd', position: 0, tieRank: null },
    ];
    expect(withTieRanks(listing).map((x) => [x.id, x.tieRank])).toEqual([['a', 0], ['b', 1], ['c', 0], ['d', 2]]);
    expect(listing[0].tieRank).toBeNull(); // the input is not changed
  });
});
