// The history rewrite: every stored version of every entity table, in vid ranges, one short
// transaction per range. A row whose raw JSON (or erased-id column) names something erased is run
// through the store's judge: dropped (all versions of an erased entity: no interval is left
// overlapping another), or rewritten in place with a fresh hash — the hash a sync computes for the
// same entity met live, so the next pass sees no change. The search index follows each row; the
// rest (restore journals' refusals and summaries) is cleaned at the end. Idempotent: a run killed
// anywhere is finished by the next one.
import type Database from 'better-sqlite3';
import type { EntityKind } from '../../domain/entities.js';
import { SPECS, colList, fromRow, quoteCol, type EntitySpec } from '../tables/entity-specs.js';
import { ERASED_MARKER, judge, learnFrom, type ErasedSet, type PersonText } from './erasure-filter.js';
import { SearchIndex, isSearchable } from '../tables/fts.js';
import { encodeRow } from '../tables/row-encoding.js';
import { needles } from './selection.js';

export interface TableCounts {
  deleted: number;
  rewritten: number;
}

export interface RewriteOptions {
  dryRun: boolean;
  /** Rows per vid range (one transaction each). */
  chunk: number;
  /** Called with every touched version's interval (dry run: what each snapshot loses). */
  onTouched?: (from: number, to: number | null) => void;
  /** Called after every write transaction with its duration (the longest is what a daemon waits for). */
  onTransaction?: (ms: number) => void;
}

/** One short write transaction, timed. */
function txn(db: Database.Database, opts: RewriteOptions, fn: () => void): void {
  const t0 = performance.now();
  db.transaction(fn).immediate();
  opts.onTransaction?.(performance.now() - t0);
}

const MODULE_COL: Partial<Record<EntityKind, string>> = {
  module: 'id', collection: 'module_id', column: 'module_id', record: 'module_id', amendment: 'module_id',
  automation: 'module_id', activity: 'module_id', reference: 'module_id', moduleAccess: 'module_id',
};
const RECORD_COLS: Partial<Record<EntityKind, string[]>> = {
  record: ['id', 'parent_record_id'], cell: ['record_id'], amendment: ['record_id'], activity: ['record_id'], reference: ['record_id'],
};

/** Rows written per transaction: short enough that a daemon's pass waits little behind one. */
const WRITE_BATCH = 500;

/** Loads the erased ids and the search strings into temp tables (this connection only). */
function loadTemp(db: Database.Database, set: ErasedSet, words: string[], said: string[]): void {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS erase_records (id TEXT PRIMARY KEY); CREATE TEMP TABLE IF NOT EXISTS erase_modules (id TEXT PRIMARY KEY); CREATE TEMP TABLE IF NOT EXISTS erase_needles (s TEXT PRIMARY KEY); CREATE TEMP TABLE IF NOT EXISTS erase_quotes (s TEXT PRIMARY KEY);');
  db.transaction(() => {
    db.exec('DELETE FROM temp.erase_records; DELETE FROM temp.erase_modules; DELETE FROM temp.erase_needles; DELETE FROM temp.erase_quotes;');
    const qt = db.prepare('INSERT OR IGNORE INTO temp.erase_quotes VALUES (?)');
    for (const t of said) qt.run(JSON.stringify(t));
    const r = db.prepare('INSERT OR IGNORE INTO temp.erase_records VALUES (?)');
    for (const id of set.records) r.run(id);
    const m = db.prepare('INSERT OR IGNORE INTO temp.erase_modules VALUES (?)');
    for (const id of set.modules) m.run(id);
    const n = db.prepare('INSERT OR IGNORE INTO temp.erase_needles VALUES (?)');
    for (const s of words) n.run(s);
  })();
}

function candidateSql(spec: EntitySpec): string {
  const parts = ['EXISTS (SELECT 1 FROM temp.erase_needles n WHERE instr(v.raw, n.s) > 0)'];
  const mc = MODULE_COL[spec.kind];
  if (mc) parts.push(`v.${quoteCol(mc)} IN (SELECT id FROM temp.erase_modules)`);
  for (const c of RECORD_COLS[spec.kind] ?? []) parts.push(`v.${quoteCol(c)} IN (SELECT id FROM temp.erase_records)`);
  if (spec.kind === 'member' || spec.kind === 'moduleAccess' || spec.kind === 'amendment') parts.push(`v.user_id IN (SELECT s FROM temp.erase_needles)`);
  // an activity row quoting an erased person's amendment (before/after hold it as JSON text)
  if (spec.kind === 'activity') parts.push(`v."before" IN (SELECT s FROM temp.erase_quotes) OR v."after" IN (SELECT s FROM temp.erase_quotes)`);
  return parts.join(' OR ');
}

/** Learns every erased person's names and emails from the whole history (before any is removed). */
export function learnPeople(db: Database.Database, set: ErasedSet): Map<string, PersonText> {
  const people = new Map<string, PersonText>();
  if (set.users.size === 0) return people;
  for (const u of set.users) {
    for (const kind of ['member', 'amendment', 'activity'] as const) {
      const spec = SPECS[kind];
      const rows = db.prepare(`SELECT ${colList(spec)} FROM ${spec.table} WHERE instr(raw, ?) > 0`).raw().all(u) as unknown[][];
      for (const r of rows) learnFrom(kind, fromRow(spec, r), set.users, people);
    }
  }
  return people;
}

/**
 * Rewrites (or, dry run, counts) one table. Each vid range is read and judged outside any write
 * transaction; only the rows to change are then written, `batch` at a time, each re-read and judged
 * again inside its short transaction (a daemon may have closed or rewritten it meanwhile).
 */
function rewriteTable(db: Database.Database, spec: EntitySpec, set: ErasedSet, people: ReadonlyMap<string, PersonText>, opts: RewriteOptions, search: SearchIndex): TableCounts {
  const counts: TableCounts = { deleted: 0, rewritten: 0 };
  const bounds = db.prepare(`SELECT min(vid) AS lo, max(vid) AS hi FROM ${spec.table}`).get() as { lo: number | null; hi: number | null };
  if (bounds.lo === null || bounds.hi === null) return counts;
  const cols = `vid, valid_from, valid_to, ${colList(spec)}`;
  const scan = db.prepare(`SELECT ${cols} FROM ${spec.table} v WHERE vid BETWEEN ? AND ? AND (${candidateSql(spec)})`).raw();
  const byVid = db.prepare(`SELECT ${cols} FROM ${spec.table} WHERE vid = ?`).raw();
  const del = db.prepare(`DELETE FROM ${spec.table} WHERE vid = ?`);
  const upd = db.prepare(`UPDATE ${spec.table} SET ${spec.fields.map((x) => `${quoteCol(x.col)} = ?`).join(', ')}, hash = ? WHERE vid = ?`);
  const searchable = isSearchable(spec.kind) ? spec.kind : null;
  const verdict = (row: unknown[]): { vid: number; from: number; to: number | null; v: ReturnType<typeof judge> } => {
    const [vid, from, to, ...rest] = row as [number, number, number | null, ...unknown[]];
    return { vid, from, to, v: judge(spec.kind, fromRow<Record<string, unknown>>(spec, rest), set, people) };
  };
  const write = (vids: number[]): void => {
    for (const id of vids) {
      const row = byVid.get(id) as unknown[] | undefined;
      if (!row) continue;
      const { vid, to, v } = verdict(row);
      if (v.action === 'drop') {
        del.run(vid);
        if (searchable) search.remove(searchable, vid);
      } else if (v.action === 'scrub') {
        const enc = encodeRow(spec.kind, spec, v.entity);
        upd.run(...enc.values, enc.hash, vid);
        if (searchable) {
          search.remove(searchable, vid);
          if (to === null) search.put(searchable, vid, v.entity);
        }
      }
    }
  };
  const batch = Math.max(1, Math.min(opts.chunk, WRITE_BATCH));
  for (let lo = bounds.lo; lo <= bounds.hi; lo += opts.chunk) {
    const touched: number[] = [];
    for (const row of scan.all(lo, lo + opts.chunk - 1) as unknown[][]) {
      const { vid, from, to, v } = verdict(row);
      if (v.action === 'keep') continue;
      opts.onTouched?.(from, to);
      if (v.action === 'drop') counts.deleted++;
      else counts.rewritten++;
      touched.push(vid);
    }
    if (opts.dryRun) continue;
    for (let i = 0; i < touched.length; i += batch) {
      const part = touched.slice(i, i + batch);
      txn(db, opts, () => write(part));
    }
  }
  return counts;
}

/**
 * Order matters for a run killed half-way: the next run learns the person's strings from what is
 * still there. Activity (which quotes their amendments) goes before the amendments themselves; members, whose
 * names are the surest source, go last.
 */
const ORDER: EntityKind[] = ['activity', 'amendment', 'cell', 'reference', 'record', 'collection', 'column', 'automation', 'moduleAccess', 'module', 'workspace', 'member'];

/** Every versioned table, then the search index merged and the restore journal's text cleaned. */
export function rewriteHistory(db: Database.Database, set: ErasedSet, people: ReadonlyMap<string, PersonText>, opts: RewriteOptions): Record<string, TableCounts> {
  const words = needles(set, people);
  const said = [...set.users].flatMap((u) => [...(people.get(u)?.said ?? [])]);
  loadTemp(db, set, words, said);
  const search = new SearchIndex(db);
  // the names of erased records and modules, read while their rows are still there: restore
  // journals and snapshot summaries quote them (a re-run after a crash may find fewer)
  const names = db.prepare(`SELECT DISTINCT name FROM record_versions WHERE id IN (SELECT id FROM temp.erase_records)
    UNION SELECT DISTINCT name FROM module_versions WHERE id IN (SELECT id FROM temp.erase_modules)`).pluck().all().filter((n): n is string => typeof n === 'string' && n.length >= 3);
  const out: Record<string, TableCounts> = {};
  for (const kind of ORDER) {
    const spec = SPECS[kind];
    const c = rewriteTable(db, spec, set, people, opts, search);
    if (c.deleted || c.rewritten) out[spec.table] = c;
  }
  if (!opts.dryRun) {
    txn(db, opts, () => {
      // refusals quote labels and values; summaries may name records, modules or people
      const texts = [...words.filter((w) => !set.users.has(w) && !set.records.has(w) && !set.modules.has(w)), ...names].sort((a, b) => b.length - a.length);
      db.prepare(`DELETE FROM restore_refusals WHERE entity_id IN (SELECT id FROM temp.erase_records) OR old_id IN (SELECT id FROM temp.erase_records)
        OR EXISTS (SELECT 1 FROM temp.erase_needles n WHERE instr(restore_refusals.label || ' ' || coalesce(restore_refusals.value, ''), n.s) > 0)`).run();
      const rep = db.prepare('UPDATE restore_runs SET summary = replace(summary, ?, ?), options = replace(options, ?, ?) WHERE instr(summary, ?) > 0 OR instr(options, ?) > 0');
      // as the text appears inside the JSON columns
      const inJson = texts.map((t) => JSON.stringify(t).slice(1, -1));
      for (const t of inJson) rep.run(t, ERASED_MARKER, t, ERASED_MARKER, t, t);
      const runs = db.prepare('UPDATE snapshot_runs SET summary = replace(summary, ?, ?) WHERE instr(summary, ?) > 0');
      for (const t of inJson) runs.run(t, ERASED_MARKER, t);
      // tripwire incidents and holds quote who did it (name and id) and the module's name
      const all = [...new Set([...words, ...names])].sort((a, b) => b.length - a.length);
      const inc = db.prepare(`UPDATE incidents SET summary = replace(summary, @t, @m), module_name = replace(module_name, @t, @m), what = replace(what, @j, @m), actors = replace(actors, @j, @m)
        WHERE instr(summary || module_name, @t) > 0 OR instr(what || actors, @j) > 0`);
      const holds = db.prepare('UPDATE snapshot_holds SET reason = replace(reason, ?, ?) WHERE instr(reason, ?) > 0');
      for (const t of all) {
        inc.run({ t, j: JSON.stringify(t).slice(1, -1), m: ERASED_MARKER });
        holds.run(t, ERASED_MARKER, t);
      }
    });
    // FTS5 deletes leave the old terms in older segments until they merge: merge them all now
    txn(db, opts, () => db.exec(`INSERT INTO search (search) VALUES ('optimize')`));
  }
  db.exec('DROP TABLE IF EXISTS temp.erase_records; DROP TABLE IF EXISTS temp.erase_modules; DROP TABLE IF EXISTS temp.erase_needles; DROP TABLE IF EXISTS temp.erase_quotes;');
  return out;
}
