import { describe, expect, it } from 'vitest';
import { addPart, splitBatch } from './batch-parts.js';
import { makeAmendment, makeCell, makeModule, makeRecord } from '../fixtures.js';
import type { WriteBatch } from '../port.js';

describe('batch parts', () => {
  const batch: WriteBatch = {
    upserts: {
      modules: [makeModule('m1', 'w1')],
      records: Array.from({ length: 1203 }, (_, i) => makeRecord(`r${i}`, 'm1', 'c1')),
      cells: Array.from({ length: 2500 }, (_, i) => makeCell(`x${i}`, `r${i % 1203}`, 'k1')),
      activity: [],
      amendments: [makeAmendment('a1', 'r1')],
    },
    listings: Array.from({ length: 1203 }, (_, i) => ({ kind: 'cell' as const, recordId: `r${i}`, ids: [`x${i}`] })),
    gone: [{ kind: 'record', id: 'old', cascade: true }],
    cursor: { workspaceId: 'w1', cursor: '2026-01-01T00:00:00.000Z' },
  };

  it('cuts a batch into bounded parts and puts it back together exactly', () => {
    const { parts, rest } = splitBatch(batch, 500);
    for (const p of parts) {
      const sizes = [...Object.values(p.upserts ?? {}).map((xs) => (xs as unknown[]).length), p.listings?.length ?? 0];
      expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
    }
    // 1 module, 3 record parts, 5 cell parts, 1 amendment, 3 listing parts; an empty list sends nothing
    expect(parts).toHaveLength(13);
    expect(rest).toEqual({ gone: batch.gone, cursor: batch.cursor });
    const back: WriteBatch = { ...rest };
    for (const p of structuredClone(parts)) addPart(back, p);
    const { activity: _empty, ...withoutEmpty } = batch.upserts!;
    expect(back).toEqual({ ...batch, upserts: withoutEmpty });
  });

  it('leaves a batch with nothing to cut as it is', () => {
    expect(splitBatch({ cursor: batch.cursor }, 500)).toEqual({ parts: [], rest: { cursor: batch.cursor } });
  });
});
