// `wbsync rollback --incident N`: the tripwire's pinned undo. The incident recorded by the pass
// that found the damage names the module, the snapshot before it, the snapshot that recorded it,
// the actors and their rows' time range, and the columns: the rollback reverts exactly that and
// keeps (as conflicts) every other write. Nothing in the command line comes from the service.

import type Database from 'better-sqlite3';
import { commandLine } from '../../domain/shell-command.js';
import { WbsyncError } from '../../domain/errors.js';
import { getIncident, listIncidents } from '../../store/ledgers/index.js';
import type { DamagePin } from './damage.js';
import type { RollbackKind } from './selection.js';

export interface PinnedRollback {
  moduleId: string;
  toSnapshot: number;
  columns: string[];
  kinds: RollbackKind[] | undefined;
  pin: DamagePin & { afterSnapshot: number };
}

export function rollbackOfIncident(db: Database.Database, id: number): PinnedRollback {
  const i = getIncident(db, id);
  if (!i) {
    const open = listIncidents(db, 'open', 10).map((x) => x.id);
    throw new WbsyncError('usage', `no tripwire incident ${id} in this database`, { hint: open.length ? `open incidents: ${open.join(', ')} ('wbsync snapshots' lists the held snapshots)` : 'no incident is open: give --module and --to-snapshot instead' });
  }
  if (i.kind === 'module-deleted') {
    throw new WbsyncError('restore_refused', `incident ${id} is a deleted module: a rollback works in place on a live module`, { hint: `bring it back with '${commandLine(['wbsync', 'restore', 'module', i.moduleId ?? '', '--snapshot', String(i.snapshotBefore)])}'` });
  }
  if (i.kind !== 'mass-change' || !i.moduleId) throw new WbsyncError('restore_refused', `incident ${id} (${i.kind}) has nothing to roll back`, { hint: i.summary });
  return {
    moduleId: i.moduleId,
    toSnapshot: i.snapshotBefore,
    columns: i.columns,
    kinds: i.kinds.length ? (i.kinds as RollbackKind[]) : undefined,
    pin: { incident: i.id, actors: i.actors.map((a) => a.id), from: i.damageFrom ?? '', to: i.damageTo ?? '', afterSnapshot: i.snapshotDamage },
  };
}
