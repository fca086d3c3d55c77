// The store's boundary for erased data: every batch's upserts pass the erasure ledger's judge
// before anything is written, so a sync never stores again what `wbsync erase` removed (a record
// or module still live on the service, an erased person's membership, text, name and email). One
// gate per connection; it reloads the ledger when it changes and remembers, in memory only, the
// erased persons' names and emails met in batches (to find them quoted in other rows).
import type Database from 'better-sqlite3';
import type { EntityKind } from '../../domain/entities.js';
import { UPSERT_ORDER } from '../tables/entity-specs.js';
import { isEmptyErasedSet, judge, learnFrom, type ErasedSet, type PersonText } from './erasure-filter.js';
import { erasedSet, ledgerStamp } from './erasure-ledger.js';
import type { WriteBatch } from '../port.js';

const ID_OF: Partial<Record<EntityKind, string>> = { member: 'userId', moduleAccess: 'userId', reference: 'recordId' };

/** One batch through the gate: call it inside the batch's write transaction, so that an erasure
 * written down before the transaction began is always seen. */
export interface GateSession {
  /** The entity to store (scrubbed if need be), or null: not stored. */
  pass(kind: EntityKind, entity: object): object | null;
  /** Erased entities met (still live on the service): "kind id". */
  refused(): string[];
}

class ErasureGate {
  private stamp = '\0';
  private set: ErasedSet | null = null;
  private readonly people = new Map<string, PersonText>();

  constructor(private readonly db: Database.Database) {}

  private current(): ErasedSet | null {
    const stamp = ledgerStamp(this.db);
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      const s = erasedSet(this.db);
      this.set = isEmptyErasedSet(s) ? null : s;
    }
    return this.set;
  }

  /** Null when the ledger is empty: nothing to filter. */
  begin(batch: WriteBatch): GateSession | null {
    const set = this.current();
    if (!set || !batch.upserts) return null;
    const ups = batch.upserts as Record<string, object[] | undefined>;
    // what the batch says of erased persons (their member row, user summaries), learnt first
    for (const [key, kind] of UPSERT_ORDER) for (const e of ups[key] ?? []) learnFrom(kind, e, set.users, this.people);
    const refused = new Set<string>();
    const people = this.people;
    return {
      pass(kind, entity) {
        const v = judge(kind, entity, set, people);
        if (v.action === 'keep') return entity;
        if (v.action === 'scrub') return v.entity;
        const id = (entity as Record<string, unknown>)[ID_OF[kind] ?? 'id'];
        if (kind === 'record' || kind === 'module' || kind === 'member') refused.add(`${kind === 'member' ? 'user' : kind} ${String(id)}`);
        return null;
      },
      refused: () => [...refused].sort(),
    };
  }
}

const gates = new WeakMap<Database.Database, ErasureGate>();

/** The gate of this connection (made on first use). */
export function erasureGate(db: Database.Database): ErasureGate {
  let g = gates.get(db);
  if (!g) gates.set(db, (g = new ErasureGate(db)));
  return g;
}
