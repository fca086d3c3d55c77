// Erasure tests: a history of passes over random writes, and raw-byte searches of a database file
// and its WAL.
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import type { Harness } from './harness.js';
import { Writer, prng } from './random-writes.js';

/** A full pass, then `rounds` of six random writes and a pass (every fifth one full). */
export async function buildHistory(h: Harness, dialect: Dialect, seed: number, rounds: number): Promise<void> {
  await h.sync();
  const w = new Writer(h.emu, prng(seed), dialect);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < 6; i++) await w.randomWrite();
    h.emu.clock.advance(60_000);
    await h.emu.idle();
    const pass = await h.sync({ full: r % 5 === 4 });
    expect(pass.failures).toEqual([]);
  }
}

const bytesOf = (file: string): Buffer => (fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0));

/** sha256 of the file and its WAL: "not a byte changed". */
export const filesHash = (db: string): string => createHash('sha256').update(bytesOf(db)).update(bytesOf(`${db}-wal`)).digest('hex');

/** The strings of `needles` found in the file or its WAL, read as raw bytes. */
export function foundIn(dbFile: string, needles: string[]): string[] {
  const bufs = [bytesOf(dbFile), bytesOf(`${dbFile}-wal`)];
  return needles.filter((s) => bufs.some((b) => b.indexOf(Buffer.from(s, 'utf8')) >= 0));
}
