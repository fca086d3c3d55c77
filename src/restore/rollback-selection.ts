// What a rollback is about: the kinds and objects selected (by flag or by what the feed shows),
// and one field's three sides as the plan reports them. Shared by the planner, the command, and
// diff narrowed the same way.

export const ROLLBACK_KINDS = ['cells', 'records', 'columns', 'collections', 'amendments'] as const;
export type RollbackKind = (typeof ROLLBACK_KINDS)[number];

/** What the feed says was changed (in a window, by an actor): the ids its rows name. */
export interface Touched {
  /** Records any row names (their notes are selected through these). */
  records: ReadonlySet<string>;
  /** Record fields the rows changed, per record (name, collectionId, position, isCompleted, isArchived). */
  recordFields: ReadonlyMap<string, ReadonlySet<string>>;
  columns: ReadonlySet<string>;
  collections: ReadonlySet<string>;
  /** `${recordId}|${columnId}` of cell writes. */
  cells: ReadonlySet<string>;
}

export interface RollbackSelection {
  kinds: ReadonlySet<RollbackKind>;
  /** --kinds was given: records created since are archived only when it names records. */
  kindsNamed: boolean;
  columns: ReadonlySet<string> | null;
  /** Records (their sub-records included). */
  records: ReadonlySet<string> | null;
  collections: ReadonlySet<string> | null;
  touched: Touched | null;
}

/** One field: what it is live, what the snapshot had, what the damage left. */
export interface FieldChange {
  entity: 'cell' | 'record' | 'column' | 'collection' | 'amendment';
  id: string;
  label: string;
  field: string;
  live: unknown;
  base: unknown;
  after: unknown;
  /** A conflict the damage snapshot does not show either (after = base): edited after the latest
   * snapshot — or damage the feed did not show (note edits on the deployed service) */
  unseen?: true;
}

