// The rollback preview merges and sorts rows read by several queries in JavaScript (module-window.ts):
// its order must be SQLite's BINARY order (UTF-8 bytes, so code points), which `<` on UTF-16 code
// units is not for characters above U+FFFF against U+E000–FFFF.

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { binaryCmp } from './module-window.js';

describe('binaryCmp', () => {
  it('orders strings as SQLite ORDER BY does, astral and private-use characters among them', () => {
    const pool = ['a', 'b', 'é', '\u{e000}', '\u{ffff}', '\u{10000}', '😀', '\u{fffd}', 'Z', '0', ''];
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0), seed / 2 ** 32);
    const words = Array.from({ length: 400 }, () => Array.from({ length: Math.floor(rnd() * 4) }, () => pool[Math.floor(rnd() * pool.length)]).join(''));
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (w TEXT)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      for (const w of words) insert.run(w);
      const bySql = db.prepare('SELECT w FROM t ORDER BY w').pluck().all() as string[];
      expect([...words].sort(binaryCmp)).toEqual(bySql);
      // and it is not what the default sort gives
      expect([...words].sort()).not.toEqual(bySql);
    } finally {
      db.close();
    }
  });
});
