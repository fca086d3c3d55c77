// Crawls one module into one write batch (one transaction): collections, columns of both scopes,
// module automations, records per collection, and — for records that need it — cells, sub-records
// and amendments. A full pass reads every record deeply; an incremental pass only the records that
// are new, changed (updatedAt, subRecordCount, amendmentCount), named by the activity feed, or that
// hold cells of a changed column. Counts gate reads: no sub-record or amendment list where the
// record says it has none (its listing is then known to be empty).

import { canonicalJson } from '../domain/canonical-json.js';
import type { Amendment, BoardRecord, Cell, Column, Module } from '../domain/entities.js';
import { isWbsyncError } from '../domain/errors.js';
import type { ServiceClient } from '../api/port.js';
import type { GoneMark, Listing, StateReader, WriteBatch } from '../store/port.js';
import { readReferences } from './references.js';

export interface ModuleCrawlPlan {
  mode: 'full' | 'incremental';
  /** Records (or sub-records) named by new activity rows. */
  namedRecords: ReadonlySet<string>;
}

export interface ModuleCrawlResult {
  batch: WriteBatch;
  records: number;
  cells: number;
}

/** Errors that end one record's reads (deleted mid-pass), not the module's. */
function isGoneError(e: unknown): boolean {
  return isWbsyncError(e) && e.code === 'not_found';
}

function sameColumn(a: Column, b: Column): boolean {
  // canonical: a stored column's raw comes back with its keys sorted
  return canonicalJson(a.raw) === canonicalJson(b.raw);
}

function recordChanged(r: BoardRecord, prev: BoardRecord | undefined): boolean {
  return (
    !prev ||
    prev.updatedAt !== r.updatedAt ||
    prev.subRecordCount !== r.subRecordCount ||
    prev.amendmentCount !== r.amendmentCount
  );
}

/** A version of a record that vanished from its listing but still answers: the service archived it. */
function archivedVersion(prev: BoardRecord): BoardRecord {
  return { ...prev, isArchived: true, raw: prev.raw };
}

export async function crawlModule(
  client: ServiceClient,
  module: Module,
  prevState: StateReader | null,
  plan: ModuleCrawlPlan,
): Promise<ModuleCrawlResult> {
  const full = plan.mode === 'full';
  const [collections, recordColumns, subColumns, automations] = await Promise.all([
    client.listCollections(module.id),
    client.listColumns(module.id, 'record'),
    client.listColumns(module.id, 'subrecord'),
    client.listModuleAutomations(module.id),
  ]);

  const prevRecords = new Map((prevState?.records(module.id) ?? []).map((r) => [r.id, r]));
  const named = new Set(plan.namedRecords);
  // An activity row naming a sub-record: re-read it through its parent's listing.
  for (const id of plan.namedRecords) {
    const parent = prevRecords.get(id)?.parentRecordId;
    if (parent) named.add(parent);
  }

  // Columns that changed or vanished: the cells that hold them carry the column (or lose it).
  const deepForColumns = new Set<string>();
  if (!full && prevState) {
    const nowColumns = new Map([...recordColumns, ...subColumns].map((c) => [c.id, c]));
    const touched = new Set(prevState.columns(module.id).filter((c) => !nowColumns.has(c.id) || !sameColumn(c, nowColumns.get(c.id)!)).map((c) => c.id));
    if (touched.size) {
      for (const cell of prevState.cells(module.id)) if (cell.columnId && touched.has(cell.columnId)) deepForColumns.add(cell.recordId);
    }
  }

  const referencesP = readReferences(client, module.id, [...recordColumns, ...subColumns]);
  const listed = await Promise.all(collections.map((c) => client.listRecords(c.id)));
  const upRecords: BoardRecord[] = [];
  const cells: Cell[] = [];
  const amendments: Amendment[] = [];
  const listings: Listing[] = [
    { kind: 'collection', moduleId: module.id, ids: collections.map((c) => c.id) },
    { kind: 'column', moduleId: module.id, scope: 'record', ids: recordColumns.map((c) => c.id) },
    { kind: 'column', moduleId: module.id, scope: 'subrecord', ids: subColumns.map((c) => c.id) },
    { kind: 'moduleAutomation', moduleId: module.id, ids: automations.map((a) => a.id) },
  ];
  const gone: GoneMark[] = [];
  const needsDeep = (r: BoardRecord): boolean =>
    full || named.has(r.id) || deepForColumns.has(r.id) || recordChanged(r, prevRecords.get(r.id));

  const seenTop = new Set<string>();
  collections.forEach((c, i) => {
    listings.push({ kind: 'record', collectionId: c.id, ids: listed[i].map((r) => r.id) });
    for (const r of listed[i]) seenTop.add(r.id);
  });

  const readDeep = async (r: BoardRecord): Promise<void> => {
    try {
      const [values, subs, notes] = await Promise.all([
        client.listValues(r.id),
        r.subRecordCount > 0 ? client.listSubRecords(r.id) : Promise.resolve([] as BoardRecord[]),
        r.amendmentCount > 0 ? client.listAmendments(r.id) : Promise.resolve([] as Amendment[]),
      ]);
      cells.push(...values);
      amendments.push(...notes);
      listings.push({ kind: 'cell', recordId: r.id, ids: values.map((v) => v.id) });
      listings.push({ kind: 'amendment', recordId: r.id, ids: notes.map((a) => a.id) });
      if (r.parentRecordId === null) {
        listings.push({ kind: 'subrecord', parentRecordId: r.id, ids: subs.map((s) => s.id) });
        upRecords.push(...subs);
        await Promise.all(subs.filter(needsDeep).map(readDeep));
      }
    } catch (e) {
      if (!isGoneError(e)) throw e;
      // Deleted while we read it: drop what we had of it from this batch and mark it gone.
      const at = upRecords.indexOf(r);
      if (at >= 0) upRecords.splice(at, 1);
      gone.push({ kind: 'record', id: r.id, cascade: true });
    }
  };

  for (const rs of listed) upRecords.push(...rs);
  await Promise.all(listed.flat().filter(needsDeep).map(readDeep));

  // Records that left every listing of the module: archived (still answering) or deleted.
  const vanished = [...prevRecords.values()].filter(
    (r) => r.parentRecordId === null && !r.isArchived && !seenTop.has(r.id) && !gone.some((g) => g.id === r.id),
  );
  const nowCollections = new Set(collections.map((c) => c.id));
  await Promise.all(
    vanished.map(async (r) => {
      if (r.collectionId && !nowCollections.has(r.collectionId)) return; // its collection's cascade covers it
      try {
        await client.listValues(r.id);
        upRecords.push(archivedVersion(r));
        for (const s of prevRecords.values()) if (s.parentRecordId === r.id && !s.isArchived) upRecords.push(archivedVersion(s));
      } catch (e) {
        if (!isGoneError(e)) throw e;
        gone.push({ kind: 'record', id: r.id, cascade: true });
      }
    }),
  );
  for (const c of prevState?.collections(module.id) ?? []) {
    if (!nowCollections.has(c.id)) gone.push({ kind: 'collection', id: c.id, cascade: true });
  }

  const refs = await referencesP;
  listings.push(refs.listing);
  return {
    batch: {
      upserts: {
        modules: [module],
        collections,
        columns: [...recordColumns, ...subColumns],
        records: upRecords,
        cells,
        amendments,
        automations,
        references: refs.references,
      },
      listings,
      gone,
    },
    records: upRecords.length,
    cells: cells.length,
  };
}
