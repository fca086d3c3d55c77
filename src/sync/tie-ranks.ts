// Ranks within position ties, from a listing in the service's order: the service lists siblings by
// position, then creation time, and publishes no creation time for collections and columns, so the
// order it listed them in is the only record of which tied sibling came first. Pure.

/** The list with each item's index among the items before it at the same position (missing = 0). */
export function withTieRanks<T extends { position: number | null; tieRank: number | null }>(listing: readonly T[]): T[] {
  const seen = new Map<number, number>();
  return listing.map((item) => {
    const at = typeof item.position === 'number' ? item.position : 0;
    const rank = seen.get(at) ?? 0;
    seen.set(at, rank + 1);
    return { ...item, tieRank: rank };
  });
}
