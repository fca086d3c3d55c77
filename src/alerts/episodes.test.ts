import { describe, expect, it } from 'vitest';
import { AlertEpisodes, type EpisodeState, type EpisodeStore } from './episodes.js';

function memory(): EpisodeStore & { map: Map<string, EpisodeState> } {
  const map = new Map<string, EpisodeState>();
  return { map, load: (k) => map.get(k) ?? null, save: (k, s) => (s === null ? map.delete(k) : map.set(k, s)) };
}
const events = (list: { event: string }[]): string[] => list.map((a) => a.event);

describe('alert episodes: once per episode, recovery after an announced failure', () => {
  it('pass_failed fires once after N failures in a row; recovered follows the next success, once', () => {
    const e = new AlertEpisodes(memory(), 2);
    expect(events(e.passFailed('unreachable', 'service down', 't1'))).toEqual([]);
    const second = e.passFailed('unreachable', 'service down', 't2');
    expect(second).toEqual([expect.objectContaining({ event: 'pass_failed', summary: '2 passes in a row failed: service down', details: { since: 't1', consecutiveFailures: 2 } })]);
    expect(events(e.passFailed('unreachable', 'service down', 't3'))).toEqual([]);
    expect(e.passSucceeded('t4')).toEqual([expect.objectContaining({ event: 'recovered', details: expect.objectContaining({ failures: 3, since: 't1', from: 'pass_failed' }) })]);
    expect(events(e.passSucceeded('t5'))).toEqual([]);
  });

  it('a single failure that recovers says nothing at all', () => {
    const e = new AlertEpisodes(memory(), 2);
    expect(events(e.passFailed('unreachable', 'blip', 't1'))).toEqual([]);
    expect(events(e.passSucceeded('t2'))).toEqual([]);
    expect(events(e.passFailed('unreachable', 'blip', 't3'))).toEqual([]); // the count started over
  });

  it('auth_failed fires at once, once, and is not also a pass_failed', () => {
    const e = new AlertEpisodes(memory(), 2);
    expect(events(e.passFailed('auth', 'key rejected (401)', 't1'))).toEqual(['auth_failed']);
    expect(events(e.passFailed('auth', 'key rejected (401)', 't2'))).toEqual([]);
    expect(events(e.passFailed('auth', 'key rejected (401)', 't3'))).toEqual([]);
    expect(events(e.passSucceeded('t4'))).toEqual(['recovered']);
  });

  it('stale fires once while the bound is exceeded, and again only after it was met', () => {
    const e = new AlertEpisodes(memory(), 2);
    expect(events(e.freshness(null, 't0'))).toEqual([]);
    expect(events(e.freshness('module m1 was last read in full 400 min ago', 't1'))).toEqual(['stale']);
    expect(events(e.freshness('module m1 was last read in full 405 min ago', 't2'))).toEqual([]);
    expect(events(e.freshness(null, 't3'))).toEqual([]);
    expect(events(e.freshness('again', 't4'))).toEqual(['stale']);
  });

  it('the bookkeeping survives a restart (a new instance over the same store)', () => {
    const store = memory();
    new AlertEpisodes(store, 2).passFailed('unreachable', 'down', 't1');
    expect(events(new AlertEpisodes(store, 2).passFailed('unreachable', 'down', 't2'))).toEqual(['pass_failed']);
    expect(events(new AlertEpisodes(store, 2).passFailed('unreachable', 'down', 't3'))).toEqual([]);
  });
});
