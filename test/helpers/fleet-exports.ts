// Every complete snapshot of a tenant's database, exported (`wbsync export`'s own code), read back
// view by view: what "the history is the same" means when a tenant moves between workers.

import fs from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';

/** Every complete snapshot of `db`, exported, as bytes of its views (the export's own file differs
 * in page layout only if the history differs). */
export async function exportsOf(dbPath: string, dir: string): Promise<Record<number, string>> {
  const store = openStore(dbPath, { readonly: true });
  try {
    const out: Record<number, string> = {};
    for (const s of store.listSnapshots().filter((x) => x.status === 'complete')) {
      const f = join(dir, `export-${Math.random().toString(36).slice(2)}.db`);
      await store.exportTo(f, s.id);
      const e = openStore(f, { readonly: true });
      try {
        out[s.id] = JSON.stringify(['records', 'cells', 'columns', 'collections', 'modules', 'amendments', 'members'].map((v) => e.db.prepare(`SELECT * FROM ${v} ORDER BY 1, 2`).all()));
      } finally {
        e.close();
        fs.rmSync(f);
      }
    }
    return out;
  } finally {
    store.close();
  }
}

