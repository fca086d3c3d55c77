// The journal lets go, in memory only, of cells a batch has written: the database keeps them, so a
// resumed run (a new RunJournal over the same run) still knows them and sends nothing twice.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../index.js';
import { idMapOf, RunJournal, startRun } from './restore-journal.js';

describe('RunJournal.release', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wbsync-journal-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('forgets a done cell in memory, keeps it in the database; leaves what is not done', () => {
    const store = openStore(join(dir, 'j.db'));
    try {
      const run = startRun(store.db, { kind: 'workspace', runKey: 'k', snapshotId: 1, sourceIds: ['w'], targetWorkspaceId: null, options: {} }, '2026-11-26T00:00:00.000Z');
      const j = new RunJournal(store.db, run);
      j.intend('cell', 'v1');
      j.created('cell', 'v1', 'n1');
      j.stepDone('cell:v1');
      j.intend('cell', 'v2');
      j.created('cell', 'v2', 'n2'); // created, its follow-up not done: kept
      j.release('v1', 'cell:v1');
      j.release('v2', 'cell:v2');
      expect(j.newId('v1')).toBeUndefined();
      expect(j.isDone('cell:v1')).toBe(false);
      expect(j.isClaimed('n1')).toBe(false);
      expect(j.newId('v2')).toBe('n2');
      expect(idMapOf(store.db, run.id)).toEqual(new Map([['v1', 'n1'], ['v2', 'n2']]));
      // a resumed run reads everything back
      const again = new RunJournal(store.db, run);
      expect(again.newId('v1')).toBe('n1');
      expect(again.isDone('cell:v1')).toBe(true);
    } finally {
      store.close();
    }
  });
});
