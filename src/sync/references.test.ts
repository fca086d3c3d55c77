import { describe, expect, it } from 'vitest';
import type { Column } from '../domain/entities.js';
import type { ServiceClient } from '../api/port.js';
import { hasReferenceColumns, readReferences, referencedModules, referencesStale } from './references.js';

function col(id: string, type: string, settings: Record<string, unknown> | null = null): Column {
  return { id, moduleId: 'm', scope: 'record', name: id, type, position: 0, width: 100, isRequired: false, isHidden: false, statusOptions: null, settings, tieRank: null, raw: {} };
}

describe('references', () => {
  const cols = [col('a', 'text'), col('rel', 'relation', { targetModule: 'sales' }), col('ref', 'reference', { via: 'rel', field: 'x' })];

  it('knows which modules a module points at', () => {
    expect(hasReferenceColumns(cols)).toBe(true);
    expect(hasReferenceColumns([col('a', 'text')])).toBe(false);
    expect([...referencedModules(cols)]).toEqual(['sales']);
    expect(referencesStale(cols, new Set(['sales']))).toBe(true);
    expect(referencesStale(cols, new Set(['hiring']))).toBe(false);
  });

  it('flattens the map into one entity per (record, column), and asks nothing without such columns', async () => {
    let calls = 0;
    const client = {
      getReferences: async () => {
        calls++;
        return { r1: { rel: { items: [{ recordId: 's1', name: 'Acme', value: null }], display: 'Acme' }, ref: { items: [], display: '' } } };
      },
    } as unknown as ServiceClient;
    const res = await readReferences(client, 'm', cols);
    expect(res.references).toEqual([
      { moduleId: 'm', recordId: 'r1', columnId: 'rel', items: [{ recordId: 's1', name: 'Acme', value: null }], display: 'Acme', raw: { items: [{ recordId: 's1', name: 'Acme', value: null }], display: 'Acme' } },
      { moduleId: 'm', recordId: 'r1', columnId: 'ref', items: [], display: '', raw: { items: [], display: '' } },
    ]);
    expect(res.listing).toEqual({ kind: 'reference', moduleId: 'm', ids: ['r1/rel', 'r1/ref'] });
    const none = await readReferences(client, 'm', [col('a', 'text')]);
    expect(none.references).toEqual([]);
    expect(none.listing.ids).toEqual([]);
    expect(calls).toBe(1);
  });
});
