// Which cell writes are the damage and which came after or beside it, from the activity feed —
// pure. A rollback pinned to a tripwire incident (its actors and their rows' time range) reverts
// only cells whose latest write is the damaging one; every other write on a damaged cell (another
// member's fix in the same pass window, a later edit, synced or not) is a conflict, kept. Without a
// pin, a cell the feed shows written by one actor and then by another since the snapshot is a
// conflict too: the later write may be a person's fix, and is never overwritten silently.

import type { Activity } from '../../domain/entities.js';
import type { Touched } from './selection.js';

export interface DamagePin {
  incident: number;
  /** Actor ids blamed (user ids, or `automation:<id>`). */
  actors: readonly string[];
  /** The first and last feed row of the damage (ISO). */
  from: string;
  to: string;
}

export interface FeedVerdicts {
  /** Cells (`record|column`) whose latest write is the damage (pinned). */
  damaged: Set<string>;
  /** Cells written after or beside the damage: why, for the conflict's line. */
  later: Map<string, string>;
}

const whoOf = (a: Activity): string => (a.automationId ? `automation:${a.automationId}` : (a.userId ?? '?'));

/**
 * @param rows the workspace's feed as stored
 * @param since the snapshot gone back to started then: writes from then on are what changed since
 * @param names actor id → a readable name
 */
export function feedVerdicts(rows: readonly Activity[], moduleId: string, since: string, pin: DamagePin | null, names: (who: string) => string = (w) => w): FeedVerdicts {
  const byCell = new Map<string, Activity[]>();
  for (const a of rows) {
    if (a.moduleId !== moduleId || !a.recordId || !a.columnId || a.createdAt < since) continue;
    const key = `${a.recordId}|${a.columnId}`;
    const list = byCell.get(key);
    if (list) list.push(a);
    else byCell.set(key, [a]);
  }
  const out: FeedVerdicts = { damaged: new Set(), later: new Map() };
  const isDamage = (a: Activity): boolean => !!pin && pin.actors.includes(whoOf(a)) && a.createdAt >= pin.from && a.createdAt <= pin.to;
  for (const [key, list] of byCell) {
    list.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    const last = list[list.length - 1]!;
    if (pin) {
      if (!list.some(isDamage)) continue; // not part of this damage
      // the damage alone wrote it since the snapshot: put back; anyone else's write is kept
      const other = [...list].reverse().find((a) => !isDamage(a) || whoOf(a) !== whoOf(last));
      if (!other) out.damaged.add(key);
      else if (!isDamage(last)) out.later.set(key, `edited after the damage of incident ${pin.incident}: by ${names(whoOf(last))} at ${last.createdAt}`);
      else out.later.set(key, `written besides the damage of incident ${pin.incident}: by ${names(whoOf(other))} at ${other.createdAt}`);
      continue;
    }
    const first = list[0]!;
    if (whoOf(first) !== whoOf(last)) out.later.set(key, `the feed shows ${names(whoOf(first))} changed it at ${first.createdAt}, then ${names(whoOf(last))} at ${last.createdAt}`);
  }
  return out;
}

/** The selection a pinned rollback works on: the damaged cells and the later writes on them. */
export function touchedByPin(v: FeedVerdicts): Touched {
  const cells = new Set([...v.damaged, ...v.later.keys()]);
  return { records: new Set([...cells].map((k) => k.split('|')[0]!)), recordFields: new Map(), columns: new Set(), collections: new Set(), cells };
}

/** A write the three sides would put back is a conflict when the feed shows a later edit. */
export function pinnedVerdict<V extends string>(v: V, later: string | undefined): V | 'conflict' {
  return v === 'restore' && later !== undefined ? 'conflict' : v;
}

/** One selection from several (a pin's cells and each blamed actor's other rows). */
export function mergeTouched(list: readonly Touched[]): Touched {
  const recordFields = new Map<string, Set<string>>();
  for (const t of list) for (const [id, fields] of t.recordFields) recordFields.set(id, new Set([...(recordFields.get(id) ?? []), ...fields]));
  const union = (pick: (t: Touched) => ReadonlySet<string>): Set<string> => new Set(list.flatMap((t) => [...pick(t)]));
  return { records: union((t) => t.records), recordFields, columns: union((t) => t.columns), collections: union((t) => t.collections), cells: union((t) => t.cells) };
}
