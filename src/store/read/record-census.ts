// The rollback preview's count of plain records, in SQL: rolling a module of 10,000 records back to
// its oldest snapshot puts back fields on thousands of records, each one step whose fields are
// plain values compared as they are. Building both sides of every such record to plan it is most of
// what the preview would spend; instead the records are paired here (the version at s with the one
// at l, each found on an index) and counted, and only those the planner must look at are read whole
// (store/read/module-window.ts): the ones that are not plain, and the first page of the plain ones.
//
// Why the count is the planner's (restore/rollback/plan-records.ts planInPlace), with the latest
// backup l as both "after" and "live", nothing found by id, every record selected (a rollback of
// the whole module). A plain record is top-level at s and at l, in the module at both, not archived
// at l unless it was at s (else the planner unarchives it: every field goes back), and its
// collection at s is none or one held at s and at l (else it is moved back into a recreated copy,
// stranded, or the service keeps an id that was never ours). For it the planner's verdict on each
// of name, position, isCompleted, isArchived is "put back" exactly when the value differs (three-way
// with after = live: never a conflict), and on collectionId when it had one and it differs: one
// write per such field, one updateRecord step when there is any. Values compare as the planner
// compares them: text and REAL as they are (a REAL reads back as the same double), a flag as
// "is 1" (entity-specs.ts fromSql). A record whose version did not change plans nothing.

import type Database from 'better-sqlite3';
import { prepared } from './prepared.js';

const OPEN = '9223372036854775807';

/** The fields a plain record's step writes, in the planner's order (FIELDS, then collectionId). */
export const RECORD_FIELDS = ['name', 'position', 'isCompleted', 'isArchived', 'collectionId'] as const;
export type RecordField = (typeof RECORD_FIELDS)[number];

/** SQL: the module's collections at snapshot @n. */
const collectionsAt = (n: string): string => `SELECT v.id FROM collection_versions v WHERE v.module_id = @m AND v.valid_from <= @${n} AND coalesce(v.valid_to, ${OPEN}) > @${n}`;

/**
 * One pass over the module's records whose version at s closed by l (a), each paired with its
 * version at l (b) on the (id, end, start) index (`record_versions_as_of`: its expression is
 * coalesce(valid_to, 9223372036854776000), written so to be used). Rows, read by `recordCensus`:
 * kind 0 — the plain records with a field to put back: how many, and per field how many differ;
 * then how many records of `a` have a version at l, and how many versions at l opened after s the
 * module holds (when more, the others are records new since: newSinceSql names them); kind 1 — the
 * first @limit plain records with a field to put back in the planner's order (state.records():
 * position, nulls last, then id), each with its fields that differ; kind 2 — the records of `a`
 * that are not plain (gone by l among them).
 */
export const recordCensusSql = `WITH p AS MATERIALIZED (
    SELECT a.id, a.position, b.id IS NOT NULL AS paired,
           b.id IS NOT NULL AND a.parent_record_id IS NULL AND b.parent_record_id IS NULL
             AND (a.collection_id IS NULL OR a.collection_id IN (${collectionsAt('s')} INTERSECT ${collectionsAt('l')}))
             AND NOT (b.is_archived = 1 AND a.is_archived IS NOT 1) AS plain,
           a.name IS NOT b.name AS f1, a.position IS NOT b.position AS f2, (a.is_completed = 1) IS NOT (b.is_completed = 1) AS f3,
           (a.is_archived = 1) IS NOT (b.is_archived = 1) AS f4, a.collection_id IS NOT NULL AND a.collection_id IS NOT b.collection_id AS f5
      FROM record_versions a
      LEFT JOIN record_versions b ON b.id = a.id AND coalesce(b.valid_to, 9223372036854776000) > @l AND b.valid_from <= @l AND +b.module_id = @m
     WHERE a.module_id = @m AND a.valid_from <= @s AND a.valid_to > @s AND a.valid_to <= @l),
  w AS (SELECT * FROM p WHERE plain AND (f1 OR f2 OR f3 OR f4 OR f5))
  SELECT 0, NULL, count(*), sum(f1), sum(f2), sum(f3), sum(f4), sum(f5), (SELECT count(*) FROM p WHERE paired),
         (SELECT count(*) FROM record_versions r WHERE r.module_id = @m AND r.valid_from > @s AND r.valid_from <= @l AND coalesce(r.valid_to, ${OPEN}) > @l) FROM w
  UNION ALL SELECT * FROM (SELECT 1, id, 1, f1, f2, f3, f4, f5, NULL, NULL FROM w ORDER BY position IS NULL, position, id LIMIT @limit)
  UNION ALL SELECT 2, id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM p WHERE NOT plain`;

/** SQL: the module's records at l with a version opened after s and none at s (new since). */
export const newSinceSql = `SELECT r.id FROM record_versions r
  WHERE r.module_id = @m AND r.valid_from > @s AND r.valid_from <= @l AND coalesce(r.valid_to, ${OPEN}) > @l
    AND NOT EXISTS (SELECT 1 FROM record_versions x WHERE x.id = r.id AND coalesce(x.valid_to, 9223372036854776000) > @s AND x.valid_from <= @s AND +x.module_id = @m)`;

export interface RecordCensus {
  /** Plain records with a field to put back but the first `limit`: their steps and writes per field. */
  steps: number;
  writes: Record<RecordField, number>;
  /** Those first `limit` (read whole and planned), the records that are not plain, and those at l new since. */
  first: string[];
  notPlain: string[];
  newSince: string[];
}

/** recordCensusSql run for (@m, @s, @l) with the first `limit` plain records named. */
export function recordCensus(db: Database.Database, p: Record<string, unknown>, limit: number): RecordCensus {
  const rows = prepared(db, recordCensusSql).raw(true).all({ m: p.m, s: p.s, l: p.l, limit: Math.max(limit, 0) }) as unknown[][];
  const out: RecordCensus = { steps: 0, writes: { name: 0, position: 0, isCompleted: 0, isArchived: 0, collectionId: 0 }, first: [], notPlain: [], newSince: [] };
  // the totals less the first page's (the planner plans those)
  const add = (r: unknown[], sign: number): void => {
    out.steps += sign * ((r[2] as number | null) ?? 0);
    RECORD_FIELDS.forEach((f, i) => (out.writes[f] += sign * ((r[3 + i] as number | null) ?? 0)));
  };
  let newAtL = false;
  for (const r of rows) {
    if (r[0] === 0) (add(r, 1), (newAtL = (r[9] as number) > (r[8] as number)));
    else if (r[0] === 1) (add(r, -1), out.first.push(r[1] as string));
    else out.notPlain.push(r[1] as string);
  }
  if (newAtL) out.newSince = prepared(db, newSinceSql).pluck().all({ m: p.m, s: p.s, l: p.l }) as string[];
  return out;
}
