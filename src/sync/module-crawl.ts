// Crawls one module into one write batch (one transaction): collections, columns of both scopes,
// module automations, records per collection, and — for records that need it — cells, sub-records
// and amendments. A full pass reads every record deeply; an incremental pass only the records that
// are new, changed (updatedAt, subRecordCount, amendmentCount), named by the activity feed, or that
// hold cells of a changed column. Counts gate reads: no sub-record or amendment list where the
// record says it has none (its listing is then known to be empty). Records outside every listing
// are read by id (record-reader.ts); a top-level record's collection going takes it along.

import { canonicalJson } from '../domain/canonical-json.js';
import type { BoardRecord, Column, Module } from '../domain/entities.js';
import type { ServiceClient } from '../api/port.js';
import type { GoneMark, Listing, StateReader, WriteBatch } from '../store/port.js';
import { withTieRanks } from './tie-ranks.js';
import { RecordReader, type ReaderMemory } from './record-reader.js';
import type { RecordTrace } from './record-trace.js';
import { readReferences } from './references.js';

export interface ModuleCrawlPlan {
  mode: 'full' | 'incremental';
  /** Records (or sub-records) named by new activity rows. */
  namedRecords: ReadonlySet<string>;
  /** What the new rows say of records, for named ones no listing shows and the store lacks. */
  trace?: RecordTrace;
  /** The module's updatedAt moved (it may hide an unlogged sub-record write): re-list every parent's sub-records. */
  recheckSubRecords?: boolean;
  /** Records stored once and since marked gone (see RecordReaderInit.formerRecords). */
  formerRecords?: (ids: string[]) => Map<string, BoardRecord | null>;
  /** A full pass whose feed is still being read: leave unlisted records for readFeedNamedRecords. */
  deferUnlisted?: boolean;
}

export interface ModuleCrawlResult {
  batch: WriteBatch;
  records: number;
  cells: number;
  /** What the crawl saw, for reading feed-named records afterwards (full passes). */
  memory: ReaderMemory;
  liveCollections: ReadonlySet<string>;
  /** Requests spent on records outside the listings. */
  probes: number;
  /** Full passes: records outside every listing, read once the whole feed is in. */
  deferred: string[];
  /** Full passes: the collection listing and its gone-marks, applied after the deferred records are
   * read (a record moved out of a deleted collection must not be swept along under its old id). */
  collectionMarks: { listings: Listing[]; gone: GoneMark[] };
}

function sameColumn(a: Column, b: Column): boolean {
  // canonical: a stored column's raw comes back with its keys sorted
  return canonicalJson(a.raw) === canonicalJson(b.raw);
}

function recordChanged(r: BoardRecord, prev: BoardRecord | undefined): boolean {
  return (
    !prev ||
    prev.updatedAt !== r.updatedAt ||
    prev.isArchived !== r.isArchived ||
    prev.subRecordCount !== r.subRecordCount ||
    prev.amendmentCount !== r.amendmentCount
  );
}

/** Adds the parent of every sub-record in `ids`: a sub-record is read through its parent. */
function withParents(ids: Iterable<string>, prevRecords: ReadonlyMap<string, BoardRecord>): Set<string> {
  const out = new Set(ids);
  for (const id of out) {
    const parent = prevRecords.get(id)?.parentRecordId;
    if (parent) out.add(parent);
  }
  return out;
}

/** An incremental pass: columns that changed or vanished — the records holding their cells are
 * re-read, so the cells carry the column's new state (or, where the service keeps them, `column: null`). */
function recordsOfChangedColumns(
  module: Module,
  prevState: StateReader | null,
  full: boolean,
  columns: Column[],
  prevRecords: ReadonlyMap<string, BoardRecord>,
): Set<string> {
  const deepIds = new Set<string>();
  if (!full && prevState) {
    const nowColumns = new Map(columns.map((c) => [c.id, c]));
    const touched = new Set(prevState.columns(module.id).filter((c) => !nowColumns.has(c.id) || !sameColumn(c, nowColumns.get(c.id)!)).map((c) => c.id));
    if (touched.size) {
      for (const cell of prevState.cells(module.id)) if (cell.columnId && touched.has(cell.columnId)) deepIds.add(cell.recordId);
    }
  }
  return withParents(deepIds, prevRecords);
}

/** An incremental pass: sub-records no listing showed are looked for under archived parents. */
async function recheckLostSubRecords(
  reader: RecordReader,
  module: Module,
  prevState: StateReader | null,
  plan: ModuleCrawlPlan,
  prevRecords: ReadonlyMap<string, BoardRecord>,
  listed: BoardRecord[],
): Promise<void> {
  // A sub-record the feed says was created that no listing showed: its parent is archived (the
  // deployed service archives and un-archives without a log row), so archived parents of the
  // collection the row names re-list their sub-records.
  const lostIn = new Set<string | null>();
  for (const id of plan.namedRecords) {
    const c = reader.seen.has(id) || prevRecords.has(id) ? undefined : plan.trace?.subRecordCollection(id);
    if (c !== undefined) lostIn.add(c);
  }
  // Sub-records an earlier pass could not place (created and archived under a parent archived
  // since): while the module changes, the archived parents of their collection re-list theirs, as a
  // full pass's reading of every archived record would — an un-archive is not logged.
  if (plan.recheckSubRecords) for (const s of prevState?.unplacedSubRecords(module.id) ?? []) lostIn.add(s.collectionId);
  if (plan.recheckSubRecords || lostIn.size) {
    const hasSubs = new Set([...prevRecords.values()].map((r) => r.parentRecordId).filter((id): id is string => id !== null));
    const listedParents = plan.recheckSubRecords ? listed.filter((r) => r.subRecordCount > 0 || hasSubs.has(r.id)) : [];
    // (a parent may have moved to another collection since the creation row: those ever in it too)
    const everIn = prevState?.recordsEverIn(module.id, [...lostIn].filter((c): c is string => c !== null)) ?? new Set<string>();
    const archivedParents = [...prevRecords.values()].filter(
      (r) => r.isArchived && r.parentRecordId === null && ((plan.recheckSubRecords && hasSubs.has(r.id)) || lostIn.has(null) || lostIn.has(r.collectionId) || everIn.has(r.id)),
    );
    await reader.recheckSubRecords([...listedParents, ...archivedParents]);
  }
}

export async function crawlModule(
  client: ServiceClient,
  module: Module,
  prevState: StateReader | null,
  plan: ModuleCrawlPlan,
): Promise<ModuleCrawlResult> {
  const full = plan.mode === 'full';
  const [collections, recordColumns, subColumns, automations] = await Promise.all([
    client.listCollections(module.id).then(withTieRanks),
    client.listColumns(module.id, 'record').then(withTieRanks),
    client.listColumns(module.id, 'subrecord').then(withTieRanks),
    client.listModuleAutomations(module.id),
  ]);

  const prevRecords = new Map((prevState?.records(module.id) ?? []).map((r) => [r.id, r]));
  const named = withParents(plan.namedRecords, prevRecords);

  const deepForColumns = recordsOfChangedColumns(module, prevState, full, [...recordColumns, ...subColumns], prevRecords);

  const referencesP = readReferences(client, module.id, [...recordColumns, ...subColumns]);
  const listed = await Promise.all(collections.map((c) => client.listRecords(c.id)));
  const liveCollections = new Set(collections.map((c) => c.id));
  const reader = new RecordReader({
    client,
    workspaceId: module.workspaceId,
    moduleId: module.id,
    prevRecords,
    liveCollections,
    formerRecords: plan.formerRecords,
    deferUnlisted: plan.deferUnlisted === true,
    trace: plan.trace ?? null,
    needsDeep: (r) => full || named.has(r.id) || deepForColumns.has(r.id) || recordChanged(r, prevRecords.get(r.id)),
  });
  const collectionListing: Listing = { kind: 'collection', moduleId: module.id, ids: collections.map((c) => c.id) };
  const listings: Listing[] = [
    { kind: 'column', moduleId: module.id, scope: 'record', ids: recordColumns.map((c) => c.id) },
    { kind: 'column', moduleId: module.id, scope: 'subrecord', ids: subColumns.map((c) => c.id) },
    { kind: 'moduleAutomation', moduleId: module.id, ids: automations.map((a) => a.id) },
  ];
  await reader.readListed(listed.flat());

  // Outside every listing: stored live records that vanished, records the new rows name, archived
  // records holding cells of a changed column — and on a full pass every stored archived record.
  const vanished = [...prevRecords.values()].filter((r) => r.parentRecordId === null && (full || !r.isArchived)).map((r) => r.id);
  await reader.readUnlisted([...vanished, ...named, ...deepForColumns]);
  if (!full) await recheckLostSubRecords(reader, module, prevState, plan, prevRecords, listed.flat());

  // a record left for later stays current until it is read (see deferUnlisted)
  const deferredIn = (collectionId: string) => reader.deferred.filter((id) => prevRecords.get(id)?.collectionId === collectionId);
  collections.forEach((c, i) => listings.push({ kind: 'record', collectionId: c.id, ids: [...listed[i].map((r) => r.id), ...deferredIn(c.id)] }));
  const collectionGone: GoneMark[] = (prevState?.collections(module.id) ?? [])
    .filter((c) => !liveCollections.has(c.id))
    .map((c) => ({ kind: 'collection' as const, id: c.id, cascade: true }));
  const later = reader.deferred.length > 0;
  const gone: GoneMark[] = [...reader.gone, ...(later ? [] : collectionGone)];
  if (!later) listings.unshift(collectionListing);

  const refs = await referencesP;
  listings.push(...reader.listings, refs.listing);
  return {
    batch: {
      upserts: {
        modules: [module],
        collections,
        columns: [...recordColumns, ...subColumns],
        records: reader.records,
        cells: reader.cells,
        amendments: reader.amendments,
        automations,
        references: refs.references,
      },
      listings,
      gone,
    },
    records: reader.records.length,
    cells: reader.cells.length,
    memory: reader.memory(),
    liveCollections,
    probes: reader.probes,
    deferred: reader.deferred,
    collectionMarks: later ? { listings: [collectionListing], gone: collectionGone } : { listings: [], gone: [] },
  };
}

/**
 * A full pass, once the whole feed is in: the records its crawl left for later and those the feed
 * names that no listing showed (archived before this backup began, or since), read by id — kept as
 * archived with their cells, threads and sub-records, or marked gone. One batch for the module.
 */
export async function readFeedNamedRecords(
  client: ServiceClient,
  module: Module,
  prevState: StateReader | null,
  crawl: Pick<ModuleCrawlResult, 'memory' | 'liveCollections' | 'deferred' | 'collectionMarks'>,
  trace: RecordTrace,
  formerRecords?: (ids: string[]) => Map<string, BoardRecord | null>,
): Promise<{ batch: WriteBatch; probes: number }> {
  const prevRecords = new Map((prevState?.records(module.id) ?? []).map((r) => [r.id, r]));
  const reader = new RecordReader({
    client,
    workspaceId: module.workspaceId,
    moduleId: module.id,
    prevRecords,
    liveCollections: crawl.liveCollections,
    needsDeep: () => true,
    formerRecords,
    trace,
    versionAt: prevState?.recordsStoredAt(module.id),
    after: crawl.memory,
  });
  await reader.readUnlisted([...crawl.deferred, ...trace.idsInModule(module.id)]);
  return {
    batch: {
      upserts: { records: reader.records, cells: reader.cells, amendments: reader.amendments },
      listings: [...reader.listings, ...crawl.collectionMarks.listings],
      gone: [...reader.gone, ...crawl.collectionMarks.gone],
    },
    probes: reader.probes,
  };
}
