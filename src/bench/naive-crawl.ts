// The naive crawler the benchmark compares against: one request at a time, every list read for
// every record whatever its counts say. Reads only; stores nothing.

import type { ServiceClient } from '../api/port.js';

export async function naiveCrawl(client: ServiceClient, maxModules: number): Promise<{ modules: number; records: number }> {
  let modules = 0;
  let records = 0;
  for (const ws of await client.listWorkspaces()) {
    await client.listMembers(ws.id);
    await client.listWorkspaceAutomations(ws.id);
    for (const m of await client.listModules(ws.id)) {
      if (modules >= maxModules) return { modules, records };
      modules++;
      await client.listColumns(m.id, 'record');
      await client.listColumns(m.id, 'subrecord');
      await client.listModuleAutomations(m.id);
      for (const c of await client.listCollections(m.id)) {
        for (const r of await client.listRecords(c.id)) {
          records++;
          await client.listValues(r.id);
          await client.listAmendments(r.id);
          for (const s of await client.listSubRecords(r.id)) {
            records++;
            await client.listValues(s.id);
            await client.listAmendments(s.id);
          }
        }
      }
    }
  }
  return { modules, records };
}
