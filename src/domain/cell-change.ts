// One counting of cell changes, for everything that reports them: the diff and the console's
// what-changed page (through restore/diff/trees.ts) and the tripwire (store/read/change-counts.ts). A cell is
// (record, column): added when only the later side has it, removed when only the earlier one does,
// changed when the values differ as data (JSON compared by content, not by text or key order). A
// write that leaves the same value is no change.

/** Key-sorted JSON, so objects compare by content, not by key order. */
export function canon(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0))) : x,
  );
}

/** A cell value as data: JSON text parsed (relation/person arrays, timelines), else the string. */
export function cellData(value: string | null): unknown {
  if (value !== null && (value.startsWith('[') || value.startsWith('{'))) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

export type CellChangeKind = 'added' | 'changed' | 'removed';

/** How one cell changed between two sides (undefined: the side has no such cell); null: it did not. */
export function cellChange(before: { value: string | null } | undefined, after: { value: string | null } | undefined): CellChangeKind | null {
  if (!before) return after ? 'added' : null;
  if (!after) return 'removed';
  return canon(cellData(before.value)) === canon(cellData(after.value)) ? null : 'changed';
}
