// The README's many-databases recipe, run as written with DuckDB (@duckdb/node-api): two wbsync
// databases (two services, so two id spaces), README query 2 across both, compared with what each
// answers alone. The JSON Lines route runs exactly; the ATTACH route cannot download DuckDB's
// sqlite extension here, so the attaching is done by hand — each database's tables copied into a
// DuckDB catalog of the same name and its view definitions, read from the file, created there
// verbatim — and everything after it (the README's CREATE VIEWs, the query) runs as written. That
// is also the check that every wbsync view is SQL DuckDB can parse and run.

import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTING_QUERIES } from '../../src/store/read/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { docsText } from '../helpers/docs.js';
import { tempDir, runCliCaptured } from '../helpers/harness.js';

const README = docsText();
const QUERY_2 = REPORTING_QUERIES.find((q) => q.title === 'Completion per module')!.sql;

/** The README code block (```lang) that contains `marker`. */
function block(lang: string, marker: string): string {
  const found = [...README.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!).filter((b) => b.includes(marker));
  expect(found, `README ${lang} block with ${marker}`).toHaveLength(1);
  return found[0]!;
}

/** Statements of a block, one per `;`-terminated line run (no string in these holds a ';'). */
const statements = (sql: string): string[] => sql.split(/;\s*\n/).map((s) => s.trim()).filter(Boolean);

const cli = runCliCaptured;

type Row = Record<string, unknown>;
const norm = (rows: Row[]): string[] => rows.map((r) => JSON.stringify(Object.values(r).map((v) => (v === null ? null : String(v))))).sort();

async function rows(c: DuckDBConnection, sql: string): Promise<Row[]> {
  return (await c.runAndReadAll(sql)).getRowObjectsJson() as Row[];
}

/** What `ATTACH 'file' AS name (TYPE sqlite)` gives: the file's tables and views under `name`. */
async function attachByHand(c: DuckDBConnection, file: string, name: string): Promise<void> {
  const src = new Database(file, { readonly: true });
  try {
    await c.run(`ATTACH ':memory:' AS ${name}`);
    const views = src.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name`).all() as Array<{ name: string; sql: string }>;
    const tables = src.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'search%' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
    // SQLite's declared types as DuckDB's sqlite extension maps them
    const typeOf = (t: string): string => (/INT/i.test(t) ? 'BIGINT' : /REAL|FLOA|DOUB/i.test(t) ? 'DOUBLE' : 'VARCHAR');
    for (const t of tables) {
      const cols = src.prepare('SELECT name, type FROM pragma_table_info(?)').all(t) as Array<{ name: string; type: string }>;
      await c.run(`CREATE TABLE ${name}.main."${t}" (${cols.map((x) => `"${x.name}" ${typeOf(x.type)}`).join(', ')})`);
      const app = await c.createAppender(t, 'main', name);
      for (const row of src.prepare(`SELECT * FROM "${t}"`).raw(true).iterate() as IterableIterator<unknown[]>) {
        row.forEach((v, i) => {
          const type = typeOf(cols[i]!.type);
          if (v === null) app.appendNull();
          else if (type === 'BIGINT') app.appendBigInt(BigInt(v as number));
          else if (type === 'DOUBLE') app.appendDouble(v as number);
          else app.appendVarchar(String(v));
        });
        app.endRow();
      }
      app.flushSync();
      app.closeSync();
    }
    await c.run(`USE ${name}`);
    for (const v of views) await c.run(v.sql); // verbatim: DuckDB must parse and bind wbsync's views
    await c.run('USE memory');
    // and they answer what SQLite answers
    for (const v of views) {
      const want = src.prepare(`SELECT * FROM "${v.name}"`).all() as Row[];
      expect(norm(await rows(c, `SELECT * FROM ${name}.main."${v.name}"`)), `${name}.${v.name}`).toEqual(norm(want));
    }
  } finally {
    src.close();
  }
}

describe('reports across many databases with DuckDB (README recipe)', () => {
  const t = tempDir('wbsync-duckdb-');
  const emus: RunningEmulator[] = [];
  const dbs: Record<string, string> = {};
  let expected: string[];
  beforeAll(async () => {
    // two services: the demo and a generated workspace, with different id seeds
    for (const [name, seed, randomSeed] of [['acme', 'demo', 11], ['globex', 'small', 29]] as const) {
      const emu = await startEmulator({ dialect: 'spec', seed, randomSeed });
      emus.push(emu);
      dbs[name] = join(t.dir, name, 'wbsync.db');
      const r = await cli(['sync', '--full', '--db', dbs[name]!], { WBSYNC_BASE_URL: emu.baseUrl, WBSYNC_API_KEY: emu.apiKey });
      expect(r.code, r.err).toBe(0);
    }
    // query 2 on each database alone, together: what the recipe must answer
    expected = norm(Object.values(dbs).flatMap((file) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(QUERY_2).all() as Row[];
      } finally {
        db.close();
      }
    }));
    expect(expected.length).toBeGreaterThan(4);
  }, 120_000);
  afterAll(async () => {
    for (const e of emus) await e.stop();
    t.cleanup();
  });

  it('ATTACH route: the README views over the attached databases, then query 2 as written', async () => {
    const duck = await DuckDBInstance.create(':memory:'); // a fresh DuckDB session, as a user would open
    const c = await duck.connect();
    try {
      const attach = statements(block('sql', "ATTACH 'acme/wbsync.db'"));
      expect(attach.slice(0, 2)).toEqual(['INSTALL sqlite', 'LOAD sqlite']);
      for (const s of attach.slice(2)) {
        const m = /^ATTACH '([^']+)' AS (\w+) \(TYPE sqlite, READ_ONLY\)$/.exec(s);
        expect(m, s).toBeTruthy();
        await attachByHand(c, join(t.dir, m![1]!), m![2]!);
      }
      for (const s of statements(block('sql', 'FROM acme.records'))) await c.run(s);
      expect(norm(await rows(c, QUERY_2))).toEqual(expected);
    } finally {
      c.closeSync();
      duck.closeSync();
    }
  }, 120_000);

  it('JSON Lines route: the README export commands, read_json over the folders, query 2 as written', async () => {
    for (const line of block('sh', 'export --format jsonl --out exports/').trim().split('\n')) {
      const argv = line.replace(/^wbsync\s+/, '').split(/\s+/).map((a) => (/^(acme|globex|exports)\//.test(a) ? join(t.dir, a) : a));
      const r = await cli(argv);
      expect(r.code, `${line}: ${r.err}`).toBe(0);
    }
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    try {
      for (const s of statements(block('sql', "read_json('exports/"))) await c.run(s.replaceAll("'exports/", `'${t.dir}/exports/`));
      expect(norm(await rows(c, QUERY_2))).toEqual(expected);
    } finally {
      c.closeSync();
      duck.closeSync();
    }
  }, 120_000);
});
