// The shape of one numbered migration. Later features append theirs to the registry in index.ts.

export interface Migration {
  /** Strictly increasing, never reused; the NNN in the file name. */
  readonly version: number;
  readonly name: string;
  /** Applied with db.exec inside its own transaction. Frozen once released: fix forward. */
  readonly sql: string;
  /** Run after `sql`, in the same transaction: for what SQL text alone cannot say. */
  readonly run?: (db: import('better-sqlite3').Database) => void;
  /**
   * Run inside an exported copy (wbsync export) to drop what belongs to this database's life rather
   * than to the service's state: cursors, restore journals... Optional.
   */
  readonly exportCleanup?: string;
}
