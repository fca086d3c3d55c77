import { describe, expect, it } from 'vitest';
import type { PassResult } from '../../sync/pass.js';
import type { TripwireOutcome } from '../../tripwire/check-pass.js';
import { formatPass, formatTripwire } from './sync.js';

describe('sync output', () => {
  it('keeps a failed part’s module name and reason on its line', () => {
    const r: PassResult = {
      snapshot: 7,
      kind: 'incremental',
      status: 'complete',
      counts: {},
      gone: {},
      requests: 2,
      retries: 0,
      durationMs: 10,
      workspaces: [],
      failures: [{ workspaceId: 'w1', moduleId: 'm1', moduleName: 'Board\n  - workspace w1: ok', reason: 'the service said: no\r\u001b[2K' }],
    };
    const lines = formatPass(r).split('\n');
    expect(lines.at(-1)).toBe('  - workspace w1 module m1 (Board\\n  - workspace w1: ok): the service said: no\\r\\u001b[2K');
    expect(lines).toHaveLength(5);
  });

  it('keeps an incident’s summary and each of its lines on their lines', () => {
    const t = {
      recovered: [],
      tripped: [{ incident: { id: 3, summary: 'module X\ntripwire: incident 3 recovered', what: ['cells\n  undo: rm -rf ~'], snapshotBefore: 6 }, undo: 'wbsync rollback --incident 3' }],
    } as unknown as TripwireOutcome;
    expect(formatTripwire(t)).toEqual([
      'tripwire: incident 3: module X\\ntripwire: incident 3 recovered',
      '  - cells\\n  undo: rm -rf ~',
      '  snapshot 6 is held from pruning',
      '  undo: wbsync rollback --incident 3',
    ]);
  });
});
