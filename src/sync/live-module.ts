// One module read live, everything in it, by the crawler a full pass uses (so it comes out of the
// very same normalisers as a snapshot): what `diff` compares against and what `rollback` calls the
// live side. Restore asks for it through its own port (LiveModuleReader in src/restore); the CLI
// hands it this function, so neither room imports the other.

import type { Amendment, Automation, BoardRecord, Cell, Collection, Column, Module } from '../domain/entities.js';
import type { ServiceClient } from '../api/port.js';
import type { StateReader } from '../store/port.js';
import { crawlModule } from './module-crawl.js';

export interface LiveModuleContent {
  collections: Collection[];
  /** Both scopes. */
  columns: Column[];
  /** Records and sub-records the listings show (records archived before are not listable live). */
  records: BoardRecord[];
  cells: Cell[];
  amendments: Amendment[];
  /** Module-scope automations. */
  automations: Automation[];
}

/** `known` (a snapshot's state) lets the crawler tell archived records (still answering by id)
 * from deleted ones. */
export async function readModuleLive(client: ServiceClient, module: Module, known: StateReader | null): Promise<LiveModuleContent> {
  const res = await crawlModule(client, module, known, { mode: 'full', namedRecords: new Set() });
  const up = res.batch.upserts ?? {};
  const gone = new Set((res.batch.gone ?? []).map((g) => g.id));
  return {
    collections: up.collections ?? [],
    columns: up.columns ?? [],
    records: (up.records ?? []).filter((r) => !gone.has(r.id)),
    cells: up.cells ?? [],
    amendments: up.amendments ?? [],
    automations: up.automations ?? [],
  };
}
