// `wbsync verify`: SQLite's own checks, then the history's invariants, then orphans.
// Snapshots left 'running': a problem when no live process on this host owns them (interrupted:
// the next sync marks them failed); only a warning while their owner is alive (a pass in progress).
import type Database from 'better-sqlite3';
import { SPECS, quoteCol } from '../tables/entity-specs.js';
import { listErasures } from '../erasure/erasure-ledger.js';
import { SEARCH_TABLE } from '../tables/fts.js';
import type { VerifyProblem, VerifyReport } from '../port.js';
import { ownerAlive } from '../write/owner-alive.js';
import { commandLine } from '../../domain/shell-command.js';

type Check = (db: Database.Database, problems: VerifyProblem[], warnings: VerifyProblem[]) => void;

const LIMIT = 20; // per check: enough to see the pattern, bounded output on a badly broken file

function integrity(db: Database.Database, problems: VerifyProblem[]): void {
  // PRAGMA integrity_check checks the FTS5 index from the structure this connection last read;
  // if the writer thread's connection has changed the index since, it reports blobs "missing"
  // that are in fact there (seen after a disk-full rollback followed by a good pass). A query
  // reloads the structure first.
  db.prepare(`SELECT rowid FROM ${SEARCH_TABLE} WHERE ${SEARCH_TABLE} MATCH 'wbsync' LIMIT 1`).get();
  const rows = db.pragma(`integrity_check(${LIMIT})`, { simple: false }) as Array<{ integrity_check: string }>;
  for (const r of rows) if (r.integrity_check !== 'ok') problems.push({ check: 'integrity', message: r.integrity_check });
}

function foreignKeys(db: Database.Database, problems: VerifyProblem[]): void {
  const rows = db.pragma('foreign_key_check') as Array<{ table: string; rowid: number; parent: string }>;
  for (const r of rows.slice(0, LIMIT)) {
    problems.push({ check: 'foreign-keys', message: `${r.table} row ${r.rowid} references a missing ${r.parent} row` });
  }
}

function history(db: Database.Database, problems: VerifyProblem[]): void {
  for (const spec of Object.values(SPECS)) {
    const t = spec.table;
    const key = spec.key.map(quoteCol).join(', ');
    const keyText = spec.key.map((k) => `a.${quoteCol(k)}`).join(` || '/' || `);
    const join = spec.key.map((k) => `a.${quoteCol(k)} = b.${quoteCol(k)}`).join(' AND ');
    for (const r of db.prepare(`SELECT ${spec.key.map(quoteCol).join(` || '/' || `)} AS k, count(*) AS n FROM ${t}
        WHERE valid_to IS NULL GROUP BY ${key} HAVING n > 1 LIMIT ${LIMIT}`).all() as Array<{ k: string; n: number }>) {
      problems.push({ check: 'history', message: `${spec.kind} ${r.k} has ${r.n} current versions` });
    }
    for (const r of db.prepare(`SELECT vid, valid_from, valid_to FROM ${t} WHERE valid_to IS NOT NULL AND valid_to <= valid_from LIMIT ${LIMIT}`)
      .all() as Array<{ vid: number; valid_from: number; valid_to: number }>) {
      problems.push({ check: 'history', message: `${spec.kind} version ${r.vid}: valid_from ${r.valid_from} is not before valid_to ${r.valid_to}` });
    }
    for (const r of db.prepare(`SELECT ${keyText} AS k, a.vid AS va, b.vid AS vb FROM ${t} a JOIN ${t} b ON ${join} AND a.vid < b.vid
        WHERE a.valid_from < coalesce(b.valid_to, 9223372036854775807) AND b.valid_from < coalesce(a.valid_to, 9223372036854775807)
        LIMIT ${LIMIT}`).all() as Array<{ k: string; va: number; vb: number }>) {
      problems.push({ check: 'history', message: `${spec.kind} ${r.k}: versions ${r.va} and ${r.vb} overlap` });
    }
    for (const r of db.prepare(`SELECT vid, valid_from, valid_to FROM ${t}
        WHERE valid_from NOT IN (SELECT id FROM snapshot_runs) OR (valid_to IS NOT NULL AND valid_to NOT IN (SELECT id FROM snapshot_runs))
        LIMIT ${LIMIT}`).all() as Array<{ vid: number; valid_from: number; valid_to: number | null }>) {
      problems.push({ check: 'history', message: `${spec.kind} version ${r.vid} names a missing snapshot (${r.valid_from}..${r.valid_to ?? 'current'})` });
    }
  }
}

/** Child kind, its parent-id column, the parent table; "current" = valid_to IS NULL. */
const ORPHAN_RULES: Array<[child: string, table: string, col: string, parentKind: string, parentTable: string]> = [
  ['record', 'record_versions', 'module_id', 'module', 'module_versions'],
  ['sub-record', 'record_versions', 'parent_record_id', 'record', 'record_versions'],
  ['cell', 'cell_versions', 'record_id', 'record', 'record_versions'],
  ['amendment', 'amendment_versions', 'record_id', 'record', 'record_versions'],
  ['collection', 'collection_versions', 'module_id', 'module', 'module_versions'],
  ['column', 'column_versions', 'module_id', 'module', 'module_versions'],
];

/**
 * A current child whose parent has no current version. Tolerated when the parent went gone in
 * the newest snapshot (a pass still sorting out what lies beneath it).
 */
function orphans(db: Database.Database, problems: VerifyProblem[]): void {
  for (const [child, table, col, parentKind, parentTable] of ORPHAN_RULES) {
    const rows = db.prepare(`SELECT c.id AS id, c.${col} AS parent FROM ${table} c
      WHERE c.valid_to IS NULL AND c.${col} IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ${parentTable} p WHERE p.id = c.${col} AND p.valid_to IS NULL)
        AND NOT EXISTS (SELECT 1 FROM ${parentTable} p WHERE p.id = c.${col}
                        AND p.valid_to = (SELECT max(id) FROM snapshot_runs))
      LIMIT ${LIMIT}`).all() as Array<{ id: string; parent: string }>;
    for (const r of rows) {
      problems.push({ check: 'orphans', message: `current ${child} ${r.id} belongs to ${parentKind} ${r.parent}, which is not current` });
    }
  }
}

function runningSnapshots(db: Database.Database, problems: VerifyProblem[], warnings: VerifyProblem[]): void {
  const rows = db.prepare(`SELECT id, owner_pid, owner_host FROM snapshot_runs WHERE status = 'running'`).all() as Array<{
    id: number; owner_pid: number | null; owner_host: string | null;
  }>;
  for (const r of rows) {
    if (ownerAlive(r.owner_pid, r.owner_host)) {
      warnings.push({ check: 'snapshots', message: `snapshot ${r.id} is running (pid ${r.owner_pid})` });
    } else {
      // A crash mid-pass leaves a consistent database: the interrupted snapshot's batches either
      // committed whole or not at all, and the views still show the last complete snapshot.
      warnings.push({ check: 'snapshots', message: `snapshot ${r.id} was interrupted (left running, no live owner); the next sync marks it failed and redoes its work` });
    }
  }
}

/** An erasure left running (killed, or a daemon kept the file from being rewritten): consistent,
 * but erased bytes may remain in free space or the WAL until `wbsync erase` runs again. */
function erasures(db: Database.Database, _problems: VerifyProblem[], warnings: VerifyProblem[]): void {
  for (const e of listErasures(db)) {
    if (e.status === 'running' && e.liftedAt === null) warnings.push({ check: 'erasures', message: `the erasure of ${e.kind} ${e.entityId} (started ${e.startedAt}) is unfinished: run ${commandLine(['wbsync', 'erase', `--${e.kind}`, e.entityId])} again to finish it` });
  }
}

const CHECKS: Array<[string, Check]> = [
  ['integrity', integrity],
  ['foreign-keys', foreignKeys],
  ['history', history],
  ['orphans', orphans],
  ['snapshots', runningSnapshots],
  ['erasures', erasures],
];

export function verifyDatabase(db: Database.Database): VerifyReport {
  const problems: VerifyProblem[] = [];
  const warnings: VerifyProblem[] = [];
  for (const [name, check] of CHECKS) {
    try {
      check(db, problems, warnings);
    } catch (e) {
      problems.push({ check: name, message: `check could not run: ${e instanceof Error ? e.message : String(e)}` });
    }
    // a damaged file makes the later checks meaningless (and possibly crash): stop there
    if (name === 'integrity' && problems.length > 0) break;
  }
  return { ok: problems.length === 0, problems, warnings, checks: CHECKS.map(([n]) => n) };
}
