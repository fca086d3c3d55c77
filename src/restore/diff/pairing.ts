// `wbsync diff --module X` when the snapshot asked for (or the latest) does not hold X: a module
// wbsync restored is paired with the snapshot it came from through the restore journal — X a copy
// restore made (compared with its source as of that snapshot, ids mapped through the journal), or
// X the deleted module a restore brought back (compared from that snapshot with its live copy).
// Anything else is refused with the command that works.

import { commandLine } from '../../domain/shell-command.js';
import { WbsyncError } from '../../domain/errors.js';
import type { Store } from '../../store/port.js';
import { restoredAs, restoredFrom } from '../../store/ledgers/index.js';

export interface DiffPairing {
  /** The module to read from the snapshot. */
  moduleId: string;
  snapshot: number;
  /** The live module to compare it with (a restored copy), when not the same id. */
  restoredAs?: string;
  /** What was paired, in words, for the report. */
  note: string;
}

export function pairRestoredModule(store: Store, moduleId: string, opts: { asked?: number; snapshot: number; live: boolean }): DiffPairing {
  const holds = (n: number, id: string): boolean => store.stateAt(n)?.module(id) != null;
  const copyOf = restoredFrom(store.db, moduleId);
  if (copyOf && opts.live) {
    const snapshot = opts.asked !== undefined && holds(opts.asked, copyOf.oldModuleId) ? opts.asked : copyOf.snapshotId;
    if (holds(snapshot, copyOf.oldModuleId)) {
      return {
        moduleId: copyOf.oldModuleId,
        snapshot,
        restoredAs: moduleId,
        note: `module ${moduleId} is wbsync's restore of module ${copyOf.oldModuleId} from snapshot ${copyOf.snapshotId} (restore run ${copyOf.runId}): compared with that module as of snapshot ${snapshot}, ids paired through the restore journal`,
      };
    }
  }
  const copies = restoredAs(store.db, moduleId).filter((p) => holds(p.snapshotId, moduleId));
  if (copies.length && opts.live && opts.asked === undefined) {
    const p = copies[0]!;
    return {
      moduleId,
      snapshot: p.snapshotId,
      note: `module ${moduleId} is gone from snapshot ${opts.snapshot}; restore run ${p.runId} brought it back from snapshot ${p.snapshotId} as ${p.newModuleId}: compared from snapshot ${p.snapshotId}`,
    };
  }
  // refused: name the command that works
  let works: (string | number)[] | null = null;
  if (copyOf && !opts.live) works = ['wbsync', 'diff', '--module', copyOf.oldModuleId, '--snapshot', copyOf.snapshotId, '--restored', moduleId];
  else if (copies.length) works = ['wbsync', 'diff', '--module', moduleId, '--snapshot', copies[0]!.snapshotId];
  else {
    const holding = store.snapshotsHolding('module', moduleId);
    if (holding.length) works = ['wbsync', 'diff', '--module', moduleId, '--snapshot', holding[holding.length - 1]!];
  }
  throw new WbsyncError('usage', `snapshot ${opts.snapshot} does not hold module ${moduleId}`, {
    hint: works ? `try '${commandLine(works)}'${copyOf ? ' (it compares the restored copy with its source)' : ''}` : "no complete snapshot holds it: 'wbsync snapshots' lists what each holds",
  });
}
