// What a rollback is about: the kinds and objects selected (by flag or by what the feed shows),
// and one field's three sides as the plan reports them. Shared by the planner, the command, and
// diff narrowed the same way.

import type { Column } from '../domain/entities.js';
import { WbsyncError } from '../domain/errors.js';

export const ROLLBACK_KINDS = ['cells', 'records', 'columns', 'collections', 'amendments'] as const;
export type RollbackKind = (typeof ROLLBACK_KINDS)[number];

/** --kinds as given, checked (a usage error names the unknown one). */
export function checkKinds(kinds: readonly string[] | undefined): RollbackKind[] | undefined {
  if (!kinds?.length) return undefined;
  const unknown = kinds.find((k) => !(ROLLBACK_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw new WbsyncError('usage', `--kinds: unknown kind '${unknown}'`, { hint: `kinds are ${ROLLBACK_KINDS.join(', ')}` });
  return kinds as RollbackKind[];
}

/**
 * --column values (ids or names) as column ids; null when none were given. `columns` lists the
 * snapshot's first: a name both sides use means the snapshot's column.
 */
export function columnIdsOf(wanted: readonly string[] | undefined, columns: readonly Column[], moduleName: string): Set<string> | null {
  if (!wanted?.length) return null;
  const ids = new Set(columns.map((c) => c.id));
  const byName = new Map<string, string>();
  for (const c of columns) if (!byName.has(c.name)) byName.set(c.name, c.id);
  return new Set(
    wanted.map((x) => {
      const id = ids.has(x) ? x : byName.get(x);
      if (!id) throw new WbsyncError('usage', `--column '${x}': no column of module ${moduleName} has that id or name`, { hint: 'name a column as the snapshot or the service has it' });
      return id;
    }),
  );
}

/** What the feed says was changed (in a window, by an actor): the ids its rows name. */
export interface Touched {
  /** Records any row names (their amendments are selected through these). */
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
  /** Cells (`record|column`) the feed shows written after or beside the damage, with why: never
   * put back unless forced (rollback-damage.ts). */
  laterEdits?: ReadonlyMap<string, string>;
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
   * snapshot — or damage the feed did not show (amendment edits on the deployed service) */
  unseen?: true;
  /** A conflict because the feed shows a write after or beside the damage: whose, when. */
  later?: string;
}

