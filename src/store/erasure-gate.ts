// The store's boundary for erased data: every batch's upserts pass the erasure ledger's judge
// before anything is written, so a sync never stores again what `wbsync erase` removed (a record
// or module still live on the service, an erased person's membership, text, name and email). One
// gate per connection; it reloads the ledger when it changes and remembers, in memory only, the
// erased persons' names and emails met in batches (to find them quoted in other rows).
import type Database from 'better-sqlite3';
import type { EntityKind } from '../domain/entities.js';
import { UPSERT_ORDER } from './entity-specs.js';
import { isEmptyErasedSet, judge, learnFrom, type ErasedSet, type PersonText } from './erasure-filter.js';
import { erasedSet, ledgerStamp } from './erasure-ledger.js';
import type { Upserts, WriteBatch } from './port.js';

export interface GateOutcome {
  batch: WriteBatch;
  /** Erased entities the batch brought (still live on the service): "kind id", dropped. */
  refused: string[];
}

const ID_OF: Partial<Record<EntityKind, string>> = { member: 'userId', moduleAccess: 'userId', reference: 'recordId' };

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

  filter(batch: WriteBatch): GateOutcome {
    const set = this.current();
    if (!set || !batch.upserts) return { batch, refused: [] };
    const ups = batch.upserts as Record<string, object[] | undefined>;
    for (const [key, kind] of UPSERT_ORDER) for (const e of ups[key] ?? []) learnFrom(kind, e, set.users, this.people);
    const out: Record<string, object[]> = {};
    const refused = new Set<string>();
    for (const [key, kind] of UPSERT_ORDER) {
      const list = ups[key];
      if (!list) continue;
      const kept: object[] = [];
      for (const e of list) {
        const v = judge(kind, e, set, this.people);
        if (v.action === 'keep') kept.push(e);
        else if (v.action === 'scrub') kept.push(v.entity);
        else {
          const id = (e as Record<string, unknown>)[ID_OF[kind] ?? 'id'];
          if (kind === 'record' || kind === 'module' || kind === 'member') refused.add(`${kind === 'member' ? 'user' : kind} ${String(id)}`);
        }
      }
      out[key] = kept;
    }
    return { batch: { ...batch, upserts: out as Upserts }, refused: [...refused].sort() };
  }
}

const gates = new WeakMap<Database.Database, ErasureGate>();

/** The gate of this connection (made on first use). */
export function erasureGate(db: Database.Database): ErasureGate {
  let g = gates.get(db);
  if (!g) gates.set(db, (g = new ErasureGate(db)));
  return g;
}
