import { describe, expect, it } from 'vitest';
import { orderColumns } from './column-order.js';

const c = (id: string, position: number, tieRank: number, scope: 'record' | 'subrecord' = 'record') => ({ id, scope, position, tieRank });

describe('column order', () => {
  it('keeps ties in listing order in one chain, and leaves a column alone at its position unchained', () => {
    const r = orderColumns([c('b', 0, 1), c('a', 0, 0), c('solo', 1, 0), c('s1', 0, 0, 'subrecord'), c('s2', 0, 1, 'subrecord')], () => []);
    expect(r.ordered.map((x) => x.id)).toEqual(['a', 'b', 'solo', 's1', 's2']);
    expect(r.chainOf.get('a')).toBe(r.chainOf.get('b'));
    expect(r.chainOf.get('s1')).toBe(r.chainOf.get('s2'));
    expect(r.chainOf.get('a')).not.toBe(r.chainOf.get('s1'));
    expect(r.chainOf.has('solo')).toBe(false);
    expect(r.displaced).toEqual([]);
  });

  it('puts a column after the one its settings name, joining their chains', () => {
    const r = orderColumns([c('ref', 0, 0), c('x', 0, 1), c('rel', 3, 0)], (col) => (col.id === 'ref' ? ['rel'] : []));
    expect(r.ordered.map((x) => x.id)).toEqual(['rel', 'ref', 'x']); // rel pulled forward: ref keeps its place before x
    expect(new Set(['ref', 'x', 'rel'].map((id) => r.chainOf.get(id))).size).toBe(1);
    expect(r.displaced).toEqual([]); // rel is not tied with ref: nothing out of place
  });

  it('pulls a named column forward rather than letting a later tie member overtake', () => {
    // rel@0 names x (alone at 5); chk@0 is listed after rel: rel must still come before chk
    const r = orderColumns([c('rel', 0, 0), c('chk', 0, 1), c('x', 5, 0)], (col) => (col.id === 'rel' ? ['x'] : []));
    expect(r.ordered.map((x) => x.id)).toEqual(['x', 'rel', 'chk']);
    expect(r.displaced).toEqual([]);
  });

  it('reports a tied column that names a sibling listed after it (it cannot keep its place)', () => {
    const r = orderColumns([c('early', 0, 0), c('late', 0, 1)], (col) => (col.id === 'early' ? ['late'] : []));
    expect(r.ordered.map((x) => x.id)).toEqual(['late', 'early']);
    expect(r.displaced.map((d) => [d.column.id, d.names.id])).toEqual([['early', 'late']]);
  });
});
